"""The fast path equals the event loop: same equity to 1e-9, same fills, for every baseline."""

from __future__ import annotations

import time
from datetime import date

import numpy as np
import pytest
from backtest_synth import bars_of, random_panel

from findesk.analytics.backtest.engine import run_event_loop
from findesk.analytics.backtest.models import BacktestConfig, BacktestResult, Costs
from findesk.analytics.backtest.strategies import STRATEGY_NAMES, make_strategy
from findesk.analytics.backtest.vectorized import run_vectorized

START, END = date(2021, 6, 1), date(2022, 6, 30)


def _same(a: BacktestResult, b: BacktestResult) -> None:
    assert a.dates == b.dates
    assert np.allclose(a.equity, b.equity, rtol=1e-9, atol=1e-9)
    assert [(f.session, f.side) for f in a.fills] == [(f.session, f.side) for f in b.fills]
    assert np.allclose([f.shares for f in a.fills], [f.shares for f in b.fills], rtol=1e-9)
    assert np.allclose([f.price for f in a.fills], [f.price for f in b.fills], rtol=1e-12)
    assert a.metrics.trades == b.metrics.trades
    assert a.metrics.exposure_pct == b.metrics.exposure_pct
    assert a.metrics.cumulative_return_pct == pytest.approx(b.metrics.cumulative_return_pct, abs=1e-7)


@pytest.mark.parametrize("allow_short", [False, True])
@pytest.mark.parametrize("name", STRATEGY_NAMES)
def test_vectorized_equals_event_loop_on_random_walks(name: str, allow_short: bool) -> None:
    panel = random_panel(6, 420, seed=42)
    dates, o, h, lo, c = panel
    tickers = [f"T{i}" for i in range(6)]
    cfg = BacktestConfig(costs=Costs(commission_bps=3.0, slippage_bps=7.0), allow_short=allow_short)
    s = make_strategy(name)
    fast = run_vectorized(tickers, dates, o, h, lo, c, s, cfg, START, END)
    assert set(fast) == set(tickers)
    trades = 0
    for i, t in enumerate(tickers):
        slow = run_event_loop(bars_of(panel, i, t), s, cfg, START, END)
        _same(slow, fast[t])
        assert fast[t].log == []
        trades += slow.metrics.trades
    assert trades >= 6  # every ticker traded at least once: the comparison is not vacuous


def test_gaps_and_late_listings_match_the_event_loop_on_the_tickers_own_bars() -> None:
    dates, o, h, lo, c = random_panel(3, 420, seed=8)
    c = c.copy()
    c[1, :200] = np.nan  # listed inside the warm-up / window
    c[2, 250] = np.nan  # one missing session in the window
    c[2, 251] = np.nan
    panel = (dates, o, h, lo, c)
    tickers = ["A", "B", "C"]
    cfg = BacktestConfig(allow_short=True)
    s = make_strategy("zmr")
    fast = run_vectorized(tickers, dates, o, h, lo, c, s, cfg, START, END)
    for i, t in enumerate(tickers):
        _same(run_event_loop(bars_of(panel, i, t), s, cfg, START, END), fast[t])
    assert any("2 session(s) of the panel without a bar" in w for w in fast["C"].warnings)


def test_tickers_without_bars_in_the_window_are_skipped_with_a_warning() -> None:
    dates, o, h, lo, c = random_panel(2, 420, seed=8)
    c = c.copy()
    c[1, 100:] = np.nan  # delisted before the window
    skipped: dict[str, str] = {}
    out = run_vectorized(
        ["A", "GONE"],
        dates,
        o,
        h,
        lo,
        c,
        make_strategy("sma"),
        BacktestConfig(),
        START,
        END,
        on_skip=skipped.__setitem__,
    )
    assert list(out) == ["A"]
    assert "GONE: no bar between 2021-06-01 and 2022-06-30" in skipped["GONE"]


def test_all_five_baselines_over_500_tickers_for_a_year_are_fast() -> None:
    dates, o, h, lo, c = random_panel(500, 252 + 80, seed=1)
    start, end = dates[80].astype(object), dates[-1].astype(object)
    tickers = [f"T{i}" for i in range(500)]
    t0 = time.perf_counter()
    for name in STRATEGY_NAMES:
        out = run_vectorized(tickers, dates, o, h, lo, c, make_strategy(name), BacktestConfig(), start, end)
        assert len(out) == 500 and out["T0"].metrics.sessions == 252
    # Target: under 5 s on 2 cores (measured ~0.8 s); a loose bound so a busy machine does not flake.
    assert time.perf_counter() - t0 < 10.0
