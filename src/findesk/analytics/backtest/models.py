"""The backtester's configuration, inputs and results.

Rules:
- ``Bars`` is one ticker's daily OHLCV on ascending sessions (numpy arrays, adjusted prices as the data
  layer serves them). Point in time is enforced by the engine's ``History`` view, not by trimming: a
  strategy can read nothing after the session it decides on.
- Orders are decided at a session's close and filled at the next session's open; commission and
  slippage are in basis points of the traded value (slippage moves the fill price against the order).
- A target is the wanted position as a fraction of equity (1 long, 0 flat, -1 short; ``None`` keeps the
  current position). Long-only unless ``allow_short``: a negative target then means flat.
- Returns, drawdowns and exposure are in percent; Sharpe is annualised from daily returns over the
  risk-free rate (``risk_free_pct``: percent a year; the report says which series gave it).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

Array = npt.NDArray[np.float64]
Side = Literal["buy", "sell"]


@dataclass(frozen=True, eq=False)
class Bars:
    """One ticker's daily bars: ``dates`` ascending (``datetime64[D]``), the rest float arrays of the
    same length. ``source`` cites where they came from."""

    ticker: str
    dates: npt.NDArray[np.datetime64]
    open: Array
    high: Array
    low: Array
    close: Array
    volume: Array
    source: str = ""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Costs(_Model):
    commission_bps: float = Field(1.0, ge=0.0, le=500.0, description="basis points of traded value")
    slippage_bps: float = Field(5.0, ge=0.0, le=500.0, description="basis points against the order")


class BacktestConfig(_Model):
    initial_cash: float = Field(100_000.0, gt=0.0, le=1e12)
    costs: Costs = Field(default_factory=Costs)
    allow_short: bool = False
    risk_free_pct: float = Field(0.0, ge=-5.0, le=25.0, description="percent a year, for Sharpe")


class Fill(_Model):
    session: date  # the session whose open filled it
    side: Side
    shares: float
    price: float  # the open, moved by slippage
    commission: float  # USD
    slippage: float  # USD


class SessionLog(_Model):
    session: date
    close: float
    target: float | None  # what the strategy decided at this close (None: keep)
    reason: str  # the rule that fired, in words with its figures
    position: float  # shares held at the close
    cash: float
    equity: float
    fill: Fill | None = None  # the fill at this session's open (from the previous decision)


class Metrics(_Model):
    sessions: int
    cumulative_return_pct: float
    annualized_return_pct: float  # compounded over sessions / 252
    volatility_pct: float | None = None  # annualised stdev of daily returns
    sharpe: float | None = None  # None when returns do not vary
    max_drawdown_pct: float  # <= 0
    trades: int  # fills
    turnover: float  # traded value / mean equity
    exposure_pct: float  # share of sessions with a position at the close
    final_equity: float


class BacktestResult(_Model):
    strategy: str
    params: dict[str, float] = Field(default_factory=dict)
    ticker: str
    start: date  # first session
    end: date  # last session
    config: BacktestConfig
    metrics: Metrics
    dates: list[date] = Field(default_factory=list)
    equity: list[float] = Field(default_factory=list)
    log: list[SessionLog] = Field(default_factory=list)  # event loop only; empty on the fast path
    fills: list[Fill] = Field(default_factory=list)  # every fill, on both paths
    warnings: list[str] = Field(default_factory=list)
