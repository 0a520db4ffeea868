"""Market data models: companies, quotes and daily bars.

Rules: every price carries its basis (``as_traded``: what printed that day; ``adjusted``: split- and
dividend-adjusted as downloaded, so levels differ from what traded; ``index``: an index level), and a
range names the sessions it really covers, so a reader never takes an adjusted level for a close.
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import Field

from findesk.data.models.base import DataModel, Source


class Company(DataModel):
    ticker: str
    cik: int | None = None
    name: str | None = None
    exchange: str | None = None
    sector: str | None = None
    industry: str | None = None
    is_etf: bool = False
    source: Source
    # what a reader must know about this identity at the date: a ticker that changed hands or was
    # re-registered under a new CIK, or that only one of the SEC ticker tables lists
    notes: list[str] = Field(default_factory=list)


PriceBasis = Literal["as_traded", "adjusted", "index"]


class PriceRange(DataModel):
    """Lowest and highest close over the 52 weeks up to a session (point in time)."""

    window_start: date  # the window asked for: sessions after ``end`` minus 52 weeks
    start: date  # the first session the data really covers in the window
    end: date  # the quote's session
    low: float
    low_date: date
    high: float
    high_date: date
    sessions: int
    basis: PriceBasis  # same basis as the quote's price, so the two levels compare
    complete: bool  # False when the data starts after ``window_start``
    split_adjusted: bool = False  # as-traded closes before a split in the window were rescaled
    source: Source
    notes: list[str] = Field(default_factory=list)


class Quote(DataModel):
    """The last session's quote at ``as_of``; ``basis`` says whether its levels are as traded."""

    symbol: str
    session_date: date  # the trading session the price belongs to (<= as_of)
    price: float
    previous_close: float | None = None
    change: float | None = None
    change_pct: float | None = None  # percent, e.g. 1.25 for +1.25 %
    open: float | None = None
    day_high: float | None = None
    day_low: float | None = None
    volume: int | None = None
    market_cap: float | None = None
    market_cap_date: date | None = None
    currency: str = "USD"
    delayed: bool = True  # end-of-day or delayed; never a real-time tick
    basis: PriceBasis = "as_traded"
    as_traded_from: date | None = None  # first day of as-traded data, when the quote is not as traded
    range_52w: PriceRange | None = None
    source: Source
    notes: list[str] = Field(default_factory=list)


class PriceBar(DataModel):
    date: date
    open: float | None
    high: float | None
    low: float | None
    close: float
    volume: int | None


class PriceBars(DataModel):
    symbol: str
    adjusted: bool  # split- and dividend-adjusted (compare returns, not levels, across sources)
    start: date
    end: date
    bars: list[PriceBar]
    source: Source
