"""The briefing as a LangGraph state graph: official ‖ social → coordinator.

Rules:
- The two sub-agents are independent branches from START, so LangGraph runs them in the same
  superstep (concurrently); the coordinator node waits for both.
- The state is serializable (typed reports, dates, agent notes), so a run is checkpointed and resumes;
  nodes are built by ``workflows.nodes.agent_node`` and read the agent runtime from the run's kit.
- Each sub-agent's report goes out through the stream writer as soon as it is built, so its sections
  stream before the other branch finishes.
- Divergences are computed by code (``analytics.divergence``) before the coordinator runs, so it reads
  them as part of its input and both modes report the same divergences.
"""

from __future__ import annotations

from datetime import date
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph

from findesk.agents.roles.brief import coordinator, official, social
from findesk.agents.roles.brief.coordinator import CoordinatorInput, CoordinatorNotes
from findesk.agents.roles.brief.official import BriefInput
from findesk.agents.roles.brief.reports import OfficialReport, SocialReport
from findesk.agents.roles.brief.social import SocialInput
from findesk.agents.runtime import AgentOutcome
from findesk.analytics.divergence import ClaimCheck, check_claims
from findesk.workflows.nodes import State, agent_node
from findesk.workflows.spec import AgentNotes


class BriefState(TypedDict, total=False):
    symbol: str
    as_of: date
    question: str | None  # the client's question, answered from the briefing's evidence
    official: OfficialReport
    social: SocialReport
    divergences: list[ClaimCheck]  # one verdict per social claim, contradicted or not
    notes: CoordinatorNotes
    fallback_notes: CoordinatorNotes
    agents: AgentNotes


def _official(state: State, _: BriefInput, out: AgentOutcome[Any]) -> dict[str, Any]:
    return {"official": official.build_report(state["symbol"], out.outcomes, out.output, state["as_of"])}


def _social(state: State, _: SocialInput, out: AgentOutcome[Any]) -> dict[str, Any]:
    return {"social": social.build_report(state["symbol"], state["as_of"], out.outcomes, out.output)}


def _coordinator_input(state: State) -> CoordinatorInput:
    o, s = state["official"], state["social"]
    divergences = check_claims(s.claims, o.material_events, o.xbrl, as_of=state["as_of"])
    return CoordinatorInput(
        symbol=state["symbol"], as_of=state["as_of"], official=o, social=s, divergences=divergences
    )


def _coordinator(state: State, inputs: CoordinatorInput, out: AgentOutcome[Any]) -> dict[str, Any]:
    return {
        "divergences": inputs.divergences,
        "notes": out.output,
        "fallback_notes": coordinator.compose(inputs, {}),
    }


def build_graph() -> StateGraph:  # type: ignore[type-arg]
    graph = StateGraph(BriefState)
    graph.add_node(
        "official",
        agent_node(
            official.ROLE,
            lambda s: BriefInput(symbol=s["symbol"]),
            _official,
            progress=lambda update: ("official", update["official"], update["agents"]["official"].warnings),
        ),
    )
    graph.add_node(
        "social",
        agent_node(
            social.ROLE,
            lambda s: SocialInput(symbol=s["symbol"], as_of=s["as_of"]),
            _social,
            progress=lambda update: ("social", update["social"], update["agents"]["social"].warnings),
        ),
    )
    graph.add_node("coordinator", agent_node(coordinator.ROLE, _coordinator_input, _coordinator))
    graph.add_edge(START, "official")
    graph.add_edge(START, "social")
    graph.add_edge(["official", "social"], "coordinator")
    graph.add_edge("coordinator", END)
    return graph
