"""The sector ETF map and the stock-vs-ETF windows: every GICS sector has its SPDR, the Nasdaq directory's
names map to the same funds, windows are calendar offsets from the last session on or before the date
(YTD from the previous year's last close), and a window the data cannot reach is left out."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from findesk.analytics.trading.sector_etf import (
    GICS_SECTOR_ETF,
    months_before,
    relative_performance,
    sector_etf,
    window_start,
)


def test_every_gics_sector_maps_to_its_select_sector_spdr() -> None:
    assert len(GICS_SECTOR_ETF) == 11
    assert sector_etf("Information Technology") == "XLK"
    assert sector_etf("Communication Services") == "XLC"
    assert sector_etf("Real Estate") == "XLRE"
    assert sector_etf(" Financials ") == "XLF"


def test_nasdaq_directory_sector_names_map_to_the_same_funds_and_unknown_names_to_none() -> None:
    assert sector_etf("Technology") == "XLK"
    assert sector_etf("Finance") == "XLF"
    assert sector_etf("Basic Materials") == "XLB"
    assert sector_etf("Telecommunications") == "XLC"
    assert sector_etf("Miscellaneous") is None
    assert sector_etf("") is None and sector_etf(None) is None


def test_month_offsets_clamp_to_the_end_of_a_shorter_month() -> None:
    assert months_before(date(2024, 5, 31), 3) == date(2024, 2, 29)  # leap year
    assert months_before(date(2025, 8, 31), 6) == date(2025, 2, 28)
    assert months_before(date(2024, 1, 15), 1) == date(2023, 12, 15)
    assert window_start("1W", date(2024, 5, 10)) == date(2024, 5, 3)
    assert window_start("YTD", date(2024, 5, 10)) == date(2023, 12, 31)


def _weekdays(start: date, end: date) -> list[date]:
    out, d = [], start
    while d <= end:
        if d.weekday() < 5:
            out.append(d)
        d += timedelta(days=1)
    return out


def test_windows_end_at_the_last_session_and_start_at_the_last_close_on_or_before_the_offset() -> None:
    days = _weekdays(date(2023, 10, 2), date(2024, 5, 17))
    stock = [(d, 100.0 + i) for i, d in enumerate(days)]  # rises one unit a session
    etf = [(d, 50.0) for d in days]  # flat
    # 2024-05-11 is a Saturday: the windows end on Friday 2024-05-10; later bars are ignored
    rows = {r.window: r for r in relative_performance(stock, etf, date(2024, 5, 11))}
    assert set(rows) == {"1W", "1M", "3M", "6M", "YTD"}
    close = dict(stock)
    end = close[date(2024, 5, 10)]
    # 1M reaches back to 2024-04-10 (a Wednesday); YTD to 2023-12-29, the last weekday of 2023
    assert rows["1M"].start == date(2024, 4, 10)
    assert rows["1M"].stock_pct == pytest.approx((end / close[date(2024, 4, 10)] - 1) * 100)
    assert rows["YTD"].start == date(2023, 12, 29)
    assert rows["YTD"].stock_pct == pytest.approx((end / close[date(2023, 12, 29)] - 1) * 100)
    # 3M from 2024-02-10, a Saturday: the start close is Friday 2024-02-09
    assert rows["3M"].start == date(2024, 2, 9)
    for r in rows.values():
        assert r.etf_pct == 0.0 and r.alpha_pp == pytest.approx(r.stock_pct)


def test_a_window_the_history_does_not_reach_is_left_out_not_shortened() -> None:
    days = _weekdays(date(2024, 3, 1), date(2024, 5, 10))
    stock = [(d, 10.0) for d in days]
    etf = [(d, 20.0) for d in days]
    windows = [r.window for r in relative_performance(stock, etf, date(2024, 5, 10))]
    assert windows == ["1W", "1M"]  # 3M (2024-02-10), 6M and YTD precede the first bar
    assert relative_performance([], etf, date(2024, 5, 10)) == []
