"""The trading desk as a LangGraph state graph:
``identity → (market | fundamentals | news | social, in parallel) → recall → bull ⇄ bear (N rounds) →
research_manager → trader → aggressive → conservative → neutral (N rounds) → risk_manager → record``.

Rules:
- Identity first: the company is resolved before the graph starts (the spec's precheck) and read once
  more as the first node, so its ``get_company`` call is in the trace and every report names it.
- The four analysts run in one superstep, concurrently; each writes its own key.
- ``recall`` settles the user's decisions whose outcome is now known (as of the run's date) and injects
  per role the two most similar past lessons known before the run's date; ``record`` logs the decision.
  Memory never fails a run: problems are notes in the report.
- Debates are bounded conditional edges: the bull opens, the bear answers, ``debate_rounds`` times; the
  risk team speaks aggressive → conservative → neutral, ``risk_rounds`` times. Every turn is appended
  to the state in order; debaters and managers read compact digests (``roles.trading.inputs``).
- A model's output is held to code by each role's ``normalize`` (``nodes.held``): figures, citations,
  scores and sizes come from code. A risk manager whose model decision could not be parsed or validated
  gives REVIEW with the reason, never a silent HOLD.
- State is serializable (typed models, dates, plain containers), so a run is checkpointed and resumes.
"""

from __future__ import annotations

import functools
import operator
from datetime import date
from typing import Annotated, Any, TypedDict, cast

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from findesk.agents.roles.trading import (
    fundamentals,
    identity,
    manager,
    market,
    news,
    researchers,
    risk,
    risk_manager,
    social,
    trader,
)
from findesk.agents.roles.trading.inputs import (
    AnalystInput,
    DebateInput,
    DeskView,
    ManagerInput,
    RiskInput,
    RiskManagerInput,
    TraderInput,
    all_signals,
    desk_view,
    digest,
)
from findesk.agents.roles.trading.models import (
    AnalystReport,
    DebateTurn,
    FinalDecision,
    Identity,
    InvestmentDecision,
    TradePlan,
)
from findesk.agents.runtime import AgentOutcome
from findesk.analytics.trading.params import DeskParams
from findesk.workflows.nodes import State, agent_node, held
from findesk.workflows.spec import AgentNotes, RunKit
from findesk.workflows.trading import memory_hooks

ANALYST_KEYS = ("market", "fundamentals", "news", "social")
RISK_ORDER = ("aggressive", "conservative", "neutral")


class TradeState(TypedDict, total=False):
    ticker: str
    day: date
    user: str
    params: DeskParams
    debate_rounds: int
    risk_rounds: int
    identity: Identity
    market: Any
    fundamentals: Any
    news: Any
    social: Any
    lessons: dict[str, list[str]]
    memory_notes: Annotated[list[str], operator.add]
    debate: Annotated[list[DebateTurn], operator.add]
    decision: InvestmentDecision
    plan: TradePlan
    risk: Annotated[list[DebateTurn], operator.add]
    final: FinalDecision
    agents: AgentNotes
    # each role's output as code composes it from the same inputs (the model's output is held to it)
    basis: Annotated[dict[str, Any], operator.or_]


def reports(state: State) -> dict[str, AnalystReport]:
    return {k: state[k] for k in ANALYST_KEYS if state.get(k) is not None}


def view(state: State) -> DeskView:
    return desk_view(state["identity"], state["day"], reports(state))


def _analyst_input(state: State) -> AnalystInput:
    return AnalystInput(identity=state["identity"], date=state["day"], params=state["params"])


def _identity(_state: State, _given: AnalystInput, out: AgentOutcome[Any]) -> dict[str, Any]:
    return {"identity": out.output}


def _analyst(key: str, role: Any, normalize: Any) -> Any:
    def build(_state: State, given: AnalystInput, out: AgentOutcome[Any]) -> dict[str, Any]:
        report, basis = held(role, given, out, normalize)
        return {key: report, "basis": {key: basis}}

    return agent_node(role, _analyst_input, build, progress=lambda u: ("analyst", u[key]))


async def _recall(state: State, runtime: Runtime[RunKit]) -> dict[str, Any]:
    kit = runtime.context
    user, day = state.get("user") or "local", state["day"]
    settled = await memory_hooks.settle_details(kit, user, day)
    lessons, more = await memory_hooks.recall(kit, user, day, situation_text(view(state)))
    await kit.durable()
    return {"lessons": lessons, "memory_notes": [*settled.notes(), *settled.warnings, *more]}


def situation_text(v: DeskView) -> str:
    """The case in words, for the reflection memory: company, sector, regime and each analyst's stance
    with its strongest signals (BM25 matches on these words)."""
    parts = [
        f"{v.identity.ticker} {v.identity.name} sector {v.identity.sector or 'unknown'} "
        f"industry {v.identity.industry or 'unknown'} regime {v.regime}"
    ]
    for name, d in v.analysts.items():
        parts.append(f"{name} {d.stance} " + "; ".join(s.text for s in d.top))
    return ". ".join(parts)


def _lessons(state: State, role: str) -> list[str]:
    return list((state.get("lessons") or {}).get(role, []))


def _debate_input(state: State, side: str) -> DebateInput:
    turns: list[DebateTurn] = list(state.get("debate") or [])
    mine = sum(t.side == side for t in turns)
    return DebateInput(
        view=view(state),
        side=cast(Any, side),
        round=mine + 1,
        rounds=state["debate_rounds"],
        history=[digest(t) for t in turns],
        signals=all_signals(reports(state)),
        lessons=_lessons(state, side),
        params=state["params"],
    )


def _turn(key: str, role: Any, normalize: Any) -> Any:
    def build(_state: State, given: Any, out: AgentOutcome[Any]) -> dict[str, Any]:
        turn, basis = held(role, given, out, normalize)
        tag = f"{key}:{given.side}:{given.round}"
        return {key: [turn], "basis": {tag: basis}}

    return build


def _after_bear(state: State) -> str:
    bear_turns = sum(t.side == "bear" for t in state.get("debate") or [])
    return "bull" if bear_turns < state["debate_rounds"] else "research_manager"


def _manager_input(state: State) -> ManagerInput:
    return ManagerInput(
        view=view(state),
        debate=[digest(t) for t in state.get("debate") or []],
        lessons=_lessons(state, "research_manager"),
        params=state["params"],
    )


def _manager(_state: State, given: ManagerInput, out: AgentOutcome[Any]) -> dict[str, Any]:
    decision, basis = held(manager.ROLE, given, out, manager.normalize)
    return {"decision": decision, "basis": {"decision": basis}}


def _trader_input(state: State) -> TraderInput:
    return TraderInput(
        view=view(state),
        decision=state["decision"],
        lessons=_lessons(state, "trader"),
        params=state["params"],
    )


def _trader(_state: State, given: TraderInput, out: AgentOutcome[Any]) -> dict[str, Any]:
    plan, basis = held(trader.ROLE, given, out, trader.normalize)
    return {"plan": plan, "basis": {"plan": basis}}


def _risk_input(state: State, side: str) -> RiskInput:
    turns: list[DebateTurn] = list(state.get("risk") or [])
    return RiskInput(
        view=view(state),
        decision=state["decision"],
        plan=state["plan"],
        side=cast(Any, side),
        round=sum(t.side == side for t in turns) + 1,
        rounds=state["risk_rounds"],
        history=[digest(t) for t in turns],
        params=state["params"],
    )


def _after_neutral(state: State) -> str:
    neutral_turns = sum(t.side == "neutral" for t in state.get("risk") or [])
    return "aggressive" if neutral_turns < state["risk_rounds"] else "risk_manager"


def _risk_manager_input(state: State) -> RiskManagerInput:
    return RiskManagerInput(
        view=view(state),
        decision=state["decision"],
        plan=state["plan"],
        risk=[digest(t) for t in state.get("risk") or []],
        lessons=_lessons(state, "risk_manager"),
        params=state["params"],
    )


def _risk_manager(_state: State, given: RiskManagerInput, out: AgentOutcome[Any]) -> dict[str, Any]:
    final, basis = held(risk_manager.ROLE, given, out, risk_manager.normalize)
    if out.mode == "model" and out.fell_back and out.stopped in risk_manager.REVIEW_STOPS:
        # the model gave no decision that parsed and validated: the desk says so, never a silent HOLD
        # (a model that was unavailable or out of budget made no decision: the code's stands, with a warning)
        reason = out.warnings[0] if out.warnings else "the model's decision could not be parsed"
        final = risk_manager.review_decision(reason, given.plan, given)
    return {"final": final, "basis": {"final": basis}}


async def _record(state: State, runtime: Runtime[RunKit]) -> dict[str, Any]:
    kit = runtime.context
    notes = await memory_hooks.record(kit, state.get("user") or "local", logged(state, kit.tracer.run_id))
    await kit.durable()
    return {"memory_notes": notes}


def logged(state: State, run_id: str) -> Any:
    """The decision as the log keeps it: the final call, the plan's levels, and each role's line."""
    from findesk.knowledge.memory.decisions import LoggedDecision

    final: FinalDecision = state["final"]
    plan: TradePlan = state["plan"]
    decision: InvestmentDecision = state["decision"]
    v = view(state)
    last = {t.side: t for t in state.get("debate") or []}
    return LoggedDecision(
        run_id=run_id,
        ticker=v.identity.ticker,
        decided_on=state["day"],
        session=v.session or state["day"],
        rating=final.rating,
        manager_rating=decision.rating,
        position_pct=final.position_pct,
        direction=final.direction,
        entry=final.entry,
        stop=final.stop,
        target=final.target,
        horizon_days=final.horizon_days,
        situation=situation_text(v),
        roles={
            "bull": last["bull"].argument if "bull" in last else "",
            "bear": last["bear"].argument if "bear" in last else "",
            "research_manager": f"{decision.rating}: {decision.rationale}",
            "trader": f"{plan.direction} {plan.position_pct}%: {plan.rationale}",
            "risk_manager": f"{final.rating} {final.position_pct}%: {final.rationale}",
        },
    )


def build_graph() -> StateGraph:  # type: ignore[type-arg]
    graph: Any = StateGraph(TradeState)
    graph.add_node(
        "identity",
        agent_node(
            identity.ROLE,
            _analyst_input,
            _identity,
            progress=lambda u: ("identity", u["identity"]),
            mode="deterministic",
        ),
    )
    graph.add_node("market", _analyst("market", market.ROLE, market.normalize))
    graph.add_node("fundamentals", _analyst("fundamentals", fundamentals.ROLE, fundamentals.normalize))
    graph.add_node("news", _analyst("news", news.ROLE, news.normalize))
    graph.add_node("social", _analyst("social", social.ROLE, social.normalize))
    graph.add_node("recall", _recall)
    graph.add_node(
        "bull",
        agent_node(
            researchers.BULL,
            lambda st: _debate_input(st, "bull"),
            _turn("debate", researchers.BULL, researchers.normalize),
            progress=lambda u: ("debate", u["debate"][-1]),
        ),
    )
    graph.add_node(
        "bear",
        agent_node(
            researchers.BEAR,
            lambda st: _debate_input(st, "bear"),
            _turn("debate", researchers.BEAR, researchers.normalize),
            progress=lambda u: ("debate", u["debate"][-1]),
        ),
    )
    graph.add_node(
        "research_manager",
        agent_node(manager.ROLE, _manager_input, _manager, progress=lambda u: ("decision", u["decision"])),
    )
    graph.add_node(
        "trader", agent_node(trader.ROLE, _trader_input, _trader, progress=lambda u: ("plan", u["plan"]))
    )
    for side, role in zip(RISK_ORDER, (risk.AGGRESSIVE, risk.CONSERVATIVE, risk.NEUTRAL), strict=True):
        graph.add_node(
            side,
            agent_node(
                role,
                functools.partial(_risk_input, side=side),
                _turn("risk", role, risk.normalize),
                progress=lambda u: ("risk", u["risk"][-1]),
            ),
        )
    graph.add_node(
        "risk_manager",
        agent_node(
            risk_manager.ROLE, _risk_manager_input, _risk_manager, progress=lambda u: ("final", u["final"])
        ),
    )
    graph.add_node("record", _record)
    graph.add_edge(START, "identity")
    for key in ANALYST_KEYS:
        graph.add_edge("identity", key)
    graph.add_edge(list(ANALYST_KEYS), "recall")  # a join: recall waits for all four analysts
    graph.add_edge("recall", "bull")
    graph.add_edge("bull", "bear")
    graph.add_conditional_edges("bear", _after_bear, ["bull", "research_manager"])
    graph.add_edge("research_manager", "trader")
    graph.add_edge("trader", "aggressive")
    graph.add_edge("aggressive", "conservative")
    graph.add_edge("conservative", "neutral")
    graph.add_conditional_edges("neutral", _after_neutral, ["aggressive", "risk_manager"])
    graph.add_edge("risk_manager", "record")
    graph.add_edge("record", END)
    return cast(StateGraph, graph)  # type: ignore[type-arg]
