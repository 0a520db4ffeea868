"""The desk's parameters: what a request may override, and nonsense refused with the field named, before
anything runs (a size above 100 % of capital, thresholds that do not rise, an unknown analyst)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from findesk.analytics.trading.params import DeskParams


def test_the_defaults_are_the_documented_ones() -> None:
    p = DeskParams()
    assert (p.decision.buy, p.decision.overweight, p.decision.underweight, p.decision.sell) == (
        0.9,
        0.3,
        -0.3,
        -0.9,
    )
    assert (p.plan.stop_atr, p.plan.target_atr, p.plan.risk_per_trade_pct, p.plan.max_position_pct) == (
        2,
        3,
        1,
        10,
    )
    assert p.plan.size_pct == {"BUY": 5.0, "OVERWEIGHT": 2.5, "HOLD": 0.0, "UNDERWEIGHT": 2.5, "SELL": 5.0}


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ({"plan": {"max_position_pct": 500}}, "max_position_pct"),
        ({"plan": {"size_pct": {"BUY": 300}}}, "size_pct"),
        ({"plan": {"size_pct": {"STRONG BUY": 5}}}, "size_pct"),
        ({"plan": {"stop_atr": 0}}, "stop_atr"),
        ({"plan": {"horizon_days": 0}}, "horizon_days"),
        ({"decision": {"buy": 0.1}}, "must rise"),
        ({"decision": {"weights": {"market": 1.0}}}, "weights"),
        ({"decision": {"weights": {"market": -1, "fundamentals": 1, "news": 1, "social": 1}}}, "weights"),
        ({"risk": {"weights": {"aggressive": 0, "conservative": 0, "neutral": 0}}}, "weights"),
        ({"stance": {"band": 0}}, "band"),
        ({"plan": {"leverage": 3}}, "leverage"),
    ],
)
def test_nonsense_is_refused_with_the_field_named(raw: dict[str, object], says: str) -> None:
    with pytest.raises(ValidationError) as caught:
        DeskParams.model_validate(raw)
    assert says in str(caught.value)
