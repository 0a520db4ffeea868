"""The typed outputs of the weekly ETF analyst's roles, with the design's field names.

Rules:
- Units as in ``analytics.etf.models``: returns and alpha residuals in percent, beta a ratio.
- Every statement an agent makes is attributed (``by``) so the dashboard can say who said it.
- Evidence quality and flags are closed vocabularies (``Evidence``, ``Flag``): a model can never widen
  them, and the protocol sets them by code where its rules apply.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from findesk.analytics.etf.models import DataFlag, PriceSeries, Signal
from findesk.analytics.etf.protocol import Evidence, Flag

DriverType = Literal["transient", "persistent"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MarketContext(_Model):
    week_start: date
    week_end: date
    spy_weekly_return: float | None  # %; None only when the screen failed (never a made-up zero)
    spy_close: float | None
    spy_vs_sma50_pct: float | None = None
    regime: str  # "risk-on (SPY above its 50-day average)" / "risk-off (…below…)" / "unknown"
    vix_level: float | None = None
    vix_date: date | None = None
    yield_curve_10y2y: float | None = None  # percentage points (FRED T10Y2Y)
    yield_curve_date: date | None = None
    yield_curve_state: str | None = None  # "inverted" / "flat" / "normal"
    universe: int
    sources: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class SectorGroup(_Model):
    sector: str
    members: list[str]
    avg_return: float  # %
    avg_alpha_residual: float  # percentage points
    avg_beta: float | None = None
    interpretation: str
    by: str = "quant"


class SymbolProfile(_Model):
    symbol: str
    name: str | None = None
    sector: str
    pct_return: float
    spy_weekly_return: float
    beta: float | None = None
    alpha_residual: float | None = None
    r_squared: float | None = None
    close: float
    sma_50: float | None = None
    sma_200: float | None = None
    price_vs_sma50_pct: float | None = None
    price_vs_sma200_pct: float | None = None
    rsi_14: float | None = None
    bollinger_position: float | None = None
    volume_ratio: float | None = None
    atr_pct: float | None = None
    sigma: float | None = None
    move_sigmas: float | None = None
    avg_dollar_volume: float | None = None
    leveraged: bool = False
    inverse: bool = False
    signal: Signal
    note: str  # grounded only in the numbers above
    by: str = "quant"


class QuantReport(_Model):
    market_context: MarketContext
    sector_groups: dict[str, SectorGroup] = Field(default_factory=dict)
    symbol_profiles: dict[str, SymbolProfile] = Field(default_factory=dict)
    excluded: dict[str, int] = Field(default_factory=dict)
    data_flags: list[DataFlag] = Field(default_factory=list)
    price_source: str = ""
    series: dict[str, PriceSeries] = Field(default_factory=dict)  # each candidate's chart data
    watched: dict[str, float] = Field(default_factory=dict)  # last week's GREEN funds: this week's return (%)
    warnings: list[str] = Field(default_factory=list)


class NewsSource(_Model):
    id: str
    title: str
    publisher: str | None = None
    url: str | None = None
    published_at: datetime
    cite: str  # the URL, or the snapshot file it came from


class Driver(_Model):
    text: str = Field(max_length=400)
    type: DriverType
    sources: list[str] = Field(default_factory=list)  # NewsSource ids


class SectorNews(_Model):
    sector: str
    evidence: Evidence
    narrative: str = Field(max_length=1500)
    drivers: list[Driver] = Field(default_factory=list)
    sources: list[NewsSource] = Field(default_factory=list)
    searched: str = ""  # what was searched (tickers, terms, window) — so "none" is checkable
    effort: Literal["high", "normal"] = "normal"
    by: str = "news"


class MarketOverview(_Model):
    narrative: str = Field(max_length=1500)
    sources: list[NewsSource] = Field(default_factory=list)
    searched: str = ""
    by: str = "news"


class SectorView(_Model):
    sector: str
    flag: Flag
    reason: str = Field(max_length=600)
    narrative: str = Field(max_length=1500)
    by: str = "senior"


class SymbolView(_Model):
    symbol: str
    sector: str
    flag: Flag
    reason: str = Field(max_length=600)
    bullish: list[str] = Field(default_factory=list)
    bearish: list[str] = Field(default_factory=list)
    key_concern: str = Field("", max_length=400)
    sector_narrative: str = Field("", max_length=1500)  # the sector's narrative, the same for every member
    by: str = "senior"


class SeniorReview(_Model):
    sectors: dict[str, SectorView] = Field(default_factory=dict)
    symbols: dict[str, SymbolView] = Field(default_factory=dict)
    revision: int = 0  # 0 = first pass, 1 = after the managing director sent sectors back
    answered: list[str] = Field(default_factory=list)  # the objections this revision answers


class FlagAdjustment(_Model):
    symbol: str
    from_flag: Flag
    to_flag: Flag
    reason: str = Field(max_length=400)


class DirectorReview(_Model):
    quality_score: float = Field(ge=0, le=10)
    rationale: str = Field(max_length=1500)
    flag_adjustments: list[FlagAdjustment] = Field(default_factory=list)
    strongest: list[str] = Field(default_factory=list)  # symbols
    weakest: list[str] = Field(default_factory=list)
    blind_spots: list[str] = Field(default_factory=list)
    sector_concentration: str = ""
    executive_summary: str = Field(max_length=3000)
    data_constrained_note: str | None = None
    send_back: list[str] = Field(default_factory=list)  # sectors returned to the senior analyst
    objections: list[str] = Field(default_factory=list)
    revision: int = 0
    by: str = "director"
