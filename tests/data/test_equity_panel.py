"""The S&P 500 panel as matrices through the router, on the real snapshot: sessions from ``start`` to
``as_of`` and none later, each ticker's closes equal to its daily bars (the same adjusted file), a
ticker without a bar in the window left out, NaN before a ticker's first bar, read-only views, and
a warm call cheap enough for the backtester's whole-panel path."""

from __future__ import annotations

import asyncio
import statistics
import time
from datetime import date
from pathlib import Path

import numpy as np
import pytest

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.models import PricePanel
from findesk.data.router import DataRouter
from findesk.data.vendors.base import Category
from findesk.data.vendors.snapshot import SnapshotVendor
from findesk.data.vendors.snapshot.price_tables import SP500

AS_OF = date(2024, 5, 10)
START = date(2024, 1, 1)


@pytest.fixture(scope="module")
def router(snapshot_dir: Path) -> DataRouter:
    vendor = SnapshotVendor(snapshot_dir)
    return DataRouter({Category.UNIVERSE: [vendor], Category.BARS: [vendor]})


def _panel(router: DataRouter, as_of: date, start: date) -> PricePanel:
    got = asyncio.run(router.equity_panel(as_of, start))
    assert isinstance(got, Ok), got
    return got.value


@pytest.fixture(scope="module")
def panel(router: DataRouter) -> PricePanel:
    return _panel(router, AS_OF, START)


def test_sessions_run_from_start_to_as_of_and_none_later(panel: PricePanel) -> None:
    assert str(panel.dates[0]) == "2024-01-02"  # the first session on or after 2024-01-01
    assert panel.last_date == AS_OF
    assert (panel.dates <= np.datetime64(AS_OF, "D")).all()
    assert list(panel.dates) == sorted(set(panel.dates.tolist()))
    assert panel.source.ref == SP500 and panel.adjusted
    assert "survivorship" in (panel.source.note or "")


def test_aapl_closes_equal_its_daily_bars(router: DataRouter, panel: PricePanel) -> None:
    bars = asyncio.run(router.bars("AAPL", START, AS_OF, AS_OF))
    assert isinstance(bars, Ok), bars
    row = panel.row("AAPL")
    assert row is not None
    assert [b.date for b in bars.value.bars] == [panel.day(c) for c in range(len(panel.dates))]
    for col, bar in enumerate(bars.value.bars):
        assert round(float(panel.close[row, col]), 6) == bar.close
        assert round(float(panel.open[row, col]), 6) == bar.open
        assert int(panel.volume[row, col]) == bar.volume
    assert bars.value.source.ref == SP500  # one file, one adjustment basis


def test_the_whole_index_is_there_with_share_classes_written_with_a_dash(panel: PricePanel) -> None:
    assert len(panel.tickers) == 501 and list(panel.tickers) == sorted(panel.tickers)
    assert {"AAPL", "MSFT", "NVDA", "JPM", "XOM", "BRK-B"} <= set(panel.tickers)
    for matrix in (panel.open, panel.high, panel.low, panel.close, panel.volume, panel.splits):
        assert matrix.shape == (len(panel.tickers), len(panel.dates))
    assert np.isnan(panel.splits).all()  # the S&P file has no split column: unknown, never 0


def test_a_ticker_without_a_bar_in_the_window_is_left_out(router: DataRouter, panel: PricePanel) -> None:
    early = _panel(router, date(2024, 3, 15), START)
    assert "GEV" not in early.tickers and "SOLV" not in early.tickers  # spun off in late March 2024
    assert len(early.tickers) == 499
    gev = panel.row("GEV")
    assert gev is not None
    first = int(np.flatnonzero(~np.isnan(panel.close[gev]))[0])
    assert panel.day(first) == date(2024, 3, 27)
    assert np.isnan(panel.close[gev, :first]).all()


def test_a_weekend_as_of_ends_on_the_friday_and_later_closes_stay_hidden(router: DataRouter) -> None:
    weekend = _panel(router, date(2024, 5, 12), START)
    assert weekend.last_date == AS_OF
    later = _panel(router, date(2024, 5, 20), START)
    assert later.last_date == date(2024, 5, 20)
    assert len(later.dates) == len(weekend.dates) + 6


def test_views_are_read_only(panel: PricePanel) -> None:
    with pytest.raises(ValueError, match="read-only"):
        panel.close[0, 0] = 1.0


def test_start_after_as_of_is_refused(router: DataRouter) -> None:
    got = asyncio.run(router.equity_panel(date(2024, 1, 5), date(2024, 2, 1)))
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT


def test_a_window_before_the_file_is_no_data(router: DataRouter) -> None:
    got = asyncio.run(router.equity_panel(date(2020, 12, 31), date(2020, 1, 1)))
    assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA
    assert "S&P 500 panel" in got.reason


def test_a_warm_year_is_fast(router: DataRouter, panel: PricePanel) -> None:
    timings = []
    for _ in range(5):
        started = time.perf_counter()
        year = _panel(router, date(2024, 12, 31), START)
        timings.append(time.perf_counter() - started)
    assert len(year.dates) == 252
    assert statistics.median(timings) < 0.05  # the target; ~0.5 ms measured
