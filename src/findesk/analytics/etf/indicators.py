"""Technical indicators of one fund's daily bars, as thin wrappers over TA-Lib.

Rules:
- Inputs are float64 arrays on the fund's session axis; NaN marks a session without a bar (before the
  fund listed, or a missing day). TA-Lib needs contiguous float64 arrays with no NaN inside its window,
  so each wrapper runs TA-Lib over the bars present only (leading NaN sliced off, a missing day
  skipped) and puts the values back on the input's axis: the output has the input's length, NaN where
  the input had no bar or the indicator has too few bars yet.
- Definitions are TA-Lib's own: SMA is the plain mean; RSI and ATR use Wilder's smoothing (seeded by
  the first period's average, so the value depends a little on where the history starts: with 100+
  bars of warm-up the difference is far below display precision); Bollinger bands are the SMA
  ± k population standard deviations (ddof=0) of the closes.
- ``last_value`` reads an indicator on the last session: ``None`` when it is NaN there.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import talib

Array = npt.NDArray[np.float64]


def _bars(*series: Array) -> npt.NDArray[np.bool_]:
    """Sessions on which every series has a value."""
    mask = np.ones(series[0].shape, dtype=bool)
    for values in series:
        mask &= np.isfinite(values)
    return mask


def _on_axis(mask: npt.NDArray[np.bool_], values: Array) -> Array:
    out = np.full(mask.shape, np.nan)
    out[mask] = values
    return out


def _dense(values: Array, mask: npt.NDArray[np.bool_]) -> Array:
    return np.ascontiguousarray(values[mask], dtype=np.float64)


def sma(close: Array, period: int) -> Array:
    mask = _bars(close)
    if mask.sum() < period:
        return np.full(close.shape, np.nan)
    return _on_axis(mask, talib.SMA(_dense(close, mask), timeperiod=period))


def rsi(close: Array, period: int = 14) -> Array:
    mask = _bars(close)
    if mask.sum() <= period:
        return np.full(close.shape, np.nan)
    return _on_axis(mask, talib.RSI(_dense(close, mask), timeperiod=period))


def bollinger(close: Array, period: int = 20, k: float = 2.0) -> tuple[Array, Array, Array]:
    """(upper, middle, lower) bands."""
    mask = _bars(close)
    if mask.sum() < period:
        empty = np.full(close.shape, np.nan)
        return empty, empty.copy(), empty.copy()
    upper, middle, lower = talib.BBANDS(_dense(close, mask), timeperiod=period, nbdevup=k, nbdevdn=k)
    return _on_axis(mask, upper), _on_axis(mask, middle), _on_axis(mask, lower)


def atr(high: Array, low: Array, close: Array, period: int = 14) -> Array:
    mask = _bars(high, low, close)
    if mask.sum() <= period:
        return np.full(close.shape, np.nan)
    values = talib.ATR(_dense(high, mask), _dense(low, mask), _dense(close, mask), timeperiod=period)
    return _on_axis(mask, values)


def last_value(values: Array) -> float | None:
    if not values.size:
        return None
    value = float(values[-1])
    return value if math.isfinite(value) else None
