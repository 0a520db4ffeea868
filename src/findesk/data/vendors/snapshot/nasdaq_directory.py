"""Nasdaq Trader symbol directories (``reference/nasdaqtrader/``): each listed symbol's Yahoo-style
listing code and ETF flag, by directory date.

Rules this module keeps:
- A directory is one date's files, the date taken from the file name: ``nasdaqtraded_<date>.txt``
  (every venue, with Listing Exchange and Market Category), else ``nasdaqlisted_<date>.txt`` and
  ``otherlisted_<date>.txt`` read together (Nasdaq listings with their Market Category; the other
  venues with their Exchange letter). A date with only one of the last two is incomplete and unused.
- Codes: a Nasdaq listing by its Market Category, Q -> NMS (Global Select), G -> NGM (Global Market),
  S -> NCM (Capital Market); any other venue by its listing exchange letter, N -> NYQ (NYSE),
  A -> ASE (NYSE American), P -> PCX (NYSE Arca), Z -> BTS (Cboe BZX), V -> IEX. A Nasdaq row
  without one of those tiers, or a venue letter Yahoo has no code for (M, NYSE Texas), has code None.
  ETF flag: Y -> True, N -> False, anything else None.
- Skipped: the header, the trailer line ("File Creation Time: ..."), blank lines and test issues
  (Test Issue = Y). Symbols are the file's own spelling (``BRK.A``, ``ABR$D``); when a date's two
  files both list a symbol, the first file read (nasdaqlisted) wins.
- ``on_or_before`` is point in time: the latest directory dated on or before the day, never a later
  one. Each file is parsed at most once per store (small: ~12k lines), under a lock.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from datetime import date

from findesk.data.vendors.snapshot.files import Lazy, SnapshotFiles

FOLDER = "reference/nasdaqtrader"
_FILE = re.compile(r"^(nasdaqtraded|nasdaqlisted|otherlisted)_(\d{4}-\d{2}-\d{2})\.txt$")
_TRAILER = "File Creation Time"
NASDAQ_TIERS: dict[str, str] = {"Q": "NMS", "G": "NGM", "S": "NCM"}  # Market Category -> code
VENUE_CODES: dict[str, str] = {"N": "NYQ", "A": "ASE", "P": "PCX", "Z": "BTS", "V": "IEX"}
_FLAG: dict[str, bool] = {"Y": True, "N": False}

Entry = tuple[str | None, bool | None]  # (Yahoo-style code, ETF flag)


@dataclass(frozen=True, slots=True)
class Directory:
    """One date's symbol directory: code and ETF flag by symbol."""

    day: date
    rels: tuple[str, ...]  # the snapshot-relative files read
    entries: dict[str, Entry]


def yahoo_code(venue: str, category: str) -> str | None:
    """The Yahoo-style listing code of a listing exchange letter and a Nasdaq Market Category."""
    if venue == "Q":
        return NASDAQ_TIERS.get(category)
    return VENUE_CODES.get(venue)


def parse_directory(text: str, kind: str) -> dict[str, Entry]:
    """Code and ETF flag by symbol of one pipe-delimited directory file (``kind``: nasdaqtraded,
    nasdaqlisted or otherlisted). A file without the columns its kind needs is ``ValueError``."""
    lines = text.splitlines()
    if not lines:
        raise ValueError(f"empty {kind} directory")
    header = [h.strip() for h in lines[0].split("|")]
    symbol_col = "ACT Symbol" if kind == "otherlisted" else "Symbol"
    venue_col = {"nasdaqtraded": "Listing Exchange", "otherlisted": "Exchange"}.get(kind)
    needed = [symbol_col, "ETF", "Test Issue"] + ([venue_col] if venue_col else ["Market Category"])
    missing = [c for c in needed if c not in header]
    if missing:
        raise ValueError(f"{kind} directory lacks the column(s) {', '.join(missing)}")
    at = {name: i for i, name in enumerate(header)}
    category_at = at.get("Market Category")
    out: dict[str, Entry] = {}
    for line in lines[1:]:
        if not line.strip() or line.startswith(_TRAILER):
            continue
        cells = line.split("|")
        if len(cells) < len(header):
            continue  # a cut-off line names no complete listing
        symbol = cells[at[symbol_col]].strip()
        if not symbol or cells[at["Test Issue"]].strip() == "Y":
            continue
        venue = cells[at[venue_col]].strip() if venue_col else "Q"
        category = cells[category_at].strip() if category_at is not None else ""
        out.setdefault(symbol, (yahoo_code(venue, category), _FLAG.get(cells[at["ETF"]].strip())))
    return out


class Directories:
    """The snapshot's symbol directories by date, each file parsed once."""

    def __init__(self, files: SnapshotFiles) -> None:
        self.files = files
        self._dated = Lazy(self._find)
        self._parsed: dict[date, Lazy[Directory]] = {}
        self._lock = threading.Lock()

    def days(self) -> list[date]:
        """The complete directories' dates, ascending."""
        return [day for day, _ in self._dated.get()]

    def on_or_before(self, day: date) -> Directory | None:
        """The latest complete directory dated on or before ``day`` (None: none is)."""
        dated = [(d, rels) for d, rels in self._dated.get() if d <= day]
        if not dated:
            return None
        found, rels = dated[-1]
        with self._lock:
            lazy = self._parsed.get(found)
            if lazy is None:
                lazy = Lazy(lambda: self._read(found, rels))
                self._parsed[found] = lazy
        return lazy.get()

    def _read(self, day: date, rels: tuple[str, ...]) -> Directory:
        entries: dict[str, Entry] = {}
        for rel in rels:
            kind = rel.rsplit("/", 1)[-1].split("_", 1)[0]
            parsed = parse_directory(self.files.path(rel).read_text(encoding="utf-8", errors="replace"), kind)
            for symbol, entry in parsed.items():
                entries.setdefault(symbol, entry)
        return Directory(day, rels, entries)

    def _find(self) -> list[tuple[date, tuple[str, ...]]]:
        by_day: dict[date, dict[str, str]] = {}
        for rel in self.files.glob(f"{FOLDER}/*.txt"):
            match = _FILE.match(rel.rsplit("/", 1)[-1])
            if match is None:
                continue
            try:
                day = date.fromisoformat(match.group(2))
            except ValueError:
                continue
            by_day.setdefault(day, {})[match.group(1)] = rel
        out: list[tuple[date, tuple[str, ...]]] = []
        for day in sorted(by_day):
            kinds = by_day[day]
            if "nasdaqtraded" in kinds:
                out.append((day, (kinds["nasdaqtraded"],)))
            elif "nasdaqlisted" in kinds and "otherlisted" in kinds:
                out.append((day, (kinds["nasdaqlisted"], kinds["otherlisted"])))
        return out
