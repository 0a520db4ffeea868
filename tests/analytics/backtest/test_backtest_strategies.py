"""The five baselines: their rules on hand-made series, params, and decide() == targets()."""

from __future__ import annotations

import math

import numpy as np
import pytest
from backtest_synth import bars_of, random_panel

from findesk.analytics.backtest.history import History
from findesk.analytics.backtest.models import Bars
from findesk.analytics.backtest.strategies import STRATEGY_NAMES, make_strategy


def _series(close: list[float]) -> Bars:
    c = np.asarray(close, dtype=np.float64)
    days = np.busday_offset(np.datetime64("2024-01-02"), np.arange(len(c)), roll="forward")
    return Bars("S", days, c, c * 1.01, c * 0.99, c, np.ones(len(c)))


def test_the_five_baselines_are_known() -> None:
    assert set(STRATEGY_NAMES) == {"buy_hold", "macd", "kdj_rsi", "zmr", "sma"}


def test_sma_crossover_by_hand() -> None:
    bars = _series([10, 10, 10, 11, 12, 13, 12, 10, 8])
    s = make_strategy("sma", {"fast": 2, "slow": 3})
    # bar 4: SMA2 = 11.5 > SMA3 = 11 → long; bar 7: SMA2 = 11 < SMA3 = 11.667 → short (flat long-only)
    d4 = s.decide(History(bars, 4))
    assert d4.target == 1.0 and d4.reason == "sma: SMA2 11.5 above SMA3 11: long"
    d7 = s.decide(History(bars, 7))
    assert d7.target == -1.0 and "SMA2 11 below SMA3 11.67" in d7.reason
    assert s.decide(History(bars, 1)).target is None  # SMA3 not yet defined


def test_zmr_goes_long_below_minus_one_and_exits_at_the_mean() -> None:
    base = [100.0 + (0.5 if i % 2 else -0.5) for i in range(25)]
    close = [*base, 97.0, 98.0, 99.0, 100.5, 100.8]
    bars = _series(close)
    s = make_strategy("zmr")
    drop = s.decide(History(bars, 25))
    assert drop.target == 1.0 and "below -1: long" in drop.reason
    # The price climbs back; the first bar whose z is >= 0 after being below gives flat.
    targets = [s.decide(History(bars, t)).target for t in range(26, len(close))]
    first_flat = targets.index(0.0)
    assert all(t in (None, 1.0) for t in targets[:first_flat])
    zs = s.targets(bars.close, bars.high, bars.low)
    assert zs[0, 26 + first_flat] == 0.0


def test_kdj_rsi_exits_when_rsi_is_overbought() -> None:
    close = [100.0 * 1.01**i for i in range(40)]  # a steady climb: RSI 100
    d = make_strategy("kdj_rsi").decide(History(_series(close), 39))
    assert d.target == 0.0 and "RSI above 70" in d.reason and "RSI 100" in d.reason


def test_buy_hold_is_always_long() -> None:
    bars = _series([10.0, 9.0, 8.0])
    assert [make_strategy("buy_hold").decide(History(bars, t)).target for t in range(3)] == [1.0, 1.0, 1.0]


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("momentum", None, "unknown strategy 'momentum' (known: buy_hold, macd, kdj_rsi, zmr, sma)"),
        ("macd", {"fastt": 5}, "macd: unknown parameter(s) fastt (allowed: fast, signal, slow)"),
        ("sma", {"fast": 50, "slow": 20}, "fast (50) must be shorter than slow (20)"),
        ("sma", {"fast": 2.5}, "fast is a number of bars, a whole number from 2 to 1000"),
        ("zmr", {"entry": -1}, "entry must be a positive z-score"),
        ("zmr", {"window": math.nan}, "window must be finite"),
        ("kdj_rsi", {"overbought": 120}, "overbought must be between 50 and 100"),
        ("buy_hold", {"x": 1}, "allowed: none"),
    ],
)
def test_bad_names_and_params_say_what_is_wrong(
    name: str, params: dict[str, float] | None, message: str
) -> None:
    with pytest.raises(ValueError) as err:
        make_strategy(name, params)
    assert message in str(err.value)


def test_params_override_defaults() -> None:
    s = make_strategy("macd", {"fast": 5})
    assert s.params == {"fast": 5.0, "slow": 26.0, "signal": 9.0}
    assert s.warmup == 33


@pytest.mark.parametrize("name", STRATEGY_NAMES)
def test_decide_on_each_prefix_equals_the_vector_targets(name: str) -> None:
    panel = random_panel(3, 260, seed=7)
    s = make_strategy(name)
    _, _, h, lo, c = panel
    vec = s.targets(c, h, lo)
    for i in range(3):
        bars = bars_of(panel, i)
        for t in range(260):
            got = s.decide(History(bars, t)).target
            want = vec[i, t]
            assert (got is None and math.isnan(want)) or got == want, (i, t, got, want)
    assert np.isfinite(vec).sum() > 0


def test_targets_skip_missing_bars_as_if_the_day_did_not_exist() -> None:
    panel = random_panel(1, 200, seed=9)
    _, _, h, lo, c = panel
    s = make_strategy("macd")
    holed = c.copy()
    holed[0, :30] = np.nan  # listed later
    holed[0, 100] = np.nan  # a missing day
    have = np.isfinite(holed[0])
    got = s.targets(holed, h, lo)[0]
    alone = s.targets(c[:, have], h[:, have], lo[:, have])[0]
    assert np.array_equal(got[have], alone, equal_nan=True)
    assert np.isnan(got[~have]).all()
