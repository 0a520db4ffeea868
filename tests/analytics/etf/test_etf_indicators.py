"""The TA-Lib wrappers: same values as TA-Lib on a fund's bars, on the fund's own session axis.

A fund listed after the panel starts has leading NaN and a fund can miss a day: the wrappers must give
TA-Lib's values over the bars present, at the sessions they belong to, instead of NaN everywhere (what
TA-Lib returns once a NaN sits inside its window) or values shifted onto the wrong sessions.
"""

from __future__ import annotations

import numpy as np
import pytest
import talib

from findesk.analytics.etf import indicators


def _series(n: int, seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 100.0 * np.exp(np.cumsum(rng.normal(0.0, 0.01, n)))


def test_leading_nan_gives_talibs_values_on_the_funds_sessions() -> None:
    bars = _series(120)
    padded = np.concatenate([np.full(30, np.nan), bars])

    for ours, theirs in (
        (indicators.rsi(padded, 14), talib.RSI(bars, timeperiod=14)),
        (indicators.sma(padded, 50), talib.SMA(bars, timeperiod=50)),
    ):
        assert ours.shape == padded.shape
        assert np.isnan(ours[:30]).all()
        np.testing.assert_array_equal(ours[30:], theirs)
    assert indicators.last_value(indicators.rsi(padded, 14)) == pytest.approx(talib.RSI(bars, 14)[-1])


def test_a_missing_day_is_skipped_not_spread_through_the_window() -> None:
    bars = _series(80)
    holed = bars.copy()
    holed[60] = np.nan

    ours = indicators.rsi(holed, 14)
    expected = talib.RSI(np.delete(bars, 60), timeperiod=14)

    assert np.isnan(ours[60])
    assert ours[-1] == pytest.approx(expected[-1])
    assert np.isfinite(ours[61:]).all()  # TA-Lib on the raw array would give NaN from here on


def test_bollinger_and_atr_match_talib() -> None:
    close = _series(60, seed=3)
    high, low = close * 1.01, close * 0.99
    upper, middle, lower = indicators.bollinger(close, 20, 2.5)
    t_upper, t_middle, t_lower = talib.BBANDS(close, timeperiod=20, nbdevup=2.5, nbdevdn=2.5)

    np.testing.assert_allclose(upper[19:], t_upper[19:])
    np.testing.assert_allclose(middle[19:], t_middle[19:])
    np.testing.assert_allclose(lower[19:], t_lower[19:])
    # population standard deviation (ddof=0) of the last 20 closes
    assert upper[-1] - middle[-1] == pytest.approx(2.5 * np.std(close[-20:]), rel=1e-9)
    np.testing.assert_allclose(
        indicators.atr(high, low, close, 14)[14:], talib.ATR(high, low, close, timeperiod=14)[14:]
    )


def test_too_little_history_gives_none_not_an_error() -> None:
    short = np.concatenate([np.full(5, np.nan), _series(10)])

    assert indicators.last_value(indicators.rsi(short, 14)) is None
    assert indicators.last_value(indicators.bollinger(short, 20)[0]) is None
    assert indicators.last_value(indicators.atr(short, short, short, 14)) is None
    assert indicators.last_value(np.array([])) is None
