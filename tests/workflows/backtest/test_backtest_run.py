"""Backtests as a user runs them: vectorized equals the event loop, a re-run is served from the cache,
a planted future price spike changes no earlier decision, and the desk never reads a later date."""

from __future__ import annotations

import gzip
from datetime import date
from pathlib import Path

import numpy as np
import pytest
from backtest_kit import TEN, backtest, open_tools, settings_for

from findesk.core.config import Settings
from findesk.tools.base import ToolContext
from findesk.workflows.backtest.audit import AuditedRouter
from findesk.workflows.backtest.models import BacktestReport

BASELINES = ["buy_hold", "macd", "kdj_rsi", "zmr", "sma"]
START, END = date(2024, 1, 2), date(2024, 6, 28)


def test_vectorized_equals_the_event_loop_on_ten_tickers(
    bt_settings: Settings, bt_tools: ToolContext
) -> None:
    common = dict(tickers=list(TEN), start=START, end=END, strategies=BASELINES, use_cache=False)
    loop = backtest(bt_settings, bt_tools, **common)
    fast = backtest(bt_settings, bt_tools, fast=True, **common)
    assert len(loop.rows) == len(fast.rows) == 50
    by = {(r.ticker, r.strategy): r for r in fast.rows}
    for row in loop.rows:
        twin = by[(row.ticker, row.strategy)]
        assert row.path == "event_loop" and twin.path == "vectorized"
        assert row.dates == twin.dates
        np.testing.assert_allclose(row.equity, twin.equity, rtol=1e-9, err_msg=f"{row.ticker} {row.strategy}")
        assert row.metrics.trades == twin.metrics.trades, (row.ticker, row.strategy)
    # the baselines differ from each other: the comparison is not of five copies of buy & hold
    assert len({round(r.metrics.cumulative_return_pct, 6) for r in loop.rows if r.ticker == "NVDA"}) == 5


def test_a_rerun_is_served_from_the_cache_and_no_cache_recomputes(
    bt_settings: Settings, bt_tools: ToolContext
) -> None:
    common = dict(tickers=["AAPL", "JPM"], start=START, end=END, strategies=["macd", "sma"], workers=2)
    first = backtest(bt_settings, bt_tools, **common)
    again = backtest(bt_settings, bt_tools, **common)
    assert first.cache_hits == 0 and again.cache_hits == 4
    assert all(r.timing.cached for r in again.rows)
    assert [r.metrics for r in again.rows] == [r.metrics for r in first.rows]
    fresh = backtest(bt_settings, bt_tools, use_cache=False, **common)
    assert fresh.cache_hits == 0 and not any(r.timing.cached for r in fresh.rows)
    other_costs = backtest(bt_settings, bt_tools, config={"costs": {"commission_bps": 20}}, **common)
    assert other_costs.cache_hits == 0  # another config is another question


def test_the_report_names_the_risk_free_proxy(bt_settings: Settings, bt_tools: ToolContext) -> None:
    report = backtest(bt_settings, bt_tools, tickers=["AAPL"], start=START, end=END, strategies=["sma"])
    assert "FEDFUNDS" in report.risk_free.source and 4.0 < report.risk_free.pct < 6.0
    assert any("DTB3" in w and "proxy" in w for w in report.warnings)
    assert report.config.risk_free_pct == report.risk_free.pct


SP500 = "prices/equities/sp500_daily_ohlcv_adj_2021-01-04_2025-12-30.csv.gz"
SPIKE = "2024-04-15"


def _planted(snapshot: Path, tmp: Path) -> Path:
    """A copy of the snapshot (symlinks) whose AAPL bar on SPIKE is tripled."""
    from planting_kit import mirror

    dst = tmp / "planted"
    dst.mkdir()
    mirror(snapshot, dst, {SP500})
    lines = gzip.decompress((snapshot / SP500).read_bytes()).decode().splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith(f"{SPIKE},AAPL,"):
            d, t, *values, volume = line.rstrip("\n").split(",")
            lines[i] = ",".join([d, t, *(str(float(v) * 3) for v in values), volume]) + "\n"
            break
    else:
        raise AssertionError("no AAPL bar to plant on")
    (dst / SP500).write_bytes(gzip.compress("".join(lines).encode(), compresslevel=1))
    return dst


def test_a_planted_future_spike_changes_no_decision_before_its_date(
    snapshot_dir: Path, tmp_path: Path, bt_settings: Settings, bt_tools: ToolContext
) -> None:
    planted = settings_for(_planted(snapshot_dir, tmp_path), tmp_path)
    common = dict(tickers=["AAPL"], start=START, end=END, strategies=BASELINES[1:], use_cache=False)
    real = backtest(bt_settings, bt_tools, **common)
    spiked: BacktestReport | None = None
    for tools in open_tools(planted):
        spiked = backtest(planted, tools, **common)
    assert spiked is not None
    spike = date.fromisoformat(SPIKE)
    changed_after = 0
    for a, b in zip(real.rows, spiked.rows, strict=True):
        before = [(s.session, s.target, s.reason) for s in a.log if s.session < spike]
        assert before == [(s.session, s.target, s.reason) for s in b.log if s.session < spike], a.strategy
        assert len(before) > 60
        changed_after += [s.reason for s in a.log] != [s.reason for s in b.log]
    assert changed_after >= 1  # the plant is real: some rule saw it once it was in the past


def test_the_desk_backtest_completes_deterministically_and_reads_nothing_later(
    bt_settings: Settings, bt_tools: ToolContext
) -> None:
    routers: list[AuditedRouter] = []

    async def keep(router: AuditedRouter, _day: date) -> None:
        routers.append(router)

    report = backtest(
        bt_settings,
        bt_tools,
        tickers=["NVDA"],
        start=date(2024, 5, 1),
        end=date(2024, 5, 14),
        strategies=["desk"],
        desk_hook=keep,
    )
    (row,) = report.rows
    assert row.strategy == "desk" and len(row.log) == len(routers) == 10
    assert row.timing.seconds_per_session > 0
    for router in routers:
        assert router.reads and not router.violations
        seen = [r.latest for r in router.reads if r.latest is not None]
        assert seen and max(seen) <= router.session
    assert all(s.reason.startswith("desk ") for s in row.log)
    assert any("memory" in w for w in report.warnings)
    # full sizing (the default): a long rating takes the whole account, like the baselines
    longs = [s for s in row.log if s.reason.startswith(("desk BUY", "desk OVERWEIGHT"))]
    assert longs and all(s.target == 1.0 for s in longs)
    held = [s for s in row.log[1:] if s.position > 0]
    assert held and all(s.position * s.close > 0.95 * s.equity for s in held)


@pytest.mark.parametrize(
    ("rating", "pct", "short", "sizing", "target"),
    [
        ("BUY", 4.75, False, "full", 1.0),
        ("OVERWEIGHT", 2.38, False, "desk", 0.0238),
        ("SELL", 4.75, False, "full", 0.0),
        ("UNDERWEIGHT", 2.0, True, "full", -1.0),
        ("SELL", 5.0, True, "desk", -0.05),
        ("HOLD", 0.0, False, "full", None),
        ("REVIEW", 0.0, True, "desk", None),
    ],
)
def test_a_rating_maps_to_a_target_by_the_sizing(
    rating: str, pct: float, short: bool, sizing: str, target: float | None
) -> None:
    from findesk.workflows.backtest.desk_strategy import target_of

    got = target_of(rating, pct, short, sizing)  # type: ignore[arg-type]
    assert got == (pytest.approx(target) if target is not None else None)


def test_a_desk_read_of_tomorrow_fails_the_backtest(bt_settings: Settings, bt_tools: ToolContext) -> None:
    from findesk.analytics.backtest.history import LookAheadError

    async def peek(router: AuditedRouter, day: date) -> None:
        await router.bars("NVDA", day, date(2024, 5, 2), as_of=date(2024, 5, 2))

    with pytest.raises(LookAheadError, match=r"router\.bars .*2024-05-02.*session 2024-05-01"):
        backtest(
            bt_settings,
            bt_tools,
            tickers=["NVDA"],
            start=date(2024, 5, 1),
            end=date(2024, 5, 3),
            strategies=["desk"],
            desk_hook=peek,
        )


def test_many_windows_run_in_one_go_and_each_equals_its_own_backtest(
    bt_settings: Settings, bt_tools: ToolContext
) -> None:
    w2023 = {"start": date(2023, 1, 3), "end": date(2023, 12, 29)}
    common = dict(tickers=["AAPL", "NVDA"], strategies=["macd", "sma"], use_cache=False)
    many = backtest(bt_settings, bt_tools, start=START, end=END, windows=[w2023], workers=2, **common)
    assert {(r.start, r.end) for r in many.rows} == {(START, END), (w2023["start"], w2023["end"])}
    assert len(many.rows) == 8
    alone = backtest(bt_settings, bt_tools, start=w2023["start"], end=w2023["end"], **common)
    by = {(r.ticker, r.strategy): r for r in many.rows if r.start == w2023["start"]}
    for row in alone.rows:
        twin = by[(row.ticker, row.strategy)]
        # its own warm-up and risk-free rate: the same numbers as a backtest of that window alone
        assert twin.equity == row.equity and twin.metrics == row.metrics, (row.ticker, row.strategy)
        assert twin.risk_free_pct == row.risk_free_pct != many.rows[-1].risk_free_pct
