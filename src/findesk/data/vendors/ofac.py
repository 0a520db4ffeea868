"""Live OFAC SDN screening: downloads ``sdn.csv`` from the US Treasury and keeps dated local copies.

Rules this vendor keeps:
- Never raises. The download goes through the shared HTTP client (freshness "sanctions"); a body that
  does not parse as the official SDN CSV is never saved over a good copy.
- Every good download is kept as ``<cache_dir>/ofac/sdn_<download date>.csv`` (the newest few); a
  body the HTTP cache answers with is dated by when it was really fetched (now minus its age).
  When the download fails the newest local copy is used and the answer says so, with its age and a
  stale flag (``settings.sanctions_stale_days``); with no copy at all the answer is ``unavailable``.
- Point in time: the live list only describes the day it was downloaded. For a past as-of date only a
  local copy downloaded on or before that date is used; otherwise ``no_data`` (the snapshot vendor
  holds dated lists for backtests).
- sdn.csv cuts remarks at 1,000 characters, so some digital-currency addresses are missing; the
  answer's source says so.
"""

from __future__ import annotations

import asyncio
import os
import threading
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from findesk.core.config import Settings
from findesk.core.dates import NEW_YORK, today_new_york
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats import ofac
from findesk.data.http.client import HttpClient
from findesk.data.models import SanctionsList, SanctionsScreen, Source
from findesk.data.vendors.base import Category, HttpVendor

SDN_URL = "https://www.treasury.gov/ofac/downloads/sdn.csv"
LIST_NAME = "OFAC SDN"
KEEP_COPIES = 10
_TRUNCATION_NOTE = "sdn.csv cuts remarks at 1,000 characters, so some digital-currency addresses are missing"


class OfacVendor(HttpVendor):
    name = "ofac"
    categories = frozenset({Category.SANCTIONS})

    def __init__(self, http: HttpClient, settings: Settings) -> None:
        super().__init__(http, settings)
        self.dir = settings.cache_dir / "ofac"
        self._parsed: dict[Path, tuple[float, list[ofac.SdnEntry]]] = {}
        self._lock = threading.Lock()

    async def sanctions(self, query: str, as_of: date) -> Result[SanctionsScreen]:
        kind = ofac.classify_query(query)
        if isinstance(kind, Err):
            return Err(kind.code, kind.reason, self.name)
        today = today_new_york()
        failure: Err | None = None
        if as_of >= today and await asyncio.to_thread(self._copy_path, today) is None:
            failure = await self._download(today)
        copy = await asyncio.to_thread(self._newest_copy, as_of)
        if copy is None:
            if failure is not None:
                return Err(
                    ErrorCode.UNAVAILABLE,
                    f"The OFAC SDN list could not be downloaded ({failure.code.value}: {failure.reason}) "
                    f"and there is no local copy under {self.dir}.",
                    self.name,
                )
            return Err(
                ErrorCode.NO_DATA,
                f"There is no local copy of the OFAC SDN list downloaded on or before {as_of.isoformat()}; "
                "the live list only describes today, so use the snapshot lists for past dates.",
                self.name,
            )
        list_date, path = copy
        entries = await asyncio.to_thread(self._entries, path)
        if isinstance(entries, Err):
            return entries
        age = (as_of - list_date).days
        notes = [_TRUNCATION_NOTE]
        if failure is not None:
            notes.insert(
                0, f"download failed ({failure.code.value}); using the local copy of {list_date.isoformat()}"
            )
        source = Source(vendor=self.name, ref=SDN_URL, retrieved_at=_mtime(path), note="; ".join(notes))
        checked = SanctionsList(
            name=LIST_NAME,
            list_date=list_date,
            stale_days=age,
            stale=age > self.settings.sanctions_stale_days,
            source=source,
        )
        text = query.strip()
        matches = ofac.sdn_matches(text, kind.value, entries.value, LIST_NAME, list_date, source)
        return Ok(SanctionsScreen(query=text, matches=matches, lists_checked=[checked]))

    # -- local copies ----------------------------------------------------------------------------

    async def _download(self, today: date) -> Err | None:
        """Fetch and keep today's list; an ``Err`` says why the newest copy is not from today."""
        got = await self.http.get(SDN_URL, freshness="sanctions", source=self.name)
        if isinstance(got, Err):
            return got
        resp = got.value
        parsed = ofac.parse_sdn_csv(resp.content)
        if isinstance(parsed, Err):
            return Err(
                ErrorCode.BAD_RESPONSE, f"the downloaded file is not the SDN CSV: {parsed.reason}", self.name
            )
        # The HTTP cache may answer with an older body; the list is dated by when it was fetched.
        age_s = float(resp.extra.get("age_s", 0.0)) if resp.from_cache else 0.0
        fetched = (datetime.now(UTC) - timedelta(seconds=age_s)).astimezone(NEW_YORK).date()
        await asyncio.to_thread(self._save, min(fetched, today), resp.content, parsed.value)
        if resp.extra.get("stale"):
            reason = str(resp.extra.get("stale_reason") or "the source did not answer")
            return Err(ErrorCode.UNAVAILABLE, f"{reason}; the HTTP cache served an older copy", self.name)
        return None

    def _save(self, day: date, content: bytes, entries: list[ofac.SdnEntry]) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        path = self.dir / f"sdn_{day.isoformat()}.csv"
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_bytes(content)
        tmp.replace(path)  # atomic: a reader never sees half a list
        with self._lock:
            self._parsed[path] = (path.stat().st_mtime, entries)
        for old in self._copies()[KEEP_COPIES:]:
            old[1].unlink(missing_ok=True)

    def _copies(self) -> list[tuple[date, Path]]:
        """Local copies, newest first."""
        out: list[tuple[date, Path]] = []
        if not self.dir.is_dir():
            return out
        for path in self.dir.glob("sdn_*.csv"):
            try:
                out.append((date.fromisoformat(path.stem.removeprefix("sdn_")), path))
            except ValueError:
                continue
        return sorted(out, reverse=True)

    def _copy_path(self, day: date) -> Path | None:
        path = self.dir / f"sdn_{day.isoformat()}.csv"
        return path if path.is_file() else None

    def _newest_copy(self, as_of: date) -> tuple[date, Path] | None:
        return next(((d, p) for d, p in self._copies() if d <= as_of), None)

    def _entries(self, path: Path) -> Result[list[ofac.SdnEntry]]:
        try:
            mtime = path.stat().st_mtime
            with self._lock:
                cached = self._parsed.get(path)
            if cached is not None and cached[0] == mtime:
                return Ok(cached[1])
            parsed = ofac.parse_sdn_csv(path.read_bytes())
        except OSError as exc:
            return Err(
                ErrorCode.UNAVAILABLE, f"The local SDN copy {path} could not be read: {exc}.", self.name
            )
        if isinstance(parsed, Err):
            return Err(
                ErrorCode.UNAVAILABLE, f"The local SDN copy {path} is damaged: {parsed.reason}", self.name
            )
        with self._lock:
            self._parsed[path] = (mtime, parsed.value)
        return parsed


def _mtime(path: Path) -> datetime | None:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
    except OSError:
        return None
