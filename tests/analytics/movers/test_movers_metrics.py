"""The movers metrics: numpy's definitions, the payload's walls and the check of a program's figures."""

from __future__ import annotations

import math
from datetime import date, timedelta

import numpy as np
import pytest
from pydantic import ValidationError

from findesk.analytics.movers.metrics import check, compute_metrics
from findesk.analytics.movers.models import MoverPayload

DAYS = [
    date(2025, 8, 18) + timedelta(days=i)
    for i in range(12)
    if (date(2025, 8, 18) + timedelta(days=i)).weekday() < 5
]


def payload(**update: object) -> MoverPayload:
    n = len(DAYS)
    base = {
        "symbol": "NEO",
        "session": DAYS[-1],
        "dates": DAYS,
        "close": [10 + i * 0.5 for i in range(n)],
        "volume": [1e6 + i * 1e4 for i in range(n - 1)] + [5e6],
        "open": [None] * n,
        "high": [None] * (n - 1) + [15.9],
        "low": [None] * (n - 1) + [14.1],
        "spy_close": [600 + i for i in range(n)],
    }
    return MoverPayload.model_validate({**base, **update})


def test_figures_follow_the_documented_definitions() -> None:
    p = payload()
    m = compute_metrics(p)
    c = np.array(p.close)
    r = c[1:] / c[:-1] - 1
    assert m.total_return_pct == pytest.approx((c[-1] / c[0] - 1) * 100)
    assert m.annualized_volatility_pct == pytest.approx(r.std(ddof=1) * math.sqrt(252) * 100)
    assert m.volume_spike_ratio == pytest.approx(5e6 / np.mean(p.volume[:-1]))
    assert m.intraday_range_pct == pytest.approx((15.9 - 14.1) / c[-1] * 100)
    assert p.spy_close is not None
    spy = (p.spy_close[-1] / p.spy_close[0] - 1) * 100
    assert m.relative_return_pct == pytest.approx(m.total_return_pct - spy)


def test_without_spy_or_high_low_those_figures_are_none_not_zero() -> None:
    m = compute_metrics(payload(spy_close=None, high=[None] * len(DAYS), low=[None] * len(DAYS)))
    assert m.spy_return_pct is None and m.relative_return_pct is None and m.intraday_range_pct is None


def test_the_payload_refuses_unknown_keys_and_misaligned_or_bad_series() -> None:
    with pytest.raises(ValidationError, match="extra"):
        payload(secret="x")
    with pytest.raises(ValidationError, match="values for"):
        payload(close=[1.0, 2.0])
    with pytest.raises(ValidationError, match="finite and positive"):
        payload(close=[float("nan")] * len(DAYS))
    with pytest.raises(ValidationError, match="session"):
        payload(session=DAYS[0])


def test_check_names_each_disagreeing_missing_or_extra_figure() -> None:
    m = compute_metrics(payload())
    good = m.model_dump()
    assert check(good, m) == []
    bad = {**good, "total_return_pct": good["total_return_pct"] + 1, "extra": 1.0}
    del bad["volume_spike_ratio"]
    problems = check(bad, m)
    assert any(p.startswith("total_return_pct") for p in problems)
    assert any(p.startswith("volume_spike_ratio") for p in problems)
    assert any("unexpected figures: extra" in p for p in problems)
    assert check({**good, "total_return_pct": True}, m)  # a boolean is not a figure


def test_a_split_like_jump_in_as_traded_closes_is_named() -> None:
    from findesk.data.models import PriceBar
    from findesk.tools.movers import _jumps

    bars = [
        PriceBar(date=d, open=None, high=None, low=None, close=c, volume=1)
        for d, c in zip(DAYS[:4], [2.0, 2.1, 21.0, 20.0], strict=True)
    ]
    found = _jumps(bars, "RSPL")
    assert len(found) == 1 and "+900%" in found[0] and "reverse split" in found[0]
    assert _jumps(bars[:2], "RSPL") == []
