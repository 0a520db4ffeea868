"""The five baseline rules of the TradingAgents paper, as causal signal series over one ticker's bars.

Each rule maps the bars ``0 .. n-1`` to one target per bar (1 long, 0 flat, -1 short — flat when the
backtest is long-only — NaN keep the current position). Every indicator is computed by a single causal
pass from the first bar (TA-Lib), so the target at bar ``t`` depends only on bars ``0 .. t``: the event
loop calls the rule on the prefix a ``History`` shows, the vectorized path on the whole row, and both
get the same number. The rules (copied into the README):

- ``buy_hold``: target 1 on every session: long from the first decision, never sells.
- ``macd`` (fast 12, slow 26, signal 9; TA-Lib MACD, EMAs seeded with the simple mean of their first
  values): long (1) while the MACD line is above its signal line, short (-1; flat when long-only) while
  below, keep when equal. Holding the side of the last crossover: the position changes exactly when the
  MACD crosses the signal line; at the first session it takes the side of the latest crossover.
- ``kdj_rsi`` (KDJ 9/3/3, RSI 14, overbought 70): RSV = (close − lowest low 9) / (highest high 9 −
  lowest low 9) × 100; K = ⅔·K₋₁ + ⅓·RSV, D = ⅔·D₋₁ + ⅓·K, J = 3K − 2D (TA-Lib STOCH with EMA(2·3−1)
  smoothing, i.e. weight ⅓, seeded with the mean of the first values instead of 50). Long (1) when K
  crosses above D (K > D today, K ≤ D yesterday) and RSI < 70; exit to flat (0) when K crosses below D
  (K < D today, K ≥ D yesterday) or RSI > 70; otherwise keep. Long-or-flat: never shorts.
- ``zmr`` (zero mean reversion, window 20, entry 1): z = (close − SMA20) / σ20 (population standard
  deviation of the same 20 closes). Long (1) when z < −1; short (-1; flat when long-only) when z > 1;
  flat (0) when z crosses zero (from below to ≥ 0, which closes a long, or from above to ≤ 0, which
  closes a short); otherwise keep. An entry signal wins over a crossing on the same bar.
- ``sma`` (fast 20, slow 50): long (1) while SMA20 > SMA50, short (-1; flat when long-only) while
  SMA20 < SMA50: the classic crossover, holding the side of the last cross.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import talib
from talib._ta_lib import MA_Type

from findesk.analytics.backtest.models import Array

Params = Mapping[str, float]


class Signals(NamedTuple):
    target: Array  # one per bar: 1, 0, -1 or NaN (keep)
    lines: dict[str, Array]  # the indicator values the reasons quote


def _c(a: Array) -> Array:
    """TA-Lib wants contiguous float64."""
    return np.ascontiguousarray(a, dtype=np.float64)


def _prev(a: Array) -> Array:
    out = np.empty_like(a)
    out[:1] = np.nan
    out[1:] = a[:-1]
    return out


def _side(fast: Array, slow: Array) -> Array:
    """1 where fast > slow, -1 where fast < slow, NaN where equal or not yet defined."""
    return np.where(fast > slow, 1.0, np.where(fast < slow, -1.0, np.nan))


def buy_hold_series(close: Array, high: Array, low: Array, p: Params) -> Signals:
    return Signals(np.ones(len(close)), {})


def macd_series(close: Array, high: Array, low: Array, p: Params) -> Signals:
    line, signal, _ = talib.MACD(
        _c(close),
        fastperiod=int(p["fast"]),
        slowperiod=int(p["slow"]),
        signalperiod=int(p["signal"]),
    )
    return Signals(_side(line, signal), {"macd": line, "signal": signal})


def sma_series(close: Array, high: Array, low: Array, p: Params) -> Signals:
    fast = talib.SMA(_c(close), timeperiod=int(p["fast"]))
    slow = talib.SMA(_c(close), timeperiod=int(p["slow"]))
    return Signals(_side(fast, slow), {"fast": fast, "slow": slow})


def kdj_rsi_series(close: Array, high: Array, low: Array, p: Params) -> Signals:
    k, d = talib.STOCH(
        _c(high),
        _c(low),
        _c(close),
        fastk_period=int(p["n"]),
        # An EMA of period 2m-1 has weight 2/(2m) = 1/m: the KDJ's SMA(x, m, 1) smoothing.
        slowk_period=2 * int(p["m1"]) - 1,
        slowk_matype=MA_Type.EMA,
        slowd_period=2 * int(p["m2"]) - 1,
        slowd_matype=MA_Type.EMA,
    )
    rsi = talib.RSI(_c(close), timeperiod=int(p["rsi"]))
    kp, dp = _prev(k), _prev(d)
    up = (k > d) & (kp <= dp)
    down = (k < d) & (kp >= dp)
    target = np.full(len(close), np.nan)
    target[up & (rsi < p["overbought"])] = 1.0
    target[down | (rsi > p["overbought"])] = 0.0
    return Signals(target, {"k": k, "d": d, "j": 3.0 * k - 2.0 * d, "rsi": rsi})


def zmr_series(close: Array, high: Array, low: Array, p: Params) -> Signals:
    c = _c(close)
    window = int(p["window"])
    mean = talib.SMA(c, timeperiod=window)
    sd = talib.STDDEV(c, timeperiod=window, nbdev=1.0)
    # TA-Lib's running sums leave ~1e-9 noise on a flat series: treat it as no dispersion, no z.
    flat = ~(sd > 1e-9 * np.abs(mean))
    z = np.where(flat, np.nan, (c - mean) / np.where(flat, 1.0, sd))
    zp = _prev(z)
    entry = p["entry"]
    target = np.full(len(close), np.nan)
    target[((zp < 0.0) & (z >= 0.0)) | ((zp > 0.0) & (z <= 0.0))] = 0.0
    target[z < -entry] = 1.0
    target[z > entry] = -1.0
    return Signals(target, {"z": z, "mean": mean, "sd": sd})


def _f(x: float) -> str:
    return f"{x:.4g}" if abs(x) < 1000 else f"{x:.2f}"


def _explain_buy_hold(s: Signals, i: int, p: Params) -> str:
    return "buy and hold: long from the first session, never sells"


def _explain_cross(
    label: str, fast: str, slow: str, names: Callable[[Params], tuple[str, str]]
) -> Callable[[Signals, int, Params], str]:
    def explain(s: Signals, i: int, p: Params) -> str:
        a, b = float(s.lines[fast][i]), float(s.lines[slow][i])
        if np.isnan(a) or np.isnan(b):
            return f"{label}: warming up, no value yet at bar {i + 1}"
        t = float(s.target[i])
        if t == 1.0:
            rel, act = "above", "long"
        elif t == -1.0:
            rel, act = "below", "short (flat when long-only)"
        else:
            rel, act = "equal to", "keep"
        fast_name, slow_name = names(p)
        return f"{label}: {fast_name} {_f(a)} {rel} {slow_name} {_f(b)}: {act}"

    return explain


def _explain_kdj(s: Signals, i: int, p: Params) -> str:
    k, d, j, rsi = (float(s.lines[x][i]) for x in ("k", "d", "j", "rsi"))
    if np.isnan(k) or np.isnan(rsi) or i == 0 or np.isnan(s.lines["k"][i - 1]):
        return f"kdj_rsi: warming up, no value yet at bar {i + 1}"
    figures = f"K {_f(k)}, D {_f(d)}, J {_f(j)}, RSI {_f(rsi)}"
    t = float(s.target[i])
    ob = _f(p["overbought"])
    if t == 1.0:
        return f"kdj_rsi: K crossed above D with RSI below {ob} ({figures}): long"
    if t == 0.0:
        why = f"RSI above {ob}" if rsi > p["overbought"] else "K crossed below D"
        return f"kdj_rsi: {why} ({figures}): flat"
    return f"kdj_rsi: no crossing ({figures}): keep"


def _explain_zmr(s: Signals, i: int, p: Params) -> str:
    z = float(s.lines["z"][i])
    if np.isnan(z):
        return f"zmr: warming up or no dispersion, no z-score at bar {i + 1}"
    w, e = int(p["window"]), _f(p["entry"])
    figures = (
        f"z {_f(z)} (close vs {w}-day mean {_f(float(s.lines['mean'][i]))}, sd {_f(float(s.lines['sd'][i]))})"
    )
    t = float(s.target[i])
    if t == 1.0:
        return f"zmr: {figures} below -{e}: long"
    if t == -1.0:
        return f"zmr: {figures} above {e}: short (flat when long-only)"
    if t == 0.0:
        return f"zmr: {figures} crossed zero: flat"
    return f"zmr: {figures}: keep"


@dataclass(frozen=True)
class Rule:
    """A baseline: its defaults, which params are whole periods, its checks and its functions."""

    name: str
    defaults: dict[str, float]
    periods: frozenset[str]  # whole numbers of bars, each in [2, 1000]
    series: Callable[[Array, Array, Array, Params], Signals]
    explain: Callable[[Signals, int, Params], str]
    warmup: Callable[[Params], int]  # bars before the first session for a first decision
    check: Callable[[Params], str | None] = lambda p: None  # cross-param problem, in words


def _fast_below_slow(p: Params) -> str | None:
    if p["fast"] >= p["slow"]:
        return f"fast ({p['fast']:g}) must be shorter than slow ({p['slow']:g})"
    return None


def _overbought_range(p: Params) -> str | None:
    if not 50.0 < p["overbought"] < 100.0:
        return f"overbought must be between 50 and 100, got {p['overbought']:g}"
    return None


def _entry_positive(p: Params) -> str | None:
    return None if p["entry"] > 0 else f"entry must be a positive z-score, got {p['entry']:g}"


RULES: dict[str, Rule] = {
    r.name: r
    for r in (
        Rule("buy_hold", {}, frozenset(), buy_hold_series, _explain_buy_hold, lambda p: 0),
        Rule(
            "macd",
            {"fast": 12.0, "slow": 26.0, "signal": 9.0},
            frozenset({"fast", "slow", "signal"}),
            macd_series,
            _explain_cross("macd", "macd", "signal", lambda p: ("MACD", "its signal line")),
            # TA-Lib lookback: (slow - 1) + (signal - 1)
            lambda p: int(p["slow"]) + int(p["signal"]) - 2,
            _fast_below_slow,
        ),
        Rule(
            "kdj_rsi",
            {"n": 9.0, "m1": 3.0, "m2": 3.0, "rsi": 14.0, "overbought": 70.0},
            frozenset({"n", "m1", "m2", "rsi"}),
            kdj_rsi_series,
            _explain_kdj,
            # STOCH lookback (n-1)+(2m1-2)+(2m2-2), +1 for yesterday's K/D; RSI lookback rsi
            lambda p: max(int(p["n"]) + 2 * int(p["m1"]) + 2 * int(p["m2"]) - 4, int(p["rsi"])),
            _overbought_range,
        ),
        Rule(
            "zmr",
            {"window": 20.0, "entry": 1.0},
            frozenset({"window"}),
            zmr_series,
            _explain_zmr,
            lambda p: int(p["window"]),  # lookback window-1, +1 for yesterday's z
            _entry_positive,
        ),
        Rule(
            "sma",
            {"fast": 20.0, "slow": 50.0},
            frozenset({"fast", "slow"}),
            sma_series,
            _explain_cross("sma", "fast", "slow", lambda p: (f"SMA{p['fast']:g}", f"SMA{p['slow']:g}")),
            lambda p: int(p["slow"]) - 1,
            _fast_below_slow,
        ),
    )
}
