"""Overfitting checks: PBO on noise, on pure selection luck, on a real edge; walk-forward; grids."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pytest
from backtest_synth import random_panel

from findesk.analytics.backtest.models import BacktestConfig
from findesk.analytics.backtest.overfit import grid, pbo_cscv, returns_matrix, walk_forward
from findesk.analytics.backtest.vectorized import run_vectorized


def test_pbo_is_near_zero_when_one_config_is_truly_better() -> None:
    r = np.random.default_rng(0).normal(0, 0.01, (1000, 20))
    r[:, 3] += 0.002  # a real daily edge of 20 bps
    res = pbo_cscv(r, labels=[f"c{k}" for k in range(20)])
    assert res.pbo < 0.05
    assert res.best_config == res.most_chosen == "c3"
    assert res.n_combinations == 12870 and res.sessions_used == 992
    assert res.best_out_of_sample_sharpe > 1.0


def test_pbo_is_near_one_when_the_winner_is_pure_selection_luck() -> None:
    # Noise configs with the same full-sample mean: whoever wins in sample must lose out of sample.
    r = np.random.default_rng(1).normal(0, 0.01, (1000, 20))
    r -= r.mean(axis=0)
    res = pbo_cscv(r)
    assert res.pbo > 0.9
    assert res.logits.median < 0
    assert res.best_in_sample_sharpe > 0 > res.best_out_of_sample_sharpe


def test_pbo_of_independent_noise_is_a_coin_flip_on_average() -> None:
    pbos = [pbo_cscv(np.random.default_rng(s).normal(0, 0.01, (600, 10)), splits=10).pbo for s in range(12)]
    assert 0.3 < float(np.mean(pbos)) < 0.75


def test_pbo_rejects_bad_shapes() -> None:
    with pytest.raises(ValueError, match="even number"):
        pbo_cscv(np.zeros((100, 3)), splits=7)
    with pytest.raises(ValueError, match="at least 2 configs"):
        pbo_cscv(np.zeros((100, 1)))


def test_walk_forward_picks_the_better_config_and_records_out_of_sample() -> None:
    rng = np.random.default_rng(2)
    r = rng.normal(0, 0.01, (300, 4))
    r[:, 2] += 0.003
    days = [date(2023, 1, 2) + timedelta(days=i) for i in range(300)]
    res = walk_forward(r, days, ["a", "b", "c", "d"], in_sample=100, out_of_sample=50)
    assert len(res.splits) == 4
    assert [s.best for s in res.splits] == ["c"] * 4
    assert res.splits[0].out_of_sample_start == days[100]
    stitched = r[100:, 2]
    assert res.out_of_sample_return_pct == pytest.approx((np.prod(1 + stitched) - 1) * 100)


def test_grid_skips_conflicts_and_rejects_unknown_params() -> None:
    strategies = grid("sma", {"fast": [10, 20, 50], "slow": [20, 50]})
    assert sorted((s.params["fast"], s.params["slow"]) for s in strategies) == [(10, 20), (10, 50), (20, 50)]
    with pytest.raises(ValueError, match="unknown parameter"):
        grid("sma", {"fats": [10]})
    with pytest.raises(ValueError, match="whole number"):
        grid("sma", {"fast": [10.5]})
    with pytest.raises(ValueError, match="no combination"):
        grid("sma", {"fast": [50], "slow": [20]})


def test_grid_backtests_feed_pbo() -> None:
    dates, o, h, lo, c = random_panel(1, 600, seed=4)
    start, end = date(2021, 5, 3), date(2023, 4, 28)
    results = [
        run_vectorized(["X"], dates, o, h, lo, c, s, BacktestConfig(), start, end)["X"]
        for s in grid("sma", {"fast": [5, 10, 20], "slow": [30, 50]})
    ]
    days, r, labels = returns_matrix(results)
    assert r.shape == (len(days), 6) and labels[0] == "sma(fast=5,slow=30)"
    res = pbo_cscv(r, splits=8, labels=labels)
    assert 0.0 <= res.pbo <= 1.0 and res.best_config in labels
