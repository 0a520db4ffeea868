"""Typed results of the weekly ETF analytics, with the design's field names and units.

Units (the design's): returns, alpha residuals, distances from moving averages, ATR and sigma are in
percent (``-3.2`` means -3.2 %); ``beta`` and ``volume_ratio`` are plain ratios; ``rsi_14`` is 0-100;
``bollinger_position`` is 0 at the lower band and 1 at the upper (outside the bands it leaves 0..1).
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Signal = Literal["OVERSOLD", "STRETCHED_LOW", "BREAKDOWN", "MARKET_MOVE", "NEUTRAL"]


class SectorAssignment(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    sector: str  # one sector or theme, e.g. "Technology", "Semiconductors", "Gold & Precious Metals"
    basis: Literal["override", "name", "category", "default"]  # which rule decided
    leveraged: bool = False  # a geared fund (2x, 3x, "Ultra")
    inverse: bool = False  # a short / bear / inverse fund


class EtfFeatures(BaseModel):
    """One fund's week, computed from the panel only up to the week's last session."""

    model_config = ConfigDict(extra="forbid")

    symbol: str
    name: str | None = None
    week_start: date  # the session whose close the week is measured from (the last before the week)
    week_end: date  # the week's last session
    sessions: int  # sessions of history up to week_end
    close: float
    pct_return: float  # %, week_start close -> week_end close
    spy_weekly_return: float  # %, the same week for SPY
    beta: float | None = None  # daily-return regression on SPY over the lookback ending at week_start
    r_squared: float | None = None
    alpha_residual: float | None = None  # %, pct_return - beta * spy_weekly_return
    sma_50: float | None = None
    sma_200: float | None = None
    price_vs_sma50_pct: float | None = None  # %, close / SMA50 - 1
    price_vs_sma200_pct: float | None = None
    rsi_14: float | None = None
    bollinger_position: float | None = None  # (close - lower) / (upper - lower), 20-day 2-sigma bands
    volume_ratio: float | None = None  # average daily volume this week / 20-day average before the week
    atr_pct: float | None = None  # ATR(14) / close, %
    sigma: float | None = None  # standard deviation of daily returns over the lookback, %
    move_sigmas: float | None = None  # pct_return / (sigma * sqrt(sessions in the week))
    avg_dollar_volume: float | None = None  # USD, 20 sessions to week_end
    flags: list[str] = Field(default_factory=list)  # data-quality findings ("bad_tick: …", "split: …")
    sector: str | None = None
    sector_basis: str | None = None
    leveraged: bool = False
    inverse: bool = False


class DataFlag(BaseModel):
    model_config = ConfigDict(extra="forbid")

    symbol: str
    reason: str  # e.g. "bad_tick: 2024-06-03 -64.1% then 2024-06-04 +184.0% (reversal)"


class EtfScreen(BaseModel):
    """The preparation step's output: the universe screened for one week."""

    model_config = ConfigDict(extra="forbid")

    week_start: date
    week_end: date
    universe: int  # funds in the panel with a bar on week_end
    spy: EtfFeatures
    excluded: dict[str, int] = Field(default_factory=dict)  # reason -> funds excluded for it
    data_flags: list[DataFlag] = Field(default_factory=list)  # caught, never ranked
    candidates: list[EtfFeatures] = Field(default_factory=list)  # by the config's rules, ranked
    series: dict[str, PriceSeries] = Field(default_factory=dict)  # each candidate's chart data
    watched: dict[str, float] = Field(default_factory=dict)  # asked-for funds' weekly return (%), any rules
    source: str  # where the prices came from (a snapshot path or vendor)
    warnings: list[str] = Field(default_factory=list)  # a source that failed (the fund profiles)


class PriceSeries(BaseModel):
    """A candidate's recent prices for its chart: closes with SMA50/200 and the Bollinger bands,
    aligned on ``dates`` (None where an average needs more history than there is)."""

    model_config = ConfigDict(extra="forbid")

    symbol: str
    dates: list[date]
    close: list[float]
    sma_50: list[float | None]
    sma_200: list[float | None]
    upper_band: list[float | None]
    lower_band: list[float | None]


EtfScreen.model_rebuild()
