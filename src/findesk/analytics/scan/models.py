"""The market scanner's typed evidence: the boards each phase's tools build and its roles read.

Rules:
- Units: prices in USD as traded that session (the movers table is unadjusted), returns and changes in
  percent (``2.5`` means 2.5 %), volumes in shares, dollar volume and market cap in USD.
- A figure that could not be computed is ``None`` with the reason in ``warnings``; never 0.
- Every board names its ``session`` (the last session on or before the run's date that it used) and
  the ``sources`` it was read from, so each figure a role states traces to a tool result.
- Defined in analytics (the pure functions and the tools build them, and may not import agents);
  ``agents.roles.scan.models`` re-exports them, so every role reads one set of models.
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Window = Literal["1W", "1M", "3M", "YTD"]
WINDOWS: tuple[Window, ...] = ("1W", "1M", "3M", "YTD")
Topic = Literal["conflicts", "trade", "sanctions", "energy", "rates"]
TOPICS: tuple[Topic, ...] = ("conflicts", "trade", "sanctions", "energy", "rates")
Conviction = Literal["high", "medium", "low"]
Angle = Literal["momentum", "reversal", "catalyst", "relative-strength", "laggard-recovery", "defensive"]
Status = Literal["ok", "partial", "no_data"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --- phase 1: market movers -----------------------------------------------------------------------


class MoverFilters(_Model):
    """The screen applied before ranking (all documented defaults; a user may tighten them)."""

    min_price: float = Field(5.0, ge=0.0, description="USD; drops penny stocks")
    min_volume: int = Field(100_000, ge=0, description="shares that session")
    min_market_cap_usd: float | None = Field(
        300e6, ge=0.0, description="USD, latest month-end on or before the session; None: no floor"
    )
    drop_derivative_listings: bool = Field(
        True, description="drop warrants, units and rights (symbol suffixes W/U/R and name words)"
    )
    top: int = Field(10, ge=1, le=50, description="rows per list")


class MoverRow(_Model):
    symbol: str
    name: str | None = None
    exchange: str  # the table's: NASDAQ / NYSE / AMEX
    close: float  # USD, as traded that session
    pct_change: float  # percent, the screener's
    volume: int
    dollar_volume: float  # close × volume, USD
    market_cap_usd: float | None = None  # latest month-end on or before the session
    sector: str | None = None  # the listing directory's (Nasdaq's, not GICS)
    industry: str | None = None


class MoversBoard(_Model):
    session: date
    filters: MoverFilters
    universe: int  # rows in the table that session
    kept: int  # rows passing the filters
    dropped: dict[str, int] = Field(default_factory=dict)  # reason -> rows dropped ("price", "warrant", ...)
    gainers: list[MoverRow] = Field(default_factory=list)
    losers: list[MoverRow] = Field(default_factory=list)
    most_active: list[MoverRow] = Field(default_factory=list)  # by dollar volume
    sources: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


# --- phase 1: sector performance ------------------------------------------------------------------


class FundPerf(_Model):
    ticker: str  # XLK, SPY, ...
    name: str  # "Technology", "S&P 500"
    kind: Literal["sector", "index"]
    close: float | None = None  # adjusted close at the session
    returns: dict[Window, float | None] = Field(default_factory=dict)  # percent
    rank_1m: int | None = None  # 1 = best sector over 1M (sectors only)


class SectorBoard(_Model):
    session: date
    sectors: list[FundPerf] = Field(default_factory=list)  # the 11 Select Sector SPDRs
    indexes: list[FundPerf] = Field(default_factory=list)  # SPY, QQQ, DIA, IWM
    leaders: list[str] = Field(default_factory=list)  # sector tickers, best first (by 1M, then 3M)
    laggards: list[str] = Field(default_factory=list)  # worst first
    sources: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


# --- phase 1: geopolitical and macro topics -------------------------------------------------------


class TopicHeadline(_Model):
    title: str
    published: date
    source: str  # the citation of the article (publisher / URL)
    tone: float = Field(0.0, ge=-1.0, le=1.0)  # word-list tone of the headline


class TopicBrief(_Model):
    topic: Topic
    articles: int  # found in the window
    tone: float | None = Field(None, ge=-1.0, le=1.0)  # mean headline tone; None without articles
    headlines: list[TopicHeadline] = Field(default_factory=list)  # newest first, at most 5
    sectors_exposed: list[str] = Field(default_factory=list)  # sector ETFs the topic moves (documented map)


class GeoBoard(_Model):
    session: date
    since: date  # start of the news window
    topics: list[TopicBrief] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


# --- phase 2: industry deep dive ------------------------------------------------------------------


class StockPerf(_Model):
    ticker: str
    name: str | None = None
    sub_industry: str
    return_1m: float | None = None  # percent, adjusted closes
    return_3m: float | None = None


class SubIndustryPerf(_Model):
    sub_industry: str  # GICS sub-industry
    members: int  # constituents with prices over the window
    median_return_1m: float | None = None
    median_return_3m: float | None = None
    breadth_1m: float | None = None  # percent of members up over 1M
    best: StockPerf | None = None
    worst: StockPerf | None = None


class SectorDeepDive(_Model):
    sector: str  # GICS sector name, "Information Technology"
    etf: str  # its Select Sector SPDR
    etf_return_1m: float | None = None
    constituents: int  # S&P 500 members of the sector with prices
    sub_industries: list[SubIndustryPerf] = Field(default_factory=list)  # best median 1M first
    top_stocks: list[StockPerf] = Field(default_factory=list)  # best 1M first, at most 5
    bottom_stocks: list[StockPerf] = Field(default_factory=list)  # worst first, at most 5
    headlines: list[TopicHeadline] = Field(default_factory=list)  # sector news, newest first
    status: Status = "ok"
    warnings: list[str] = Field(default_factory=list)


class IndustryBoard(_Model):
    session: date
    constituents_list: date  # the S&P 500 constituents list used (latest on or before the session)
    sectors: list[SectorDeepDive] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


# --- phase 3: synthesis ---------------------------------------------------------------------------


class Theme(_Model):
    title: str
    conviction: Conviction
    evidence: list[str] = Field(default_factory=list)  # lines with their figures, each from a board


class Candidate(_Model):
    """One of the 8-10 stocks to investigate (never a recommendation to buy or sell)."""

    ticker: str
    sector: str
    rationale: str  # one or two sentences with the figures that put it on the list
    angle: Angle
    conviction: Conviction
    catalysts: list[str] = Field(default_factory=list)
    risks: list[str] = Field(default_factory=list)
