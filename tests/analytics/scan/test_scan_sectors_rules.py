"""Sector returns on a synthetic panel: windows by bars, YTD from the prior year's last close, the
ranking and ``top_sectors``, and a fund without a bar on the session."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np

from findesk.analytics.scan.sectors import (
    INDEX_ETFS,
    SECTOR_SPDRS,
    sector_board,
    sector_etf,
    top_sectors,
    window_returns,
)
from findesk.data.models.base import Source
from findesk.data.models.funds import PricePanel


def _sessions(n: int, last: date) -> list[date]:
    days: list[date] = []
    d = last
    while len(days) < n:
        if d.weekday() < 5:
            days.append(d)
        d -= timedelta(days=1)
    return days[::-1]


def _panel(closes: dict[str, list[float]], days: list[date]) -> PricePanel:
    tickers = tuple(closes)
    m = np.array([closes[t] for t in tickers], dtype=float)
    nan = np.full_like(m, np.nan)
    return PricePanel(
        tickers=tickers,
        dates=np.array(days, dtype="datetime64[D]"),
        open=m,
        high=m,
        low=m,
        close=m,
        volume=nan,
        splits=nan,
        source=Source(vendor="test", ref="panel"),
    )


def test_window_returns_count_bars_and_ytd_uses_the_prior_years_last_close() -> None:
    days = _sessions(80, date(2025, 1, 31))
    closes = [100.0 + i for i in range(80)]
    close, r = window_returns(days, closes, days[-1])
    assert close == 179.0
    assert r["1W"] == round((179 / 174 - 1) * 100, 2)
    assert r["1M"] == round((179 / 158 - 1) * 100, 2)
    assert r["3M"] == round((179 / 116 - 1) * 100, 2)
    last_2024 = max(i for i, d in enumerate(days) if d.year == 2024)
    assert r["YTD"] == round((179 / closes[last_2024] - 1) * 100, 2)


def test_short_history_and_a_missing_session_bar_are_none_not_zero() -> None:
    days = _sessions(10, date(2025, 3, 14))
    assert window_returns(days, [1.0] * 10, days[-1])[1]["1M"] is None
    closes = [1.0] * 9 + [float("nan")]
    assert window_returns(days, closes, days[-1]) == (None, {"1W": None, "1M": None, "3M": None, "YTD": None})


def test_board_ranks_sectors_by_1m_then_3m_and_top_sectors_follows_it() -> None:
    days = _sessions(70, date(2025, 8, 29))
    growth = {t: 1.0 + 0.001 * i for i, t in enumerate(SECTOR_SPDRS)}  # XLY grows fastest, XLB slowest
    closes = {t: [100.0 * g**k for k in range(70)] for t, g in growth.items()}
    closes |= {t: [100.0] * 70 for t in INDEX_ETFS}
    closes["XLU"] = [100.0] * 69 + [float("nan")]  # no bar on the session
    board = sector_board(_panel(closes, days), sources=["test"])
    assert board is not None and board.session == days[-1]
    assert board.leaders == ["XLY", "XLV", "XLRE"]
    assert board.laggards == ["XLB", "XLC", "XLE"]
    assert top_sectors(board, 5) == ["XLY", "XLV", "XLRE", "XLP", "XLK"]
    xlu = next(f for f in board.sectors if f.ticker == "XLU")
    assert xlu.close is None and xlu.rank_1m is None and xlu.returns["1M"] is None
    assert any("XLU (Utilities) has no bar on 2025-08-29" in w for w in board.warnings)
    spy = next(f for f in board.indexes if f.ticker == "SPY")
    assert spy.returns["1M"] == 0.0 and spy.name == "S&P 500"


def test_sector_names_and_tickers_map_both_ways() -> None:
    assert sector_etf("xlk") == ("XLK", "Information Technology")
    assert sector_etf("health care") == ("XLV", "Health Care")
    assert sector_etf("Crypto") is None
