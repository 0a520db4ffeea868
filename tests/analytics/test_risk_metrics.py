"""Return and risk statistics on small series whose answers are known by hand."""

from __future__ import annotations

import math
from datetime import date, timedelta

import pytest

from findesk.analytics.risk_metrics import (
    Point,
    annualized_volatility_pct,
    changes,
    clean,
    correlation,
    latest_crossing,
    max_drawdown,
    paired,
    parse_condition,
    returns,
    rolling_correlation,
    sharpe_ratio,
    total_return_pct,
)

D0 = date(2025, 1, 1)


def series(values: list[float]) -> list[Point]:
    return [(D0 + timedelta(days=i), v) for i, v in enumerate(values)]


def test_max_drawdown_finds_the_deepest_fall_with_its_peak_and_trough() -> None:
    # 100 -> 120 (peak) -> 90 (-25 %) -> 130 (new peak) -> 117 (-10 %)
    dd = max_drawdown(series([100, 120, 90, 130, 117]))
    assert dd is not None
    assert dd.depth_pct == pytest.approx(-25.0)
    assert (dd.peak, dd.trough) == (D0 + timedelta(days=1), D0 + timedelta(days=2))


def test_max_drawdown_of_a_rising_series_is_zero_and_bad_input_is_none() -> None:
    dd = max_drawdown(series([1, 2, 3]))
    assert dd is not None and dd.depth_pct == 0.0
    assert max_drawdown(series([5])) is None
    assert max_drawdown(series([5, 0, 3])) is None  # a zero price is not a price


def test_returns_volatility_and_sharpe_on_a_known_series() -> None:
    points = series([100, 110, 99, 108.9])  # +10 %, -10 %, +10 %
    r = [x for _, x in returns(points)]
    assert r == pytest.approx([0.10, -0.10, 0.10])
    assert total_return_pct(points) == pytest.approx(8.9)
    sd = math.sqrt(sum((x - 1 / 30) ** 2 for x in r) / 2)
    assert annualized_volatility_pct(r) == pytest.approx(sd * math.sqrt(252) * 100)
    assert sharpe_ratio(r, 0.0) == pytest.approx((1 / 30) / sd * math.sqrt(252))
    # a 5 % risk-free rate lowers the daily excess return by 0.05 / 252
    assert sharpe_ratio(r, 5.0) == pytest.approx((1 / 30 - 0.05 / 252) / sd * math.sqrt(252))


def test_flat_or_short_series_give_none_not_a_number() -> None:
    assert sharpe_ratio([0.01, 0.01, 0.01], 0.0) is None
    assert annualized_volatility_pct([0.01]) is None
    assert total_return_pct(series([0, 5])) is None


def test_correlation_is_one_for_proportional_moves_and_none_when_too_short_or_flat() -> None:
    xs = [0.01, -0.02, 0.03, 0.0, 0.015, -0.01]
    assert correlation(xs, [2 * x for x in xs]) == pytest.approx(1.0)
    assert correlation(xs, [-x for x in xs]) == pytest.approx(-1.0)
    assert correlation(xs[:4], xs[:4]) is None  # fewer than MIN_POINTS
    assert correlation(xs, [0.0] * len(xs)) is None  # flat


def test_paired_keeps_common_dates_and_rolling_windows_are_dated_at_their_end() -> None:
    a = series([1, 2, 3, 4, 5, 6, 7, 8])
    b = [p for p in series([2, 4, 1, 8, 3, 12, 5, 16]) if p[0] != D0 + timedelta(days=3)]
    both = paired(a, b)
    assert [d for d, _, _ in both] == [d for d, _ in b]
    rolled = rolling_correlation([(d, float(i), float(i * i)) for i, (d, _, _) in enumerate(both)], 5)
    assert [d for d, _ in rolled] == [d for d, _, _ in both][4:]


def test_clean_drops_nan_and_infinite_values_and_sorts() -> None:
    assert clean([(D0 + timedelta(days=1), 2.0), (D0, float("nan")), (D0, 1.0), (D0, math.inf)]) == [
        (D0, 1.0),
        (D0 + timedelta(days=1), 2.0),
    ]
    moved = changes(series([4.5, 4.6, 4.4]))
    assert [d for d, _ in moved] == [D0 + timedelta(days=1), D0 + timedelta(days=2)]
    assert [x for _, x in moved] == pytest.approx([0.1, -0.2])


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("DGS10>4.5", ("DGS10", ">", 4.5)),
        (" dgs10 >= 4 ", ("DGS10", ">=", 4.0)),
        ("T10Y2Y<-0.25", ("T10Y2Y", "<", -0.25)),
    ],
)
def test_conditions_parse(text: str, parsed: tuple[str, str, float]) -> None:
    c = parse_condition(text)
    assert c is not None and (c.series, c.op, c.value) == parsed


@pytest.mark.parametrize(
    "text", ["DGS10 > 4.5; DROP TABLE", "DGS10>>4.5", "ten year above 4.5", "DGS10>", "", "X" * 41 + ">1"]
)
def test_malformed_conditions_are_refused(text: str) -> None:
    assert parse_condition(text) is None


def test_latest_crossing_is_the_start_of_the_most_recent_run_that_held() -> None:
    c = parse_condition("DGS10>4.5")
    assert c is not None
    points = series([4.6, 4.7, 4.4, 4.3, 4.55, 4.6, 4.2, 4.1])
    # runs that held: days 0-1 and 4-5; the latest began on day 4, even though it no longer holds
    assert latest_crossing(points, c, D0 + timedelta(days=7)) == D0 + timedelta(days=4)
    # looking only up to day 2, the latest run is the first one
    assert latest_crossing(points, c, D0 + timedelta(days=2)) == D0
    assert latest_crossing(series([4.0, 4.1]), c, D0 + timedelta(days=5)) is None
