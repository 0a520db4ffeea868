"""How an order becomes a fill, and what it does to cash and position. One rule, two spellings: the
scalar one the event loop uses and the array one the vectorized path uses, written op for op alike so
both give the same numbers.

Rules:
- An order is decided at a session's close and fills at the next session's open ``O``. Shares are
  fractional (no rounding to whole shares), on both paths.
- Target mapping: ``None`` keeps the position; a target is clipped to [-1, 1] (no leverage); long-only
  (``allow_short`` false) turns a negative target into 0 (flat). A mapped target equal to the current
  one places no order: positions are not rebalanced for price drift.
- Sizing: with equity at the open ``E = cash + position × O``, the trade ``d`` (shares, + buy, − sell)
  is sized so that, after paying its costs, the position is worth ``target`` × the remaining equity:
  ``d = (target × E − position × O) / (O × (1 + target × k))`` with ``k = (1+s)(1+c) − 1`` for a buy and
  ``k = (1−s)(1−c) − 1`` for a sell (``s``, ``c``: slippage and commission as fractions). Going all in
  from flat leaves cash at 0; a target of 0 sells exactly the position held.
- Fill price: ``O × (1+s)`` for a buy, ``O × (1−s)`` for a sell. Commission = ``|d|`` × fill price ×
  ``c``; slippage in USD = ``|d| × O × s``. Cash changes by ``−d × fill price − commission``.
"""

from __future__ import annotations

import numpy as np

from findesk.analytics.backtest.models import Array, BacktestConfig


def map_target(target: float | None, current: float, allow_short: bool) -> float | None:
    """The order a decision places: the new target, or ``None`` for no order."""
    if target is None:
        return None
    t = min(1.0, max(-1.0, target))
    if not allow_short and t < 0.0:
        t = 0.0
    return None if t == current else t


def map_targets(target: Array, current: Array, allow_short: bool) -> Array:
    """``map_target`` over arrays: NaN where no order."""
    t = np.clip(target, -1.0, 1.0)
    if not allow_short:
        t = np.where(t < 0.0, 0.0, t)
    return np.where(t == current, np.nan, t)


def rates(config: BacktestConfig) -> tuple[float, float]:
    """(slippage, commission) as fractions."""
    return config.costs.slippage_bps / 10_000.0, config.costs.commission_bps / 10_000.0


def trade(target: float, cash: float, position: float, open_: float, s: float, c: float) -> float:
    """Shares to trade (+ buy, − sell) to reach ``target`` at this open."""
    if target == 0.0:
        return -position
    equity = cash + position * open_
    gap = target * equity - position * open_
    k = (1.0 + s) * (1.0 + c) - 1.0 if gap > 0.0 else (1.0 - s) * (1.0 - c) - 1.0
    return gap / (open_ * (1.0 + target * k))


def trades(target: Array, cash: Array, position: Array, open_: Array, s: float, c: float) -> Array:
    """``trade`` over arrays (same operations in the same order)."""
    equity = cash + position * open_
    gap = target * equity - position * open_
    k = np.where(gap > 0.0, (1.0 + s) * (1.0 + c) - 1.0, (1.0 - s) * (1.0 - c) - 1.0)
    d = gap / (open_ * (1.0 + target * k))
    return np.where(target == 0.0, -position, d)


def fill_price(d: float, open_: float, s: float) -> float:
    return open_ * (1.0 + s) if d > 0.0 else open_ * (1.0 - s)
