"""The engine on the snapshot's real prices (AAPL, GOOGL, AMZN long history): the benchmark line is the
snapshot's own closes, and the fast path equals the event loop for every baseline."""

from __future__ import annotations

import csv
from datetime import date
from pathlib import Path

import numpy as np
import pytest

from findesk.analytics.backtest.engine import buy_hold_curve, run_event_loop
from findesk.analytics.backtest.models import BacktestConfig, Bars
from findesk.analytics.backtest.strategies import STRATEGY_NAMES, make_strategy
from findesk.analytics.backtest.vectorized import run_vectorized

LONG = "prices/equities/long_history"
TICKERS = ("AAPL", "GOOGL", "AMZN")


def _load(snapshot_dir: Path, ticker: str) -> Bars:
    with (snapshot_dir / LONG / f"{ticker}.csv").open() as fh:
        rows = [r for r in csv.DictReader(fh) if "2023-01-01" <= r["Date"] <= "2024-12-31"]
    col = {k: np.array([float(r[k]) for r in rows]) for k in ("Open", "High", "Low", "Close", "Volume")}
    days = np.array([r["Date"] for r in rows], dtype="datetime64[D]")
    return Bars(ticker, days, col["Open"], col["High"], col["Low"], col["Close"], col["Volume"], f"{LONG}")


@pytest.fixture(scope="module")
def real(snapshot_dir: Path) -> dict[str, Bars]:
    return {t: _load(snapshot_dir, t) for t in TICKERS}


def test_buy_hold_line_is_the_snapshots_own_closes(real: dict[str, Bars]) -> None:
    aapl = real["AAPL"]
    curve = buy_hold_curve(aapl, date(2024, 1, 2), date(2024, 3, 28))
    close = dict(zip(aapl.dates.astype(str).tolist(), aapl.close.tolist(), strict=True))
    assert len(curve) == 61  # the paper's window: 61 sessions
    assert curve[-1] == close["2024-03-28"] / close["2024-01-02"]
    assert -9.0 < (curve[-1] - 1) * 100 < -6.0  # AAPL fell about 7.6 % first to last close


@pytest.mark.parametrize("name", STRATEGY_NAMES)
def test_vectorized_equals_event_loop_on_real_prices(real: dict[str, Bars], name: str) -> None:
    days = real["AAPL"].dates
    for t in TICKERS:
        assert np.array_equal(real[t].dates, days)
    o, h, lo, c = (
        np.vstack([getattr(real[t], k) for t in TICKERS]) for k in ("open", "high", "low", "close")
    )
    cfg = BacktestConfig()
    s = make_strategy(name)
    start, end = date(2024, 1, 2), date(2024, 12, 31)
    fast = run_vectorized(list(TICKERS), days, o, h, lo, c, s, cfg, start, end)
    for t in TICKERS:
        slow = run_event_loop(real[t], s, cfg, start, end)
        assert slow.dates == fast[t].dates and len(slow.dates) == 252
        assert np.allclose(slow.equity, fast[t].equity, rtol=1e-9, atol=1e-9)
        assert [(f.session, f.side) for f in slow.fills] == [(f.session, f.side) for f in fast[t].fills]
        assert slow.warnings == []  # a year of warm-up bars covers every rule
