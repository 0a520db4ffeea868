"""Metrics on a known curve, each formula by hand."""

from __future__ import annotations

import math
from datetime import date

import numpy as np
import pytest

from findesk.analytics.backtest.metrics import compute_metrics, sharpe
from findesk.analytics.backtest.models import Fill

DAYS = [date(2024, 1, d) for d in (2, 3, 4, 5)]
FILLS = [
    Fill(session=DAYS[1], side="buy", shares=1.0, price=100.0, commission=0.1, slippage=0.05),
    Fill(session=DAYS[3], side="sell", shares=1.0, price=120.0, commission=0.1, slippage=0.05),
]


def test_metrics_of_a_known_curve() -> None:
    equity = [100.0, 110.0, 99.0, 121.0]
    m = compute_metrics(DAYS, equity, FILLS, [0.0, 1.0, 1.0, 0.0], risk_free_pct=0.0)
    r = np.array([0.1, -0.1, 121 / 99 - 1])
    assert m.sessions == 4
    assert m.cumulative_return_pct == pytest.approx(21.0)
    assert m.annualized_return_pct == pytest.approx((1.21 ** (252 / 4) - 1) * 100)
    assert m.volatility_pct == pytest.approx(np.std(r, ddof=1) * math.sqrt(252) * 100)
    assert m.sharpe == pytest.approx(r.mean() / np.std(r, ddof=1) * math.sqrt(252))
    assert m.max_drawdown_pct == pytest.approx(-10.0)  # 110 → 99
    assert m.trades == 2
    assert m.turnover == pytest.approx((100.0 + 120.0) / 107.5)
    assert m.exposure_pct == 50.0
    assert m.final_equity == 121.0


def test_sharpe_subtracts_the_daily_risk_free_rate() -> None:
    r = np.array([0.01, -0.005, 0.003, 0.002])
    rf = (1.05) ** (1 / 252) - 1
    assert sharpe(r, 5.0) == pytest.approx((r - rf).mean() / np.std(r, ddof=1) * math.sqrt(252))
    assert sharpe(r, 5.0) < sharpe(r, 0.0)  # type: ignore[operator]


def test_a_flat_curve_has_no_sharpe_and_no_drawdown() -> None:
    m = compute_metrics(DAYS, [100.0] * 4, [], [0.0] * 4, risk_free_pct=4.0)
    assert m.sharpe is None
    assert m.max_drawdown_pct == 0.0 and m.exposure_pct == 0.0 and m.turnover == 0.0


def test_mismatched_lengths_are_an_error() -> None:
    with pytest.raises(ValueError, match="one equity and position per session"):
        compute_metrics(DAYS, [100.0, 101.0], [], [0.0, 0.0], 0.0)
