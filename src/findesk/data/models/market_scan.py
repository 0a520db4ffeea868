"""Whole-market views for the scanner and the backtester: one session of every listed stock, and the
S&P 500 constituents list.

Rules:
- ``ListedSession`` is the cross-section of the unadjusted all-listed-stocks table for one session: a
  frozen dataclass of parallel arrays (one entry per symbol, symbols in alphabetical order), like
  ``PricePanel``; ~6,600 rows are too many for per-row pydantic objects. Every array is read-only (it
  may be a view of a table shared by the whole process): copy before writing.
- Unknown is NaN (floats) or ``None`` (text), never 0 or "": the month-end market cap file writes 0
  where the screener had no cap, and that reads as unknown here.
- Point in time: ``session`` is never after the as-of date; ``market_cap_usd`` is the value of the
  latest month-end on or before ``session`` (``market_cap_date``), never a later month-end (a live
  list: the vendor's cap at the quote time, ``market_cap_date`` = ``session``).
  ``notes`` name the caveats of that session (a relabelled lagged scrape, a missing scrape day, how
  stale the caps are, where names and sectors come from).
- Listing tiers: ``exchange_codes`` holds each row's Yahoo-style listing code (``NASDAQ_CODES`` are
  Nasdaq's three tiers: NMS Global Select, NGM Global Market, NCM Capital Market; then NYQ NYSE, ASE
  NYSE American, PCX NYSE Arca, BTS Cboe BZX, IEX; a live vendor may send others) and ``etf_flags``
  the ETF flag, parallel to ``symbols`` with ``None`` where unknown, or both EMPTY when the session
  has no source for them (then only ``exchanges`` is known, without tiers: say so). The snapshot takes
  them from the Nasdaq Trader symbol directory dated on or before ``session`` (``directory_date``);
  a live vendor from its own quotes (``directory_date`` None). ``exchanges`` names the venue from the
  code (``EXCHANGE_NAMES``): NASDAQ, NYSE, AMEX (the table's own three), NYSE ARCA, CBOE, IEX.
- Whatever vendor answers, the shape is the same (field types, units, sort order), so one filter
  serves the live list and the recorded table; ``notes`` say how much of the market the rows cover.
- ``IndexConstituents`` is the latest S&P 500 constituents list dated on or before the as-of date;
  changes to the index between ``list_date`` and the as-of date are not in it (the source says so).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from functools import cached_property

import numpy as np
import numpy.typing as npt

from findesk.data.models.base import DataModel, Source

Floats = npt.NDArray[np.float64]

# Yahoo-style listing codes of Nasdaq's tiers (Nasdaq Trader Market Category Q / G / S)
NASDAQ_CODES = frozenset({"NMS", "NGM", "NCM"})
# Yahoo-style listing code -> the venue name ``exchanges`` uses (the all-listed table's NASDAQ/NYSE/AMEX)
EXCHANGE_NAMES: dict[str, str] = {
    "NMS": "NASDAQ",
    "NGM": "NASDAQ",
    "NCM": "NASDAQ",
    "NYQ": "NYSE",
    "ASE": "AMEX",
    "PCX": "NYSE ARCA",
    "BTS": "CBOE",
    "IEX": "IEX",
}


@dataclass(frozen=True, eq=False)
class ListedSession:
    """Every US-listed stock's close, % change and volume on one session, as traded (unadjusted).

    Parallel arrays, one entry per symbol (alphabetical): ``close`` (USD as published),
    ``pct_change`` (percent, -3.3 means -3.3 %), ``volume`` (shares), ``market_cap_usd`` (USD at
    ``market_cap_date``); NaN where unknown. ``names``/``sectors``/``industries`` are Nasdaq's
    classification (not GICS), ``None`` where unknown. ``exchange_codes`` (Yahoo-style: NMS, NGM,
    NCM, NYQ, ASE, PCX, BTS, IEX) and ``etf_flags`` are parallel to ``symbols`` (``None`` where
    unknown) or empty when no listing directory covers the session."""

    session: date
    symbols: tuple[str, ...]
    exchanges: tuple[str, ...]  # NASDAQ, NYSE, AMEX (a live list also NYSE ARCA, CBOE, IEX)
    close: Floats
    pct_change: Floats
    volume: Floats
    market_cap_usd: Floats
    names: tuple[str | None, ...]
    sectors: tuple[str | None, ...]
    industries: tuple[str | None, ...]
    source: Source
    market_cap_date: date | None = None  # caps' month-end (None: none yet; a live list: session)
    notes: tuple[str, ...] = field(default=())
    exchange_codes: tuple[str | None, ...] = ()  # per row, or () when no directory covers the session
    etf_flags: tuple[bool | None, ...] = ()  # per row, or () when no directory covers the session
    directory_date: date | None = None  # the Nasdaq Trader directory the codes come from

    def __post_init__(self) -> None:
        for name, values in (("exchange_codes", self.exchange_codes), ("etf_flags", self.etf_flags)):
            if values and len(values) != len(self.symbols):
                raise ValueError(f"{name} has {len(values)} entries for {len(self.symbols)} symbols")

    def __len__(self) -> int:
        return len(self.symbols)

    def row(self, symbol: str) -> int | None:
        """Position of ``symbol`` in the arrays, None when it has no row that session."""
        return self._rows.get(symbol)

    @cached_property
    def _rows(self) -> dict[str, int]:
        return {symbol: i for i, symbol in enumerate(self.symbols)}


class Constituent(DataModel):
    ticker: str  # as findesk writes it: BRK-B (the lists write BRK.B)
    name: str
    sector: str  # GICS Sector
    sub_industry: str  # GICS Sub-Industry
    date_added: date | None = None  # when it joined the index, per the list (None: not given)


class IndexConstituents(DataModel):
    index: str = "S&P 500"
    list_date: date  # the list used: the latest dated on or before the as-of date
    members: list[Constituent]  # in the list's order
    source: Source
