"""Backtester speed (issue 20): sessions per second per strategy on the event loop and the vectorized
path, how time grows with tickers and years, and all five baselines over the whole S&P 500 panel.

Targets: the five baselines over the whole S&P 500 panel for one year in under 5 s on 2 cores on the
vectorized path; the event loop at >= 2,000 ticker-sessions per second for rule strategies.
Data: the offline snapshot's S&P 500 panel (``router.equity_panel``), loaded once, not timed.

    python bench/backtest.py [--tickers 1 10 50] [--years 1 2 4] [--end 2024-12-31]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from datetime import date, timedelta

import numpy as np

from findesk.analytics.backtest.engine import run_event_loop
from findesk.analytics.backtest.models import BacktestConfig
from findesk.analytics.backtest.strategies import STRATEGY_NAMES, make_strategy
from findesk.analytics.backtest.vectorized import run_vectorized
from findesk.core.config import Settings
from findesk.core.result import Err
from findesk.data.context import resolve_context
from findesk.data.registry import build_router
from findesk.workflows.backtest.loader import Panel, bars_from_panel, load_panel

CONFIG = BacktestConfig()
WARMUP_DAYS = 400  # calendar days of history before the first year (the longest baseline warm-up)


async def panel(end: date, years: int) -> Panel:
    settings = Settings()
    context = resolve_context(settings, mode="snapshot", as_of=end)
    if isinstance(context, Err):
        sys.exit(context.message())
    router = build_router(settings, context.value)
    if isinstance(router, Err):
        sys.exit(router.message())
    start = end - timedelta(days=365 * years)
    got = await load_panel(router.value, None, start, end, end, 300)
    await router.value.aclose()
    if isinstance(got, Err):
        sys.exit(got.message())
    return got.value


def _slice(p: Panel, rows: list[int]) -> Panel:
    return Panel(
        tuple(p.tickers[i] for i in rows),
        p.dates,
        p.open[rows],
        p.high[rows],
        p.low[rows],
        p.close[rows],
        p.source,
    )


def event_loop(p: Panel, strategy: str, start: date, end: date) -> tuple[float, int]:
    began, sessions = time.perf_counter(), 0
    for i in range(len(p.tickers)):
        bars = bars_from_panel(p, i)
        result = run_event_loop(bars, make_strategy(strategy), CONFIG, start, end)
        sessions += result.metrics.sessions
    return time.perf_counter() - began, sessions


def vectorized(p: Panel, strategy: str, start: date, end: date) -> tuple[float, int]:
    began = time.perf_counter()
    results = run_vectorized(
        list(p.tickers), p.dates, p.open, p.high, p.low, p.close, make_strategy(strategy), CONFIG, start, end
    )
    return time.perf_counter() - began, sum(r.metrics.sessions for r in results.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tickers", type=int, nargs="+", default=[1, 10, 50])
    parser.add_argument("--years", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--end", type=date.fromisoformat, default=date(2024, 12, 31))
    args = parser.parse_args()
    end = args.end
    full = asyncio.run(panel(end, max(args.years)))
    have = [i for i in range(len(full.tickers)) if np.isfinite(full.close[i]).all()]
    one_year = end - timedelta(days=365)
    print(f"panel: {len(full.tickers)} tickers × {len(full.dates)} sessions ({full.source})")

    print("\nper strategy, 50 tickers, 1 year (ticker-sessions per second)")
    print(f"{'strategy':10} {'event loop':>12} {'vectorized':>12}")
    fifty = _slice(full, have[:50])
    for name in STRATEGY_NAMES:
        t1, n1 = event_loop(fifty, name, one_year, end)
        t2, n2 = vectorized(fifty, name, one_year, end)
        print(f"{name:10} {n1 / t1:12,.0f} {n2 / t2:12,.0f}")

    print("\ngrowth, strategy sma: seconds (event loop / vectorized)")
    print("tickers " + "".join(f"{f'{y} y':>20}" for y in args.years))
    for n in args.tickers:
        cells = []
        sub = _slice(full, have[:n])
        for y in args.years:
            start = end - timedelta(days=365 * y)
            t1, _ = event_loop(sub, "sma", start, end)
            t2, _ = vectorized(sub, "sma", start, end)
            cells.append(f"{t1:9.3f} / {t2:7.3f}")
        print(f"{n:7} " + "".join(f"{c:>20}" for c in cells))

    print(f"\nall five baselines, whole panel ({len(full.tickers)} tickers), 1 year, vectorized")
    began, sessions = time.perf_counter(), 0
    for name in STRATEGY_NAMES:
        _, n = vectorized(full, name, one_year, end)
        sessions += n
    took = time.perf_counter() - began
    print(f"  {took:.2f} s for {sessions:,} ticker-sessions (target < 5 s): {'PASS' if took < 5 else 'FAIL'}")
    t1, n1 = event_loop(fifty, "macd", one_year, end)
    verdict = "PASS" if n1 / t1 >= 2000 else "FAIL"
    print(f"event loop macd: {n1 / t1:,.0f} ticker-sessions/s (target >= 2,000): {verdict}")


if __name__ == "__main__":
    main()
