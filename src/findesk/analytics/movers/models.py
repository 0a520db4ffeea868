"""The movers analyzer's typed evidence: the gainers board, the payload handed to sandboxed code, and
the metrics that code computes.

Rules:
- Units: prices in USD (the gainers board as traded that evening; history as its source gives it, the
  ``adjusted`` flags say which), returns and ranges in percent (``2.5`` means 2.5 %), volumes in shares.
- A figure that could not be computed is ``None`` with the reason in ``notes``; never 0.
- ``MoverPayload`` is the only thing sandboxed code reads: unknown keys are refused (``extra="forbid"``),
  series are aligned, ascending, finite and positive, so a program never sees a shape it was not
  written for; it is validated before anything runs.
"""

from __future__ import annotations

import math
from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

NASDAQ_TIERS: tuple[str, ...] = ("NMS", "NGM", "NCM")  # Global Select, Global Market, Capital Market
MAX_SESSIONS = 260
METRIC_NAMES: tuple[str, ...] = (
    "total_return_pct",
    "annualized_volatility_pct",
    "volume_spike_ratio",
    "intraday_range_pct",
    "spy_return_pct",
    "relative_return_pct",
)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GainerFilters(_Model):
    """The screen applied before ranking (documented defaults; the config or a caller may change them)."""

    min_price: float = Field(5.0, ge=0.0, description="USD close that session; drops penny stocks")
    min_volume: int = Field(100_000, ge=0, description="shares traded that session")
    min_market_cap_usd: float | None = Field(
        300e6, ge=0.0, description="USD, latest month-end on or before the session; None: no floor"
    )
    top: int = Field(5, ge=1, le=50, description="gainers listed")


class GainerRow(_Model):
    rank: int  # 1 = the day's top gainer after the screen
    symbol: str
    name: str | None = None
    exchange: str  # the table's: NASDAQ
    exchange_code: str | None = None  # NMS / NGM / NCM (None: no directory for the session)
    close: float  # USD as traded
    pct_change: float  # percent, the table's own
    volume: int
    dollar_volume: float
    market_cap_usd: float | None = None
    sector: str | None = None  # Nasdaq's classification


class GainersBoard(_Model):
    session: date
    filters: GainerFilters
    universe: int  # rows in the table that session (every exchange)
    kept: int  # rows that pass every rule
    dropped: dict[str, int] = Field(default_factory=dict)  # first rule failed -> rows
    tier_basis: str  # how NASDAQ listings were told apart (a directory and its date, or the table's column)
    gainers: list[GainerRow] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)  # the source's standing caveats
    warnings: list[str] = Field(default_factory=list)  # what a reader must know about this list


class MoverPayload(_Model):
    """What a sandboxed program reads as ``payload.json``: one symbol's sessions and, when available,
    SPY's closes on the same sessions."""

    symbol: str = Field(pattern=r"^[A-Z][A-Z0-9.\-]{0,9}$")
    session: date  # the session analyzed (the last date)
    dates: list[date] = Field(min_length=2, max_length=MAX_SESSIONS)
    close: list[float]
    volume: list[float | None]
    open: list[float | None]
    high: list[float | None]
    low: list[float | None]
    spy_close: list[float] | None = None  # aligned with ``dates``; None: no SPY (the report says why)

    @model_validator(mode="after")
    def _aligned(self) -> MoverPayload:
        n = len(self.dates)
        series: dict[str, list[float] | list[float | None]] = {
            "close": self.close,
            "volume": self.volume,
            "open": self.open,
            "high": self.high,
            "low": self.low,
        }
        if self.spy_close is not None:
            series["spy_close"] = self.spy_close
        for name, values in series.items():
            if len(values) != n:
                raise ValueError(f"{name} has {len(values)} values for {n} dates")
        if any(b <= a for a, b in zip(self.dates, self.dates[1:], strict=False)):
            raise ValueError("dates must be strictly ascending")
        if self.dates[-1] != self.session:
            raise ValueError("the last date must be the session analyzed")
        for name in ("close", "spy_close"):
            values = getattr(self, name)
            if values is not None and any(not math.isfinite(v) or v <= 0 for v in values):
                raise ValueError(f"{name} must be finite and positive")
        for name in ("volume", "open", "high", "low"):
            if any(v is not None and (not math.isfinite(v) or v < 0) for v in getattr(self, name)):
                raise ValueError(f"{name} must be finite and not negative")
        return self


class MoverMetrics(_Model):
    """The analysis's figures (definitions in ``analytics.movers.metrics``)."""

    total_return_pct: float
    annualized_volatility_pct: float | None = None
    volume_spike_ratio: float | None = None
    intraday_range_pct: float | None = None
    spy_return_pct: float | None = None
    relative_return_pct: float | None = None  # percentage points: the symbol's return minus SPY's


Origin = Literal["reviewed", "model"]
