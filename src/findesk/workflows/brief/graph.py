"""The briefing as a LangGraph state graph: official ‖ social → coordinator.

Rules:
- The two sub-agents are independent branches from START, so LangGraph runs them in the same
  superstep (concurrently); the coordinator node waits for both.
- Nodes never raise for a tool or model failure (the runtime turns those into warnings and fallbacks);
  each node writes one typed value into the state.
- Divergences are computed by code (``analytics.divergence``) before the coordinator runs, so it reads
  them as part of its input and both modes report the same divergences.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph

from findesk.agents.roles.brief import coordinator, official, social
from findesk.agents.roles.brief.coordinator import CoordinatorInput, CoordinatorNotes
from findesk.agents.roles.brief.official import BriefInput
from findesk.agents.roles.brief.reports import OfficialReport, SocialReport
from findesk.agents.roles.brief.social import SocialInput
from findesk.agents.runtime import AgentOutcome, AgentRuntime
from findesk.agents.runtime.outcome import RequestedMode
from findesk.analytics.divergence import ClaimCheck, check_claims
from findesk.core.events.trace import Tracer


class BriefState(TypedDict, total=False):
    symbol: str
    as_of: date
    official: OfficialReport
    social: SocialReport
    divergences: list[ClaimCheck]  # one verdict per social claim, contradicted or not
    notes: CoordinatorNotes
    fallback_notes: CoordinatorNotes


@dataclass
class BriefDeps:
    runtime: AgentRuntime
    tracer: Tracer
    mode: RequestedMode = "auto"
    outcomes: dict[str, AgentOutcome[Any]] = field(default_factory=dict)
    # called as each sub-agent's report is ready, before the other may be (sections stream early)
    on_official: Callable[[OfficialReport], None] | None = None
    on_social: Callable[[SocialReport], None] | None = None


def build_graph(deps: BriefDeps) -> Any:
    async def official_node(state: BriefState) -> BriefState:
        out = await deps.runtime.run(
            official.ROLE, BriefInput(symbol=state["symbol"]), deps.tracer, mode=deps.mode
        )
        deps.outcomes["official"] = out
        report = official.build_report(state["symbol"], out.outcomes, out.output, state["as_of"])
        if deps.on_official is not None:
            deps.on_official(report)
        return {"official": report}

    async def social_node(state: BriefState) -> BriefState:
        inputs = SocialInput(symbol=state["symbol"], as_of=state["as_of"])
        out = await deps.runtime.run(social.ROLE, inputs, deps.tracer, mode=deps.mode)
        deps.outcomes["social"] = out
        report = social.build_report(state["symbol"], state["as_of"], out.outcomes, out.output)
        if deps.on_social is not None:
            deps.on_social(report)
        return {"social": report}

    async def coordinator_node(state: BriefState) -> BriefState:
        o, s = state["official"], state["social"]
        divergences = check_claims(s.claims, o.material_events, o.xbrl, as_of=state["as_of"])
        inputs = CoordinatorInput(
            symbol=state["symbol"], as_of=state["as_of"], official=o, social=s, divergences=divergences
        )
        out = await deps.runtime.run(coordinator.ROLE, inputs, deps.tracer, mode=deps.mode)
        deps.outcomes["coordinator"] = out
        return {
            "divergences": divergences,
            "notes": out.output,
            "fallback_notes": coordinator.compose(inputs, {}),
        }

    graph = StateGraph(BriefState)
    graph.add_node("official", official_node)
    graph.add_node("social", social_node)
    graph.add_node("coordinator", coordinator_node)
    graph.add_edge(START, "official")
    graph.add_edge(START, "social")
    graph.add_edge(["official", "social"], "coordinator")
    graph.add_edge("coordinator", END)
    return graph.compile()
