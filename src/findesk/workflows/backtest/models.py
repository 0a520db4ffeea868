"""The backtest command's request and report.

Rules:
- ``BacktestRequest`` is what a user asks: tickers, a window of sessions (``start`` … ``end``, both on or
  before the run's as-of date), strategies (``all`` = the five baselines), costs, shorting, cash,
  parameters, the fast path, a grid with walk-forward, workers and the cache switch.
- A ``BacktestRow`` is one (ticker, strategy): its ``metrics`` next to ``buy_hold`` (the same window's
  buy & hold under the same fills and costs), the equity curve with buy & hold's beside it, the
  per-session decision log (event loop only) and what the run cost in time.
- The report states the risk-free rate's source (``risk_free``) and every warning; nothing is silent.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from findesk.analytics.backtest.models import BacktestConfig, Metrics, SessionLog

Format = Literal["terminal", "json", "markdown", "html"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Window(_Model):
    """One more backtest window, beside the request's ``start … end``."""

    start: date
    end: date


MAX_WINDOWS = 40


class BacktestRequest(_Model):
    tickers: list[str] = Field(min_length=1)
    start: date
    end: date
    strategies: list[str] = Field(min_length=1)
    config: BacktestConfig = Field(default_factory=BacktestConfig)
    params: dict[str, dict[str, float]] = Field(default_factory=dict)  # per strategy
    fast: bool = False  # the vectorized path for rule strategies
    grid: dict[str, list[float]] | None = None  # one strategy's parameter grid
    walk_forward: bool = False
    workers: int = Field(1, ge=1, le=64)
    use_cache: bool = True
    mode: Literal["deterministic", "model", "auto"] = "deterministic"  # the desk's
    budget_usd: float | None = Field(None, gt=0)  # the desk's model budget over the whole backtest
    desk_sizing: Literal["full", "desk"] = "full"  # desk strategy: whole account, or the desk's own size
    windows: list[Window] = Field(default_factory=list, max_length=MAX_WINDOWS)  # more windows, same runs


class RiskFree(_Model):
    pct: float  # percent a year, the window's average
    source: str  # the series and how it was read, or why there is none
    warnings: list[str] = Field(default_factory=list)


class Timing(_Model):
    seconds: float
    sessions: int
    seconds_per_session: float
    cached: bool = False


class BacktestRow(_Model):
    ticker: str
    strategy: str
    params: dict[str, float] = Field(default_factory=dict)
    path: Literal["event_loop", "vectorized"] = "event_loop"
    start: date
    end: date
    metrics: Metrics
    buy_hold: Metrics
    dates: list[date] = Field(default_factory=list)
    equity: list[float] = Field(default_factory=list)
    buy_hold_equity: list[float] = Field(default_factory=list)
    log: list[SessionLog] = Field(default_factory=list)
    timing: Timing
    risk_free_pct: float | None = None  # the window's risk-free rate used for its Sharpe, percent a year
    warnings: list[str] = Field(default_factory=list)


class OverfitReport(_Model):
    """The grid search of one (ticker, strategy): the best in-sample result, walk-forward out of sample,
    and the probability of backtest overfitting (CSCV)."""

    ticker: str
    strategy: str
    grid_size: int
    best_in_sample: dict[str, Any]
    walk_forward: dict[str, Any] | None = None
    pbo: float | None = None
    detail: dict[str, Any] = Field(default_factory=dict)


class BacktestReport(_Model):
    as_of: date
    data_mode: str
    start: date
    end: date
    tickers: list[str]
    strategies: list[str]
    config: BacktestConfig
    risk_free: RiskFree
    rows: list[BacktestRow] = Field(default_factory=list)
    overfit: list[OverfitReport] = Field(default_factory=list)
    seconds: float = 0.0
    cache_hits: int = 0
    warnings: list[str] = Field(default_factory=list)
