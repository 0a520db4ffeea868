"""Strategies: what decides a target at each session's close, seeing only a ``History``.

Rules:
- A ``Decision`` is the wanted position as a fraction of equity (1 long, 0 flat, -1 short, ``None``
  keep) and the rule that fired, in words with its figures.
- A ``Strategy`` has a ``name``, its ``params`` and ``warmup`` (bars of history before the first
  session it needs for a first decision) and ``decide(History) -> Decision``. A ``VectorStrategy`` also
  gives ``targets(close, high, low)`` over tickers × sessions (NaN where no bar, NaN = keep) with the
  same decision at every session as ``decide``: both call the same causal rule function (``rules``),
  ``decide`` on the prefix the History shows, ``targets`` on each ticker's whole row of bars.
- ``make_strategy(name, params)`` builds a baseline; unknown names, unknown params and bad values raise
  ``ValueError`` saying which and what is allowed. The rules themselves are in ``rules``' docstring.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from findesk.analytics.backtest.history import History
from findesk.analytics.backtest.models import Array
from findesk.analytics.backtest.rules import RULES, Rule

STRATEGY_NAMES: tuple[str, ...] = tuple(RULES)
MAX_PERIOD = 1000


@dataclass
class Decision:
    target: float | None  # fraction of equity: 1 long, 0 flat, -1 short; None keeps the position
    reason: str


class Strategy(Protocol):
    name: str
    params: dict[str, float]
    warmup: int

    def decide(self, h: History) -> Decision: ...


class VectorStrategy(Strategy, Protocol):
    def targets(self, close: Array, high: Array, low: Array) -> Array: ...


@dataclass
class RuleStrategy:
    """A baseline rule bound to its params (see ``rules`` for each rule in words)."""

    name: str
    params: dict[str, float]
    warmup: int
    rule: Rule = field(repr=False)

    def decide(self, h: History) -> Decision:
        i = len(h) - 1
        sig = self.rule.series(h.close, h.high, h.low, self.params)
        raw = float(sig.target[i])
        return Decision(None if math.isnan(raw) else raw, self.rule.explain(sig, i, self.params))

    def targets(self, close: Array, high: Array, low: Array) -> Array:
        """Targets for tickers × sessions. Each ticker's rule runs on its own bars only (the sessions
        where its close is a number), exactly the bars its event loop would see."""
        close2, high2, low2 = (np.atleast_2d(np.asarray(a, dtype=np.float64)) for a in (close, high, low))
        out = np.full(close2.shape, np.nan)
        for i in range(close2.shape[0]):
            have = np.isfinite(close2[i])
            if not have.any():
                continue
            if have.all():
                out[i] = self.rule.series(close2[i], high2[i], low2[i], self.params).target
            else:
                sig = self.rule.series(close2[i][have], high2[i][have], low2[i][have], self.params)
                out[i, have] = sig.target
        return out


def check_params(rule: Rule, params: Mapping[str, float] | None, cross: bool = True) -> dict[str, float]:
    """The rule's params with ``params`` applied; ``ValueError`` naming any unknown or bad one (and,
    with ``cross``, a conflict between them such as fast >= slow)."""
    given = dict(params or {})
    unknown = sorted(set(given) - set(rule.defaults))
    if unknown:
        allowed = ", ".join(sorted(rule.defaults)) or "none"
        raise ValueError(f"{rule.name}: unknown parameter(s) {', '.join(unknown)} (allowed: {allowed})")
    merged = {**rule.defaults}
    for key, value in given.items():
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{rule.name}: {key} must be a number, got {value!r}") from None
        if not math.isfinite(v):
            raise ValueError(f"{rule.name}: {key} must be finite, got {value!r}")
        if key in rule.periods and (v != int(v) or not 2 <= v <= MAX_PERIOD):
            raise ValueError(
                f"{rule.name}: {key} is a number of bars, a whole number from 2 to {MAX_PERIOD}; "
                f"got {value!r}"
            )
        merged[key] = v
    problem = rule.check(merged) if cross else None
    if problem:
        raise ValueError(f"{rule.name}: {problem}")
    return merged


def make_strategy(name: str, params: Mapping[str, float] | None = None) -> RuleStrategy:
    """A baseline by name with its params overridden; ``ValueError`` on anything it cannot run."""
    rule = RULES.get(name)
    if rule is None:
        raise ValueError(f"unknown strategy {name!r} (known: {', '.join(STRATEGY_NAMES)})")
    merged = check_params(rule, params)
    return RuleStrategy(name=name, params=merged, warmup=rule.warmup(merged), rule=rule)


def label(strategy: Strategy) -> str:
    """``macd(fast=12,slow=26,signal=9)``: a strategy with its params, for grids and reports."""
    args = ",".join(f"{k}={v:g}" for k, v in sorted(strategy.params.items()))
    return f"{strategy.name}({args})"
