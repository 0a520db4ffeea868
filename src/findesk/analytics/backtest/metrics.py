"""Performance metrics of one backtest's equity curve.

Formulas (``E_0 .. E_{n-1}``: equity at each session's close, ``n`` = sessions; ``r_i = E_i / E_{i-1} − 1``
the n − 1 daily returns; the first session's equity is the starting cash, as nothing fills on it):
- cumulative return % = (E_{n-1} / E_0 − 1) × 100.
- annualised return % = ((E_{n-1} / E_0)^(252 / n) − 1) × 100: compounded over n / 252 years (the
  models' stated convention; −100 when equity ended at or below zero).
- volatility % = sample standard deviation (ddof 1) of r × √252 × 100; ``None`` with fewer than 2 returns.
- Sharpe = mean(r − r_f) / std(r − r_f) × √252 with the daily risk-free rate
  r_f = (1 + risk_free_pct / 100)^(1/252) − 1; ``None`` with fewer than 2 returns or when the returns do
  not vary (std below 1e-12: a strategy that never traded).
- max drawdown % = min over i of (E_i / max_{j ≤ i} E_j − 1) × 100 (≤ 0).
- trades = number of fills; turnover = Σ |shares| × fill price over the fills / mean(E).
- exposure % = sessions with a non-zero position at the close / n × 100.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date

import numpy as np

from findesk.analytics.backtest.models import Fill, Metrics

SESSIONS_PER_YEAR = 252


def daily_risk_free(risk_free_pct: float) -> float:
    return float((1.0 + risk_free_pct / 100.0) ** (1.0 / SESSIONS_PER_YEAR) - 1.0)


def sharpe(returns: np.ndarray, risk_free_pct: float = 0.0) -> float | None:
    """Annualised Sharpe of daily returns (see the module rules); ``None`` when undefined."""
    r = np.asarray(returns, dtype=np.float64)
    if r.size < 2:
        return None
    excess = r - daily_risk_free(risk_free_pct)
    sd = float(np.std(excess, ddof=1))
    if not sd > 1e-12:
        return None
    return float(np.mean(excess)) / sd * math.sqrt(SESSIONS_PER_YEAR)


def compute_metrics(
    dates: Sequence[date],
    equity: Sequence[float] | np.ndarray,
    fills: Sequence[Fill],
    positions: Sequence[float] | np.ndarray,
    risk_free_pct: float,
) -> Metrics:
    e = np.asarray(equity, dtype=np.float64)
    n = len(e)
    if n == 0 or len(dates) != n or len(positions) != n:
        raise ValueError(f"metrics need one equity and position per session: {len(dates)} dates, {n} equity")
    if not e[0] > 0:
        raise ValueError(f"starting equity must be positive, got {e[0]}")
    growth = float(e[-1] / e[0])
    annual = (growth ** (SESSIONS_PER_YEAR / n) - 1.0) * 100.0 if growth > 0 else -100.0
    r = e[1:] / e[:-1] - 1.0 if n > 1 else np.empty(0)
    vol = float(np.std(r, ddof=1)) * math.sqrt(SESSIONS_PER_YEAR) * 100.0 if r.size >= 2 else None
    peaks = np.maximum.accumulate(e)
    drawdown = float(np.min(e / peaks - 1.0)) * 100.0
    traded = float(sum(abs(f.shares) * f.price for f in fills))
    mean_equity = float(np.mean(e))
    pos = np.asarray(positions, dtype=np.float64)
    return Metrics(
        sessions=n,
        cumulative_return_pct=(growth - 1.0) * 100.0,
        annualized_return_pct=annual,
        volatility_pct=vol,
        sharpe=sharpe(r, risk_free_pct),
        max_drawdown_pct=min(0.0, drawdown),
        trades=len(fills),
        turnover=traded / mean_equity if mean_equity > 0 else 0.0,
        exposure_pct=float(np.count_nonzero(pos)) / n * 100.0,
        final_equity=float(e[-1]),
    )
