"""Snapshot earnings-call transcripts and the earnings calendar (``transcripts/``).

Rules this module keeps:
- Point in time by the call's own time: ``conference_date`` is US/Eastern (as given upstream); a
  call is visible at ``as_of`` when it was held on or before the end of that New York day.
- ``transcripts/index.csv`` lists every call of the upstream set; only rows with a ``path`` have
  text here. A company whose calls are listed but not stored is ``no_data`` saying so.
- Alphabet's calls are filed under GOOG; GOOGL asks for the same calls.
- Texts are read on demand and kept in memory; the index and the calendar are parsed once
  (thread-safe) and kept on disk between processes (``SnapshotFiles.cached``: rebuilt when the
  CSV or the parsing code changes); a query unpickles only its ticker's rows.
- The earnings calendar (``earnings_events.csv``) was recorded on one day, its as-of date in
  ``SOURCES.tsv`` (the one place that date is kept). Dates on or before ``as_of`` are history and
  always shown; a date after ``as_of`` is shown only when ``as_of`` is on or after that recording day,
  so an earlier briefing never sees a schedule published later. Without a readable recording day no
  calendar is given. Rows whose day lies more than a year from their fiscal year are upstream
  mislabels (e.g. GOOG "2019 Q1" on 2024-04-29) and are skipped.
"""

from __future__ import annotations

import csv
import threading
from dataclasses import dataclass
from datetime import date, datetime
from typing import Literal

from findesk.core.dates import NEW_YORK, visible_at
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import EarningsCalendar, EarningsEvent, Transcript
from findesk.data.vendors.snapshot.files import Lazy, SnapshotFiles
from findesk.data.vendors.snapshot.store_cache import Blobs

INDEX = "transcripts/index.csv"
EVENTS = "transcripts/earnings_events.csv"
PROVENANCE = "SOURCES.tsv"  # snapshot_path, source (owner/repo@commit:path), license, as_of, notes
_ALIASES = {"GOOGL": "GOOG"}
_FISCAL_SLACK_YEARS = 1  # a fiscal year names the calendar year of its call, or one year either side


@dataclass(frozen=True, slots=True)
class _Call:
    ticker: str
    company_name: str
    fiscal_year: int
    fiscal_quarter: int
    conference_at: datetime
    path: str  # "" when the snapshot does not hold the text


@dataclass(frozen=True, slots=True)
class _Provenance:
    recorded_on: date | None
    url: str | None


class TranscriptStore:
    def __init__(self, files: SnapshotFiles) -> None:
        self.files = files
        self._calls = Lazy(lambda: files.cached("transcript-index", [INDEX], self._read_index, expect=Blobs))
        self._events = Lazy(
            lambda: files.cached("earnings-events", [EVENTS], self._read_events, expect=tuple)
        )
        self._provenance = Lazy(self._read_provenance)
        self._texts: dict[str, str] = {}
        self._lock = threading.Lock()

    def _read_index(self) -> Blobs[list[_Call]]:
        by_ticker: dict[str, list[_Call]] = {}
        with self.files.path(INDEX).open(newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                call = _Call(
                    ticker=row["ticker"],
                    company_name=row["company_name"],
                    fiscal_year=int(row["fiscal_year"]),
                    fiscal_quarter=int(row["fiscal_quarter"]),
                    conference_at=datetime.fromisoformat(row["conference_date"]).replace(tzinfo=NEW_YORK),
                    path=row["path"],
                )
                by_ticker.setdefault(call.ticker, []).append(call)
        for calls in by_ticker.values():
            calls.sort(key=lambda c: c.conference_at, reverse=True)
        return Blobs(by_ticker)

    def _text(self, rel: str) -> str:
        with self._lock:
            text = self._texts.get(rel)
            if text is None:
                text = self.files.path(rel).read_text(encoding="utf-8")
                self._texts[rel] = text
        return text

    def transcripts(self, symbol: str, as_of: date, limit: int) -> Result[list[Transcript]]:
        if not self.files.exists(INDEX):
            return Err(ErrorCode.NO_DATA, "the snapshot has no transcripts folder", "snapshot")
        ticker = _ALIASES.get(symbol, symbol)
        listed = self._calls.get().get(ticker)
        if not listed:
            return Err(
                ErrorCode.NOT_FOUND,
                f"no earnings calls are listed for {symbol} in {INDEX} (S&P 500 companies, 2023-05..2025-09)",
                "snapshot",
            )
        visible = [c for c in listed if visible_at(c.conference_at, as_of)]
        stored = [c for c in visible if c.path]
        if not stored:
            reason = (
                f"the snapshot holds the text of no {symbol} earnings call held on or before {as_of}"
                if visible
                else f"no {symbol} earnings call in the snapshot was held on or before {as_of}"
            )
            if visible:
                reason += f" ({len(visible)} are listed in {INDEX} without text)"
            return Err(ErrorCode.NO_DATA, reason, "snapshot")
        return Ok(
            [
                Transcript(
                    ticker=symbol,
                    company_name=c.company_name,
                    fiscal_year=c.fiscal_year,
                    fiscal_quarter=c.fiscal_quarter,
                    conference_at=c.conference_at,
                    text=self._text(c.path),
                    source=self.files.source(c.path, note="ASR-style text without speaker tags"),
                )
                for c in stored[:limit]
            ]
        )

    # ---- earnings calendar ------------------------------------------------------------------------

    def _read_events(self) -> tuple[Blobs[list[EarningsEvent]], dict[str, str]]:
        by_ticker: dict[str, list[EarningsEvent]] = {}
        names: dict[str, str] = {}
        with self.files.path(EVENTS).open(newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                day = date.fromisoformat(row["date"])
                year = int(row["year"])
                if abs(day.year - year) > _FISCAL_SLACK_YEARS:
                    continue
                status: Literal["held", "scheduled"] = (
                    "scheduled" if row["has_transcript"] == "FUTURE" else "held"
                )
                event = EarningsEvent(
                    fiscal_year=year, fiscal_quarter=int(row["quarter"]), day=day, status=status
                )
                by_ticker.setdefault(row["symbol"], []).append(event)
                names.setdefault(row["symbol"], row["company_name"].strip())
        return Blobs(by_ticker), names

    def _read_provenance(self) -> _Provenance:
        if not self.files.exists(PROVENANCE):
            return _Provenance(None, None)
        for line in self.files.path(PROVENANCE).read_text(encoding="utf-8").splitlines():
            cells = line.split("\t")
            if len(cells) >= 4 and cells[0] == EVENTS:
                try:
                    recorded = date.fromisoformat(cells[3].strip())
                except ValueError:
                    recorded = None
                return _Provenance(recorded, _github_url(cells[1].strip()))
        return _Provenance(None, None)

    def calendar(self, symbol: str, as_of: date) -> Result[EarningsCalendar]:
        if not self.files.exists(EVENTS):
            return Err(ErrorCode.NO_DATA, f"the snapshot has no earnings calendar ({EVENTS})", "snapshot")
        provenance = self._provenance.get()
        if provenance.recorded_on is None:
            return Err(
                ErrorCode.NO_DATA,
                f"{PROVENANCE} records no as-of date for {EVENTS}: without the day the calendar was known, "
                "none of its dates is shown",
                "snapshot",
            )
        events, names = self._events.get()
        ticker = _ALIASES.get(symbol, symbol)
        listed = events.get(ticker)
        if not listed:
            return Err(
                ErrorCode.NOT_FOUND,
                f"no earnings dates are listed for {symbol} in {EVENTS} (S&P 500 companies)",
                "snapshot",
            )
        recorded = provenance.recorded_on
        past = [e for e in listed if e.day <= as_of]
        # The schedule is news from the recording day on; before it, a later date would leak the future.
        ahead = [e for e in listed if e.day > as_of] if as_of >= recorded else []
        return Ok(
            EarningsCalendar(
                ticker=symbol,
                company_name=names.get(ticker),
                as_of=as_of,
                recorded_on=recorded,
                last_event=max(past, key=lambda e: e.day, default=None),
                next_event=min(ahead, key=lambda e: e.day, default=None),
                url=provenance.url,
                source=self.files.source(
                    EVENTS, note=f"earnings calendar as known on {recorded.isoformat()}"
                ),
            )
        )


def _github_url(source: str) -> str | None:
    """``owner/repo@commit:path`` (the snapshot's provenance form) as a GitHub link to that commit's file."""
    repo, at, rest = source.partition("@")
    commit, colon, path = rest.partition(":")
    if not (at and colon and repo.count("/") == 1 and commit and path):
        return None
    # 12 hex digits name the commit unambiguously and keep the link short enough for one screen line
    return f"https://github.com/{repo}/blob/{commit[:12]}/{path}"
