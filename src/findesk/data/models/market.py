"""Market data models: companies, quotes and daily bars."""

from __future__ import annotations

from datetime import date

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


class Quote(DataModel):
    """The last session's quote at ``as_of``: as-traded (unadjusted) prices."""

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
