"""The desk's scoring rules: debate turns, rating thresholds at their edges, the trader's ATR levels and
risk cap, the risk team's proposals and the risk manager's downgrade."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from findesk.agents.roles.trading.models import Signal
from findesk.analytics.trading.params import DecisionParams, DeskParams, PlanParams, RiskParams
from findesk.analytics.trading.scoring import (
    debate_turn,
    final_figures,
    manager_call,
    plan_figures,
    rating_for,
    risk_cap,
    risk_proposal,
)
from findesk.guardrails.number_trace import collect_numbers, untraced_numbers


def sig(sid: str, text: str, score: float, weight: float = 1.0) -> Signal:
    return Signal.model_validate(
        {"id": sid, "analyst": sid.split(".")[0], "text": text, "score": score, "weight": weight}
    )


SIGNALS = [
    sig("market.trend", "Close 898.78 is 18.50% above its 200-day average", 1.5),
    sig("market.rsi", "RSI(14) 71.20: overbought", -1.0),
    sig("market.volatility", "ATR 4.10% of the price", -0.5),
    sig("fundamentals.revenue_growth", "Revenue TTM +125.85% year on year", 2.0, 1.5),
    sig("fundamentals.valuation", "P/E 64.30, the highest of its 12 peers", -1.5),
    sig("fundamentals.debt", "Debt/equity 0.26", 0.0),
    sig("news.tone", "Company headlines net positive: 12 of 18", 0.5),
    sig("social.sentiment", "Stocktwits 64% bullish of 230 posts", 0.5, 0.5),
]


def debate(rounds: int = 2) -> list[tuple[str, tuple[str, ...], str | None, float, str]]:
    turns: list[tuple[str, tuple[str, ...], str | None, float, str]] = []
    for _ in range(rounds):
        for side in ("bull", "bear"):
            own = {c for s, cites, *_ in turns if s == side for c in cites}
            other = next((cites for s, cites, *_ in reversed(turns) if s != side), None)
            t = debate_turn(side, SIGNALS, own, other)
            turns.append((side, t.cites, t.rebuts, t.score, t.argument))
    return turns


def test_the_bull_opens_with_its_two_strongest_signals_and_rebuts_nothing() -> None:
    side, cites, rebuts, score, text = debate(1)[0]
    assert side == "bull"
    assert cites == ("fundamentals.revenue_growth", "market.trend")  # |2.0×1.5| then |1.5×1.0|
    assert rebuts is None
    assert score == pytest.approx(1.8)  # (2.0·1.5 + 1.5·1.0) / 2.5
    assert "Revenue TTM +125.85% year on year" in text and "18.50% above" in text


def test_each_later_turn_rebuts_the_other_sides_strongest_point_with_same_analyst_evidence() -> None:
    turns = debate(2)
    bear1, bull2, bear2 = turns[1], turns[2], turns[3]
    # the bear answers the bull's strongest point (revenue growth) with fundamentals' valuation
    assert bear1[2] == "fundamentals.revenue_growth"
    assert bear1[1][0] == "fundamentals.valuation"
    assert set(bear1[1][1:]) == {"market.rsi", "market.volatility"}
    assert bear1[3] == pytest.approx(-1.0)
    # the bull answers the bear's strongest point of its last turn (valuation 1.5 > RSI 1.0)
    assert bull2[2] == "fundamentals.valuation"
    assert bull2[1][0] == "fundamentals.revenue_growth"
    assert set(bull2[1][1:]) == {"news.tone", "social.sentiment"}  # not yet cited by the bull
    assert bear2[2] == "fundamentals.revenue_growth"
    assert "Answering the bull's strongest point, [fundamentals.revenue_growth]" in bear2[4]


def test_neutral_signals_are_cited_by_neither_side_and_every_cite_exists() -> None:
    ids = {s.id for s in SIGNALS}
    for _side, cites, rebuts, _score, _text in debate(3):
        assert set(cites) <= ids
        assert "fundamentals.debt" not in cites
        assert rebuts is None or rebuts in ids


def test_a_turn_states_no_figure_that_is_not_in_a_signal_text() -> None:
    pool = collect_numbers([s.text for s in SIGNALS])
    for *_, text in debate(3):
        assert untraced_numbers(text, pool) == [], text
    # and the check bites: a figure of the turn's own is caught
    assert untraced_numbers("Revenue will grow 83.17%", pool)


def test_counter_evidence_falls_back_to_the_strongest_when_the_analyst_has_none() -> None:
    signals = [
        sig("news.lawsuit", "Two lawsuits filed this week", -1.0),
        sig("market.trend", "Above trend", 1.0),
    ]
    t = debate_turn("bull", signals, set(), ["news.lawsuit"])
    assert t.rebuts == "news.lawsuit"
    assert t.cites == ("market.trend",)


def test_a_side_without_evidence_cites_nothing_and_scores_zero() -> None:
    t = debate_turn("bear", [sig("market.trend", "Above trend", 1.0)], set(), ["market.trend"])
    assert t.cites == () and t.score == 0.0
    assert "No analyst signal supports the bear case" in t.argument
    assert "finds no bearish answer" in t.argument


@dataclass(frozen=True)
class A:
    status: str
    score: float


@pytest.mark.parametrize(
    ("net", "rating"),
    [
        (0.9, "BUY"),
        (0.89, "OVERWEIGHT"),
        (0.3, "OVERWEIGHT"),
        (0.29, "HOLD"),
        (0.0, "HOLD"),
        (-0.29, "HOLD"),
        (-0.3, "UNDERWEIGHT"),
        (-0.89, "UNDERWEIGHT"),
        (-0.9, "SELL"),
        (-2.0, "SELL"),
    ],
)
def test_ratings_at_the_threshold_edges(net: float, rating: str) -> None:
    assert rating_for(net, DecisionParams()) == rating
    # the same through the manager: two analysts of equal weight scoring ``net``, no debate
    c = manager_call({"market": A("ok", net), "fundamentals": A("ok", net)}, None, None, DecisionParams())
    assert c.net == pytest.approx(net)
    assert c.rating == rating


def test_no_data_analysts_do_not_count_and_thin_evidence_holds() -> None:
    p = DecisionParams()
    c = manager_call(
        {"market": A("ok", 1.0), "fundamentals": A("no_data", -2.0), "news": A("ok", 1.0)}, None, None, p
    )
    assert c.net == 1.0 and c.rating == "BUY" and c.with_data == ("market", "news")
    thin = manager_call({"market": A("ok", 2.0), "fundamentals": A("no_data", 0.0)}, None, None, p)
    assert thin.net == 2.0 and thin.thin and thin.rating == "HOLD"


def test_the_debate_tilts_the_net_by_the_documented_share() -> None:
    analysts = {"market": A("ok", 0.2), "fundamentals": A("ok", 0.2)}
    flat = manager_call(analysts, None, None, DecisionParams())
    tilted = manager_call(analysts, 1.8, -0.2, DecisionParams())
    assert flat.rating == "HOLD"
    assert tilted.net == pytest.approx(0.2 + 0.25 * (1.8 - 0.2) / 2)  # 0.40
    assert tilted.rating == "OVERWEIGHT"


def test_a_long_plan_puts_stop_and_target_k_atrs_from_the_close() -> None:
    f = plan_figures("BUY", 100.0, 2.5, PlanParams())
    assert f.direction == "long" and f.entry == 100.0
    assert f.stop == 100.0 - 2.0 * 2.5 and f.target == 100.0 + 3.0 * 2.5
    assert f.risk_reward == 1.5 and f.size == 5.0 and f.horizon_days == 20


def test_a_short_plan_mirrors_the_levels_and_a_long_only_desk_goes_flat() -> None:
    short = plan_figures("SELL", 100.0, 2.5, PlanParams(allow_short=True))
    assert short.direction == "short" and short.stop == 105.0 and short.target == 92.5
    flat = plan_figures("UNDERWEIGHT", 100.0, 2.5, PlanParams())
    assert flat.direction == "flat" and flat.size == 0.0 and flat.stop is None


@pytest.mark.parametrize("atr", [0.5, 5.0, 10.0, 12.5, 17.3, 31.0, 45.0])
def test_the_loss_at_the_stop_never_exceeds_the_risk_budget(atr: float) -> None:
    p = PlanParams()
    f = plan_figures("BUY", 100.0, atr, p)
    assert f.stop is not None and f.entry is not None
    loss = f.size * (f.entry - f.stop) / f.entry  # % of capital lost at the stop
    assert loss <= p.risk_per_trade_pct + 1e-9
    assert f.size <= p.max_position_pct
    assert f.size == min(5.0, risk_cap(f.entry, f.stop, p))


def test_the_risk_cap_binds_on_a_wide_stop() -> None:
    f = plan_figures("BUY", 100.0, 12.5, PlanParams())  # stop 75: 25% away → at most 4% of capital
    assert f.stop == 75.0 and f.size == 4.0 and f.wanted == 5.0


def test_without_atr_there_are_no_levels_and_the_size_is_halved() -> None:
    f = plan_figures("BUY", 100.0, None, PlanParams())
    assert f.no_atr and f.stop is None and f.target is None and f.size == 2.5
    nothing = plan_figures("BUY", None, 2.5, PlanParams())
    assert nothing.no_price and nothing.direction == "flat" and nothing.size == 0.0


def test_risk_team_proposals() -> None:
    p = DeskParams()
    assert risk_proposal("aggressive", 5.0, "risk-on", p) == 7.5
    assert risk_proposal("conservative", 5.0, "risk-on", p) == 2.5
    assert risk_proposal("conservative", 5.0, "risk-off", p) == 1.25  # halved again
    assert risk_proposal("neutral", 5.0, "risk-off", p) == 5.0
    assert risk_proposal("aggressive", 8.0, "risk-on", p) == 10.0  # capped by max_position_pct
    assert risk_proposal("aggressive", 0.0, "risk-on", p) == 0.0


def test_the_risk_manager_takes_the_weighted_mean_capped() -> None:
    p = DeskParams()
    props = {"aggressive": 7.5, "conservative": 2.5, "neutral": 5.0}
    f = final_figures("BUY", "long", 5.0, props, 10.0, "risk-on", 3.0, p)
    assert f.rating == "BUY" and f.size == 4.75  # .25·7.5 + .35·2.5 + .4·5
    capped = final_figures("BUY", "long", 5.0, props, 4.0, "risk-on", 3.0, p)
    assert capped.size == 4.0


@pytest.mark.parametrize(
    ("rating", "regime", "atr_pct", "expected"),
    [
        ("BUY", "risk-off", 4.0, "OVERWEIGHT"),  # at the edge: downgraded
        ("BUY", "risk-off", 3.99, "BUY"),
        ("BUY", "risk-on", 9.0, "BUY"),
        ("OVERWEIGHT", "risk-off", 6.0, "HOLD"),
        ("UNDERWEIGHT", "risk-off", 6.0, "UNDERWEIGHT"),  # only long ratings are downgraded
        ("BUY", "risk-off", None, "BUY"),  # no ATR%: no evidence of high volatility
    ],
)
def test_risk_off_high_volatility_downgrades_a_long_rating_one_notch(
    rating: str, regime: str, atr_pct: float | None, expected: str
) -> None:
    p = DeskParams()
    direction = "long" if rating in ("BUY", "OVERWEIGHT") else "flat"
    size = 5.0 if direction == "long" else 0.0
    f = final_figures(rating, direction, size, {"neutral": size}, 10.0, regime, atr_pct, p)  # type: ignore[arg-type]
    assert f.rating == expected
    if expected == "HOLD" or f.direction == "flat":
        assert f.size == 0.0
    if expected == "OVERWEIGHT" and rating == "BUY":
        assert f.downgraded and f.size <= PlanParams().size_pct["OVERWEIGHT"]


def test_custom_weights_change_the_mean() -> None:
    p = DeskParams(risk=RiskParams(weights={"aggressive": 1.0, "conservative": 0.0, "neutral": 0.0}))
    f = final_figures("BUY", "long", 5.0, {"aggressive": 7.5, "conservative": 2.5}, 10.0, "risk-on", 1.0, p)
    assert f.size == 7.5
