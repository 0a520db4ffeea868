"""Snapshot earnings-call transcripts (``transcripts/``).

Rules this module keeps:
- Point in time by the call's own time: ``conference_date`` is US/Eastern (as given upstream); a
  call is visible at ``as_of`` when it was held on or before the end of that New York day.
- ``transcripts/index.csv`` lists every call of the upstream set; only rows with a ``path`` have
  text here. A company whose calls are listed but not stored is ``no_data`` saying so.
- Alphabet's calls are filed under GOOG; GOOGL asks for the same calls.
- Texts are read on demand and kept in memory; the index is read once (thread-safe).
"""

from __future__ import annotations

import csv
import threading
from dataclasses import dataclass
from datetime import date, datetime

from findesk.core.dates import NEW_YORK, visible_at
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import Transcript
from findesk.data.vendors.snapshot.files import Lazy, SnapshotFiles

INDEX = "transcripts/index.csv"
_ALIASES = {"GOOGL": "GOOG"}


@dataclass(frozen=True, slots=True)
class _Call:
    ticker: str
    company_name: str
    fiscal_year: int
    fiscal_quarter: int
    conference_at: datetime
    path: str  # "" when the snapshot does not hold the text


class TranscriptStore:
    def __init__(self, files: SnapshotFiles) -> None:
        self.files = files
        self._calls = Lazy(self._read_index)
        self._texts: dict[str, str] = {}
        self._lock = threading.Lock()

    def _read_index(self) -> dict[str, list[_Call]]:
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
        return by_ticker

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
