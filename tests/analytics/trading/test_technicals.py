"""The market analyst's technicals on real NVDA bars at 2024-05-10: TA-Lib's figures agree with an
independent pandas computation, nothing after the run's date counts, short history gives None (never
0), and the documented signal rules score what a trader would expect."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import pytest

from findesk.analytics.trading.technicals import Technicals, missing_figures, technical_signals, technicals
from findesk.core.config import Settings
from findesk.data.models import PriceBar
from findesk.tools.base import ToolContext
from snapshot_kit import snapshot_tools

DAY = date(2024, 5, 10)


@pytest.fixture(scope="module")
def ctx(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ToolContext]:
    cache = tmp_path_factory.mktemp("technicals-cache")
    yield from snapshot_tools(Settings(snapshot_dir=snapshot_dir, cache_dir=cache, chains={}), DAY)


def _bars(ctx: ToolContext, symbol: str, start: date, end: date) -> list[PriceBar]:
    return asyncio.run(ctx.router.bars(symbol, start, end, end)).unwrap().bars


@pytest.fixture(scope="module")
def nvda(ctx: ToolContext) -> list[PriceBar]:
    return _bars(ctx, "NVDA", DAY - timedelta(days=420), DAY)


def _wilder(values: np.ndarray, period: int) -> float:
    """Wilder's smoothing of ``values`` (starting at index 0), seeded with the first window's mean, as
    TA-Lib does it; the last value."""
    average = float(values[:period].mean())
    for value in values[period:]:
        average = (average * (period - 1) + float(value)) / period
    return average


def test_indicators_match_an_independent_numpy_computation(nvda: list[PriceBar]) -> None:
    t = technicals(nvda, DAY)
    assert t is not None and t.session == DAY and t.sessions == len(nvda) >= 280
    close = np.array([b.close for b in nvda])
    high = np.array([b.high for b in nvda], dtype=float)
    low = np.array([b.low for b in nvda], dtype=float)
    volume = np.array([b.volume for b in nvda], dtype=float)
    assert t.close == pytest.approx(close[-1], abs=1e-4)
    assert t.sma_50 == pytest.approx(close[-50:].mean(), abs=1e-3)
    assert t.sma_200 == pytest.approx(close[-200:].mean(), abs=1e-3)
    # RSI(14): Wilder's average gain / loss of the close-to-close changes
    change = np.diff(close)
    gain, loss = _wilder(np.clip(change, 0, None), 14), _wilder(np.clip(-change, 0, None), 14)
    assert t.rsi_14 == pytest.approx(100 - 100 / (1 + gain / loss), abs=1e-3)
    # ATR(14): Wilder's average of the true range, from the second bar
    prev = close[:-1]
    true_range = np.maximum.reduce([high[1:] - low[1:], np.abs(high[1:] - prev), np.abs(low[1:] - prev)])
    atr = _wilder(true_range, 14)
    assert t.atr_14 == pytest.approx(atr, abs=1e-3)
    assert t.atr_pct == pytest.approx(atr / close[-1] * 100, abs=1e-3)
    # Bollinger(20, 2) with the population standard deviation; VWMA20; the 21-session return
    window = close[-20:]
    assert t.boll_upper == pytest.approx(window.mean() + 2 * window.std(ddof=0), abs=1e-3)
    assert t.boll_lower == pytest.approx(window.mean() - 2 * window.std(ddof=0), abs=1e-3)
    vwma = (close[-20:] * volume[-20:]).sum() / volume[-20:].sum()
    assert t.vwma_20 == pytest.approx(vwma, abs=1e-3)
    assert t.return_1m_pct == pytest.approx((close[-1] / close[-22] - 1) * 100, abs=1e-3)
    # OBV's 20-session change: the signed volume of the window as a share of its volume
    signed = np.sign(np.diff(close)[-20:]) * volume[-20:]
    assert t.obv_change_20d_pct == pytest.approx(signed.sum() / volume[-20:].sum() * 100, abs=1e-3)
    # MACD: EMA12 - EMA26 of the close; the histogram is the line minus its signal
    assert t.macd is not None and t.macd_signal is not None and t.macd_hist is not None
    assert t.macd_hist == pytest.approx(t.macd - t.macd_signal, abs=2e-4)
    assert missing_figures(t) == []


def test_bars_after_the_run_date_change_nothing(ctx: ToolContext, nvda: list[PriceBar]) -> None:
    later = _bars(ctx, "NVDA", DAY - timedelta(days=420), date(2024, 8, 30))
    assert later[-1].date > DAY  # the later bars are really there, and differ
    assert technicals(later, DAY) == technicals(nvda, DAY)
    assert technicals(later, date(2024, 8, 30)) != technicals(nvda, DAY)
    # a weekend run date reads the Friday session
    assert technicals(nvda, date(2024, 5, 12)) == technicals(nvda, DAY)


def test_short_history_leaves_figures_unknown_not_zero(nvda: list[PriceBar]) -> None:
    t = technicals(nvda[-30:], DAY)
    assert t is not None and t.sessions == 30
    assert t.sma_50 is None and t.sma_200 is None and t.macd is None
    assert t.rsi_14 is not None and t.boll_upper is not None and t.atr_14 is not None
    assert set(missing_figures(t)) == {"SMA50", "SMA200", "MACD"}
    ids = {s.id for s in technical_signals(t)}
    assert "market.trend" not in ids and "market.macd" not in ids and "market.rsi" in ids
    assert technicals([], DAY) is None
    assert technicals(nvda, date(2020, 1, 1)) is None  # no bar on or before the date


def _tech(**figures: float | None) -> Technicals:
    base: dict[str, object] = {"session": DAY, "close": 100.0, "sessions": 250}
    return Technicals.model_validate({**base, **figures})


def _scores(t: Technicals) -> dict[str, float]:
    return {s.id: s.score for s in technical_signals(t)}


def test_signal_rules_score_trend_momentum_and_stretch() -> None:
    up = _tech(sma_50=90.0, sma_200=80.0, close_vs_sma50_pct=11.11, close_vs_sma200_pct=25.0)
    down = _tech(sma_50=110.0, sma_200=120.0)
    mixed = _tech(sma_50=110.0, sma_200=80.0)
    assert _scores(up)["market.trend"] == 2.0 and _scores(down)["market.trend"] == -2.0
    assert _scores(mixed)["market.trend"] == 0.0
    assert "above SMA50 90.00 (+11.11%)" in technical_signals(up)[0].text
    assert _scores(_tech(rsi_14=75.0))["market.rsi"] == -1.0  # overbought
    assert _scores(_tech(rsi_14=25.0))["market.rsi"] == 1.0  # oversold
    assert _scores(_tech(rsi_14=60.0))["market.rsi"] == 0.5
    assert _scores(_tech(rsi_14=40.0))["market.rsi"] == -0.5
    assert _scores(_tech(macd=1.0, macd_signal=1.5, macd_hist=-0.5))["market.macd"] == -1.0
    stretched = _tech(boll_upper=98.0, boll_lower=90.0, boll_pct_b=1.25)
    assert _scores(stretched)["market.bollinger"] == -1.0
    assert _scores(_tech(obv_change_20d_pct=-35.0))["market.obv"] == -1.0
    assert _scores(_tech(vwma_20=95.0, close_vs_vwma_pct=5.26))["market.vwma"] == 1.0
    calm, wild = _tech(atr_14=2.0, atr_pct=2.0), _tech(atr_14=6.0, atr_pct=6.0)
    assert [(s.score, s.weight) for s in technical_signals(calm)] == [(0.0, 0.0)]
    assert [(s.score, s.weight) for s in technical_signals(wild)] == [(-0.5, 0.5)]
    assert all(s.analyst == "market" and s.id.startswith("market.") for s in technical_signals(up))
