"""Helpers for the backtest engine tests: seeded random-walk bars and a scripted strategy.

Rules: synthetic series are geometric random walks on business days with opens, highs and lows around
the close, seeded so every run sees the same numbers; a scripted strategy returns fixed targets by
session index so fills and costs can be checked by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from findesk.analytics.backtest.history import History
from findesk.analytics.backtest.models import Array, Bars
from findesk.analytics.backtest.strategies import Decision

Panel = tuple[np.ndarray, Array, Array, Array, Array]


def random_panel(tickers: int, sessions: int, seed: int, drift: float = 0.0) -> Panel:
    """dates, open, high, low, close (tickers × sessions) of seeded random walks."""
    rng = np.random.default_rng(seed)
    close = 100.0 * np.exp(np.cumsum(rng.normal(drift, 0.02, (tickers, sessions)), axis=1))
    open_ = close * np.exp(rng.normal(0.0, 0.006, (tickers, sessions)))
    high = np.maximum(open_, close) * (1.0 + rng.uniform(0.0, 0.01, (tickers, sessions)))
    low = np.minimum(open_, close) * (1.0 - rng.uniform(0.0, 0.01, (tickers, sessions)))
    dates = np.busday_offset(np.datetime64("2021-01-04"), np.arange(sessions), roll="forward")
    return dates, open_, high, low, close


def bars_of(panel: Panel, i: int, ticker: str = "T") -> Bars:
    dates, o, h, lo, c = panel
    have = np.isfinite(c[i])
    return Bars(
        ticker, dates[have], o[i][have], h[i][have], lo[i][have], c[i][have], np.ones(int(have.sum()))
    )


@dataclass
class Scripted:
    """Targets by session index; every other session keeps (None)."""

    script: dict[int, float]
    name: str = "scripted"
    params: dict[str, float] = field(default_factory=dict)
    warmup: int = 0
    seen: list[int] = field(default_factory=list)

    def decide(self, h: History) -> Decision:
        self.seen.append(h.t)
        target = self.script.get(h.t)
        return Decision(target, f"script at bar {h.t}: {target}")
