"""The event loop: fills at the next open with costs, position rules, the audit, the benchmark line."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest
from backtest_synth import Scripted, bars_of, random_panel

from findesk.analytics.backtest.engine import buy_hold_curve, run_event_loop
from findesk.analytics.backtest.history import History, LookAheadError
from findesk.analytics.backtest.models import BacktestConfig, Bars, Costs
from findesk.analytics.backtest.strategies import STRATEGY_NAMES, Decision, make_strategy

D = [date(2024, 3, 4), date(2024, 3, 5), date(2024, 3, 6), date(2024, 3, 7), date(2024, 3, 8)]


def _bars() -> Bars:
    days = np.array(D, dtype="datetime64[D]")
    opens = np.array([100.0, 110.0, 120.0, 130.0, 140.0])
    closes = np.array([105.0, 115.0, 125.0, 135.0, 145.0])
    return Bars("HAND", days, opens, closes + 1, opens - 1, closes, np.full(5, 1e6))


CFG = BacktestConfig(initial_cash=10_000.0, costs=Costs(commission_bps=10.0, slippage_bps=20.0))


def test_fill_at_next_open_with_costs_as_computed_by_hand() -> None:
    # Buy all in at the first close, sell everything at the third close.
    res = run_event_loop(_bars(), Scripted({0: 1.0, 2: 0.0}), CFG, D[0], D[-1])
    log = res.log
    assert log[0].fill is None and log[0].position == 0.0 and log[0].equity == 10_000.0
    buy = log[1].fill
    assert buy is not None and buy.side == "buy" and buy.session == D[1]
    # Open 110 + 20 bps slippage = 110.22; shares so that shares × 110.22 × 1.001 spends the 10,000.
    assert buy.price == pytest.approx(110.22, abs=1e-12)
    shares = 10_000.0 / (110.22 * 1.001)  # 90.6358...
    assert buy.shares == pytest.approx(shares, rel=1e-12)
    assert buy.commission == pytest.approx(shares * 110.22 * 0.001, rel=1e-12)  # ≈ 9.99
    assert buy.slippage == pytest.approx(shares * 110.0 * 0.002, rel=1e-12)  # ≈ 19.94
    assert log[1].cash == pytest.approx(0.0, abs=1e-9)
    assert log[1].equity == pytest.approx(shares * 115.0, rel=1e-12)
    assert log[2].fill is None and log[2].target == 0.0
    sell = log[3].fill
    assert sell is not None and sell.side == "sell" and sell.session == D[3]
    assert sell.price == pytest.approx(130.0 * 0.998, rel=1e-12)  # 129.74
    final = shares * 129.74 * (1 - 0.001)
    assert log[3].position == 0.0
    assert log[3].cash == pytest.approx(final, rel=1e-12)
    assert res.metrics.final_equity == pytest.approx(final, rel=1e-12)
    assert res.metrics.trades == 2
    assert res.metrics.cumulative_return_pct == pytest.approx((final / 10_000 - 1) * 100, rel=1e-12)
    assert [f.session for f in res.fills] == [D[1], D[3]]


def test_last_decision_is_logged_never_filled() -> None:
    res = run_event_loop(_bars(), Scripted({4: 1.0}), CFG, D[0], D[-1])
    assert res.log[-1].target == 1.0
    assert res.metrics.trades == 0 and res.metrics.final_equity == 10_000.0
    assert res.metrics.sharpe is None  # a curve that never moves has no Sharpe


def test_same_target_again_places_no_order() -> None:
    res = run_event_loop(_bars(), Scripted({0: 1.0, 1: 1.0, 2: 1.0}), CFG, D[0], D[-1])
    assert res.metrics.trades == 1


def test_long_only_turns_a_short_into_flat_and_shorts_when_allowed() -> None:
    script = Scripted({0: -1.0})
    flat = run_event_loop(_bars(), script, CFG, D[0], D[-1])
    assert flat.metrics.trades == 0
    assert "[long-only: flat]" in flat.log[0].reason
    short_cfg = CFG.model_copy(update={"allow_short": True})
    short = run_event_loop(_bars(), Scripted({0: -1.0}), short_cfg, D[0], D[-1])
    fill = short.log[1].fill
    assert fill is not None and fill.side == "sell"
    assert short.log[1].position < 0
    # Short at 110 × 0.998 with the price rising to 145: the short loses money.
    assert short.metrics.final_equity < 10_000.0
    # After costs the position is worth minus the remaining equity at the open (−1 × equity).
    o = 110.0
    eq_after = short.log[1].cash + short.log[1].position * o
    assert short.log[1].position * o == pytest.approx(-eq_after, rel=1e-12)


@pytest.mark.parametrize("name", STRATEGY_NAMES)
def test_long_only_never_holds_a_negative_position(name: str) -> None:
    bars = bars_of(random_panel(1, 400, seed=11, drift=-0.001), 0)
    res = run_event_loop(bars, make_strategy(name), BacktestConfig(), date(2021, 4, 1), date(2022, 1, 3))
    assert all(s.position >= 0.0 for s in res.log)
    assert all(s.cash >= -1e-6 for s in res.log)
    assert res.metrics.max_drawdown_pct <= 0.0


def test_macd_goes_short_on_a_falling_series_when_allowed() -> None:
    bars = bars_of(random_panel(1, 300, seed=5, drift=-0.003), 0)
    cfg = BacktestConfig(allow_short=True)
    res = run_event_loop(bars, make_strategy("macd"), cfg, date(2021, 3, 1), date(2022, 1, 31))
    assert min(s.position for s in res.log) < 0.0
    assert any(s.target == -1.0 and "below" in s.reason for s in res.log)


class _Peeker:
    name = "peeker"
    params: dict[str, float] = {}  # noqa: RUF012 - protocol attribute
    warmup = 0

    def decide(self, h: History) -> Decision:
        nxt = h.session.replace(day=h.session.day + 1) if h.session.day < 28 else h.session
        return Decision(1.0 if h.close_on(nxt) > h.close[-1] else 0.0, "peeked at tomorrow")


def test_a_strategy_that_reads_tomorrows_close_is_stopped() -> None:
    with pytest.raises(LookAheadError) as err:
        run_event_loop(_bars(), _Peeker(), CFG, D[0], D[-1])
    assert "at the session of 2024-03-04 the strategy read 2024-03-05's close" in str(err.value)


@pytest.mark.parametrize("name", STRATEGY_NAMES)
def test_a_planted_future_spike_changes_no_earlier_decision(name: str) -> None:
    panel = random_panel(1, 300, seed=21)
    bars = bars_of(panel, 0)
    k = 200
    spiked = Bars(
        "T",
        bars.dates,
        np.where(np.arange(300) >= k, bars.open * 3, bars.open),
        np.where(np.arange(300) >= k, bars.high * 3, bars.high),
        bars.low,
        np.where(np.arange(300) >= k, bars.close * 3, bars.close),
        bars.volume,
    )
    start, end = date(2021, 4, 1), date(2022, 2, 25)
    a = run_event_loop(bars, make_strategy(name), BacktestConfig(), start, end)
    b = run_event_loop(spiked, make_strategy(name), BacktestConfig(), start, end)
    spike_day = bars.dates[k].astype(object)
    before = [i for i, s in enumerate(a.log) if s.session < spike_day]
    assert len(before) > 100
    for i in before:
        assert a.log[i].model_dump() == b.log[i].model_dump()
    # The spike is really in the data from its day on, and the indicator rules react to it.
    at = len(before)
    assert b.log[at].close == pytest.approx(3 * a.log[at].close)
    if name != "buy_hold":
        assert any(x.reason != y.reason for x, y in zip(a.log[at:], b.log[at:], strict=True))


def test_warm_up_shortfall_is_a_warning() -> None:
    bars = bars_of(random_panel(1, 100, seed=1), 0)
    res = run_event_loop(
        bars, make_strategy("sma"), BacktestConfig(), bars.dates[10].astype(object), date(2021, 6, 1)
    )
    assert any("only 10 bar(s) before" in w and "needs 49" in w for w in res.warnings)
    assert res.log[0].target is None and "warming up" in res.log[0].reason


def test_no_session_in_the_window_is_an_error() -> None:
    with pytest.raises(ValueError, match="no session between"):
        run_event_loop(_bars(), Scripted({}), CFG, date(2025, 1, 1), date(2025, 2, 1))


def test_buy_hold_curve_is_close_over_first_close() -> None:
    curve = buy_hold_curve(_bars(), D[1], D[3])
    assert curve == pytest.approx([1.0, 125.0 / 115.0, 135.0 / 115.0], rel=1e-15)
