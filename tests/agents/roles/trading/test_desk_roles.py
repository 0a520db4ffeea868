"""The desk's roles after the analysts: the bull/bear debate, the research manager, the trader, the risk
team and the risk manager, in deterministic mode and with scripted models (no network, no real LLM)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest
import talib
from desk_kit import DAY, NVDA, SIGNALS, DeskRun, reports, rm_input, run_desk

from findesk.agents.role import Role
from findesk.agents.roles.trading import manager, researchers, risk, risk_manager, trader
from findesk.agents.roles.trading.inputs import (
    DebateInput,
    ManagerInput,
    RiskInput,
    TraderInput,
    all_signals,
    desk_view,
    digest,
)
from findesk.agents.roles.trading.models import DebateTurn, FinalDecision, InvestmentDecision, TradePlan
from findesk.agents.runtime import AgentRuntime, Budget
from findesk.agents.runtime.outcome import AgentOutcome
from findesk.analytics.trading.params import DeskParams, PlanParams
from findesk.core.config import Settings
from findesk.core.events import EventBus, MemorySink, Tracer
from findesk.core.result import Ok
from findesk.data.context import DataContext
from findesk.guardrails.number_trace import collect_numbers, untraced_numbers
from findesk.testing.fake_models import Step
from findesk.testing.fake_trade_models import (
    FABRICATED,
    fabricating_bull,
    garbage_risk_manager,
    manager_reply,
    oversized_risk_manager,
    trade_models,
)
from findesk.tools.base import ToolContext, ToolRegistry
from snapshot_kit import snapshot_tools

# --- deterministic desk ---------------------------------------------------------------------------


def test_the_debate_cites_only_existing_signals_and_each_later_turn_rebuts_the_other_side() -> None:
    run = run_desk(reports(), rounds=3)
    ids = {s.id for s in SIGNALS}
    assert [(t.side, t.round) for t in run.debate] == [(s, r) for r in (1, 2, 3) for s in ("bull", "bear")]
    for i, turn in enumerate(run.debate):
        assert set(turn.cites) <= ids
        if i == 0:
            assert turn.rebuts is None
            continue
        previous = run.debate[i - 1]  # the other side's last turn
        assert previous.side != turn.side
        cited = [s for s in SIGNALS if s.id in previous.cites and (s.score > 0) == (previous.side == "bull")]
        strongest = max(cited, key=lambda s: (abs(s.score * s.weight), s.id))
        assert turn.rebuts == strongest.id
    bull_scores = [t.score for t in run.debate if t.side == "bull"]
    assert all(s > 0 for s in bull_scores)
    assert all(t.score < 0 for t in run.debate if t.side == "bear")


def test_every_figure_the_desk_writes_comes_from_a_signal_the_view_or_the_desks_own_outputs() -> None:
    run = run_desk(reports())
    assert run.decision and run.plan and run.final
    pool = collect_numbers(
        [s.text for s in SIGNALS], run.view, DeskParams(), run.decision, run.plan, run.final, run.risk
    )
    texts = [t.argument for t in run.debate + run.risk]
    texts += [run.decision.rationale, run.plan.rationale, run.final.rationale]
    for text in texts:
        assert untraced_numbers(text, pool) == [], text
    # debate turns need nothing but the signals
    signal_pool = collect_numbers([s.text for s in SIGNALS])
    for t in run.debate:
        assert untraced_numbers(t.argument, signal_pool) == [], t.argument


def test_two_composes_of_the_same_input_are_byte_identical() -> None:
    a, b = run_desk(reports()), run_desk(reports())
    assert a.dump() == b.dump()
    assert len(a.dump()) > 1000


def test_a_bullish_desk_rates_and_plans_a_long_with_atr_levels() -> None:
    run = run_desk(reports(scores={"market": 1.2, "fundamentals": 1.5, "news": 0.5, "social": 0.5}))
    assert run.decision is not None and run.plan is not None and run.final is not None
    assert run.decision.rating == "BUY"
    assert "at or above the BUY threshold +0.90" in run.decision.rationale
    assert run.decision.bull_points[0] == "fundamentals.revenue_growth"
    plan = run.plan
    assert plan.direction == "long" and plan.entry == 898.78
    assert plan.stop == round(898.78 - 2 * 36.85, 2) and plan.target == round(898.78 + 3 * 36.85, 2)
    assert plan.position_pct == 5.0
    # the loss at the stop is within the risk budget
    assert plan.position_pct * (plan.entry - plan.stop) / plan.entry <= 1.0
    props = {t.side: t.proposed_pct for t in run.risk}
    assert props == {"aggressive": 7.5, "conservative": 2.5, "neutral": 5.0}
    assert run.final.rating == "BUY" and run.final.position_pct == 4.75
    assert (run.final.entry, run.final.stop, run.final.target) == (plan.entry, plan.stop, plan.target)


def test_risk_off_with_high_volatility_downgrades_the_final_rating() -> None:
    bullish = {"market": 1.2, "fundamentals": 1.5, "news": 0.5, "social": 0.5}
    run = run_desk(reports(regime="risk-off", atr_pct=4.10, scores=bullish))
    assert run.decision is not None and run.final is not None
    assert run.decision.rating == "BUY"
    assert run.final.rating == "OVERWEIGHT"
    assert "downgraded one notch" in run.final.rationale and "4.10%" in run.final.rationale
    assert run.final.position_pct <= PlanParams().size_pct["OVERWEIGHT"]
    calm = run_desk(reports(regime="risk-off", atr_pct=3.99, scores=bullish))
    assert calm.final is not None and calm.final.rating == "BUY"
    # the conservative analyst halves again in a risk-off regime
    assert {t.side: t.proposed_pct for t in run.risk}["conservative"] == 1.25


def test_a_bearish_desk_on_a_long_only_book_is_reduce_exit_with_no_position() -> None:
    run = run_desk(reports(scores={"market": -1.2, "fundamentals": -1.5, "news": -0.5, "social": -0.5}))
    assert run.decision is not None and run.plan is not None and run.final is not None
    assert run.decision.rating == "SELL"
    assert run.plan.direction == "flat" and run.plan.position_pct == 0.0
    assert "reduce/exit" in run.plan.rationale
    assert all(t.proposed_pct == 0.0 for t in run.risk)
    assert run.final.rating == "SELL" and run.final.position_pct == 0.0 and run.final.direction == "flat"


def test_no_atr_means_no_levels_and_half_size_said_so() -> None:
    run = run_desk(reports(atr=None, atr_pct=None, scores={"market": 1.2, "fundamentals": 1.5}))
    assert run.plan is not None
    assert run.plan.stop is None and run.plan.target is None and run.plan.position_pct == 2.5
    assert "No ATR" in run.plan.rationale and "halved" in run.plan.rationale


def test_thin_evidence_holds_and_says_why() -> None:
    run = run_desk(reports(no_data=("fundamentals", "news", "social"), scores={"market": 2.0}))
    assert run.decision is not None and run.final is not None
    assert run.decision.rating == "HOLD" and "thin evidence" in run.decision.rationale
    assert run.final.position_pct == 0.0


def test_tasks_carry_the_compact_view_not_the_reports() -> None:
    reps = reports()
    long_summary = "Long prose the desk must not resend. " * 40
    reps["fundamentals"] = reps["fundamentals"].model_copy(update={"summary": long_summary})
    view = desk_view(NVDA, DAY, reps)
    given = DebateInput(view=view, side="bull", round=1, rounds=2, signals=all_signals(reps))
    task = researchers.BULL.task(given)
    assert "Long prose" not in task  # an ok analyst's summary stays out
    payload = json.loads(task[task.index("{") : task.rindex("}") + 1])
    assert set(payload) >= {"side", "desk", "your_evidence", "earlier_turns"}
    assert len(task) < 4000


# --- with scripted models ---------------------------------------------------------------------------


def _runtime(overrides: dict[str, list[Step]] | None = None) -> tuple[AgentRuntime, Any]:
    resolve, models = trade_models(overrides)
    ctx = ToolContext(
        router=cast(Any, None), sections=cast(Any, None), context=DataContext(mode="snapshot", as_of=DAY)
    )
    return AgentRuntime(ToolRegistry([]), ctx, models=resolve, budget=Budget(limit_usd=5.0)), models


def _run(
    role: Role[Any, Any], given: Any, overrides: dict[str, list[Step]] | None = None
) -> AgentOutcome[Any]:
    rt, _ = _runtime(overrides)
    return asyncio.run(rt.run(role, given, Tracer(EventBus([MemorySink()]))))


def _debate_input(run: DeskRun, side: str, upto: int) -> DebateInput:
    return DebateInput(
        view=run.view,
        side=side,
        round=upto // 2 + 1,
        rounds=2,
        history=[digest(t) for t in run.debate[:upto]],
        signals=all_signals(reports()),
    )


def test_a_model_bear_cites_payload_ids_and_rebuts_the_bulls_point() -> None:
    run = run_desk(reports())
    given = _debate_input(run, "bear", 1)
    out = _run(researchers.BEAR, given)
    assert out.mode == "model" and not out.fell_back
    basis = researchers.compose(given, {})
    turn = researchers.normalize(out.output, given, basis)
    assert turn.cites and set(turn.cites) <= {s.id for s in SIGNALS}
    assert turn.rebuts in run.debate[0].cites
    assert turn.argument.startswith("The bear researcher argues")
    assert turn.score == basis.score  # the score is the code's


def test_a_model_turn_keeps_only_existing_citations_and_none_left_is_the_code_turn() -> None:
    run = run_desk(reports())
    given = _debate_input(run, "bull", 2)
    basis = researchers.compose(given, {})
    mixed = DebateTurn(side="bull", round=2, argument="x", cites=["made.up", "news.tone"], rebuts="made.up")
    kept = researchers.normalize(mixed, given, basis)
    assert kept.cites == ["news.tone"] and kept.rebuts == basis.rebuts and kept.score == basis.score
    junk = DebateTurn(side="bull", round=2, argument="trust me", cites=["made.up"], score=2.0)
    assert researchers.normalize(junk, given, basis) == basis


def test_a_fabricating_bull_is_caught_by_the_number_trace() -> None:
    run = run_desk(reports())
    given = _debate_input(run, "bull", 0)
    out = _run(researchers.BULL, given, {"bull": [fabricating_bull] * 2})
    turn = researchers.normalize(out.output, given, researchers.compose(given, {}))
    assert FABRICATED in turn.argument  # the guard, not the normalizer, judges prose
    untraced = untraced_numbers(turn.argument, collect_numbers([s.text for s in SIGNALS], run.view))
    assert [u.text for u in untraced] == ["83.17%"]


@pytest.mark.parametrize(("shift", "kept"), [(0, True), (1, True), (-1, True), (-2, False), (-3, False)])
def test_a_model_rating_stands_only_within_one_notch_of_the_rules(shift: int, kept: bool) -> None:
    run = run_desk(reports())
    assert run.decision is not None and run.decision.rating == "OVERWEIGHT"
    given = ManagerInput(view=run.view, debate=[digest(t) for t in run.debate])
    out = _run(manager.ROLE, given, {"manager": [manager_reply(shift)] * 2})
    decision = manager.normalize(out.output, given, manager.compose(given, {}))
    assert decision.score == run.decision.score
    if kept:
        assert decision.rating == out.output.rating
    else:
        assert decision.rating == run.decision.rating
        assert "more than one notch" in decision.rationale


def test_a_model_plan_keeps_the_codes_figures() -> None:
    run = run_desk(reports(scores={"market": 1.2, "fundamentals": 1.5}))
    assert run.decision is not None and run.plan is not None
    given = TraderInput(view=run.view, decision=run.decision)
    invented = run.plan.model_copy(
        update={"stop": 1.0, "target": 5000.0, "position_pct": 50.0, "rationale": "Mine."}
    )
    plan = trader.normalize(invented, given, run.plan)
    assert (plan.stop, plan.target, plan.position_pct) == (
        run.plan.stop,
        run.plan.target,
        run.plan.position_pct,
    )
    assert plan.rationale == "Mine."
    out = _run(trader.ROLE, given)
    assert trader.normalize(out.output, given, run.plan).entry == 898.78


def test_model_risk_turns_keep_the_codes_proposal() -> None:
    run = run_desk(reports(scores={"market": 1.2, "fundamentals": 1.5}))
    assert run.decision is not None and run.plan is not None
    given = RiskInput(
        view=run.view,
        decision=run.decision,
        plan=run.plan,
        side="aggressive",
        round=1,
        rounds=2,
        history=[],
    )
    out = _run(risk.AGGRESSIVE, given)
    turn = risk.normalize(
        out.output.model_copy(update={"proposed_pct": 99.0}), given, risk.compose(given, {})
    )
    assert turn.proposed_pct == 7.5 and turn.cites


def test_a_valid_model_decision_stands_with_the_plans_levels() -> None:
    run = run_desk(reports(scores={"market": 1.2, "fundamentals": 1.5}))
    given = rm_input(run)
    out = _run(risk_manager.ROLE, given)
    final = risk_manager.normalize(out.output, given, risk_manager.compose(given, {}))
    assert final.rating == "BUY" and final.review_reason is None
    assert run.plan is not None and final.stop == run.plan.stop


def test_an_unparseable_risk_manager_reply_becomes_review_never_a_silent_hold() -> None:
    run = run_desk(reports(scores={"market": 1.2, "fundamentals": 1.5}))
    given = rm_input(run)
    rt, models = _runtime({"risk_manager": [garbage_risk_manager] * 4})
    out = asyncio.run(rt.run(risk_manager.ROLE, given, Tracer(EventBus([MemorySink()]))))
    # how the workflow detects it: the runtime fell back after the repair attempt
    assert out.mode == "model" and out.fell_back and out.stopped in risk_manager.REVIEW_STOPS
    assert len(models["risk_manager"].requests) == 2  # the reply and one repair
    assert run.plan is not None
    final = risk_manager.review_decision(out.warnings[0], run.plan, given)
    assert final.rating == "REVIEW" and final.review_reason and "invalid_output" in final.review_reason
    assert final.position_pct == 0.0 and final.direction == "flat"


def test_an_invalid_model_decision_becomes_review_with_its_reason() -> None:
    run = run_desk(reports(scores={"market": 1.2, "fundamentals": 1.5}))
    given = rm_input(run)
    basis = risk_manager.compose(given, {})
    out = _run(risk_manager.ROLE, given, {"risk_manager": [oversized_risk_manager] * 2})
    oversized = risk_manager.normalize(out.output, given, basis)
    assert oversized.rating == "REVIEW" and oversized.review_reason and "size" in oversized.review_reason
    cases: list[tuple[dict[str, Any], str]] = [
        ({"rating": "HOLD", "direction": "long"}, "inconsistent"),
        ({"rating": "SELL", "direction": "short", "position_pct": 1.0}, "inconsistent"),  # long-only desk
        ({"rating": "HOLD", "direction": "flat", "position_pct": 2.0}, "flat"),
        ({"rating": "BUY", "direction": "long", "position_pct": -1.0}, "size"),
    ]
    for update, why in cases:
        bad = FinalDecision.model_construct(**(basis.model_dump() | update))
        final = risk_manager.normalize(bad, given, basis)
        assert final.rating == "REVIEW", update
        assert final.review_reason is not None and why in final.review_reason, (update, final.review_reason)


# --- on real snapshot data ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def nvda_bars(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    settings = Settings(snapshot_dir=snapshot_dir, cache_dir=tmp_path_factory.mktemp("desk-cache"), chains={})
    for ctx in snapshot_tools(settings, DAY):
        got = asyncio.run(ctx.router.bars("NVDA", DAY - timedelta(days=60), DAY, DAY))
        assert isinstance(got, Ok), got
        yield got.value


def test_the_trader_sizes_nvda_at_2024_05_10_from_its_real_close_and_atr(nvda_bars: Any) -> None:
    bars = [b for b in nvda_bars.bars if b.high is not None and b.low is not None]
    assert bars[-1].date <= DAY  # point in time
    high, low, close = (
        np.array([getattr(b, k) for b in bars], dtype=float) for k in ("high", "low", "close")
    )
    atr = float(talib.ATR(high, low, close, timeperiod=14)[-1])
    last = bars[-1].close
    reps = reports(close=last, atr=atr, atr_pct=atr / last * 100, scores={"market": 1.2, "fundamentals": 1.5})
    run = run_desk(reps)
    assert run.plan is not None and run.plan.entry is not None and run.plan.stop is not None
    assert run.plan.entry == round(last, 2)
    assert run.plan.stop == pytest.approx(run.plan.entry - 2 * atr, abs=0.006)
    assert run.plan.target == pytest.approx(run.plan.entry + 3 * atr, abs=0.006)
    loss = run.plan.position_pct * (run.plan.entry - run.plan.stop) / run.plan.entry
    assert 0 < loss <= PlanParams().risk_per_trade_pct
    # and the rationale's figures are the plan's and the view's
    pool = collect_numbers(run.view, run.plan, DeskParams())
    assert untraced_numbers(run.plan.rationale, pool) == []


def test_outputs_validate_against_their_schemas() -> None:
    run = run_desk(reports())
    assert run.decision and run.plan and run.final
    for model, schema in (
        (run.decision, InvestmentDecision),
        (run.plan, TradePlan),
        (run.final, FinalDecision),
    ):
        assert schema.model_validate_json(model.model_dump_json()) == model
