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
  latest month-end on or before ``session`` (``market_cap_date``), never a later month-end.
  ``notes`` name the caveats of that session (a relabelled lagged scrape, a missing scrape day, how
  stale the caps are, where names and sectors come from).
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


@dataclass(frozen=True, eq=False)
class ListedSession:
    """Every US-listed stock's close, % change and volume on one session, as traded (unadjusted).

    Parallel arrays, one entry per symbol (alphabetical): ``close`` (USD as published),
    ``pct_change`` (percent, -3.3 means -3.3 %), ``volume`` (shares), ``market_cap_usd`` (USD at
    ``market_cap_date``); NaN where unknown. ``names``/``sectors``/``industries`` are Nasdaq's
    classification (not GICS), ``None`` where unknown."""

    session: date
    symbols: tuple[str, ...]
    exchanges: tuple[str, ...]  # NASDAQ, NYSE, AMEX
    close: Floats
    pct_change: Floats
    volume: Floats
    market_cap_usd: Floats
    names: tuple[str | None, ...]
    sectors: tuple[str | None, ...]
    industries: tuple[str | None, ...]
    source: Source
    market_cap_date: date | None = None  # the month-end the caps are from (None: no month-end yet)
    notes: tuple[str, ...] = field(default=())

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
