"""The research desk as a LangGraph state graph: ``input_guard → rules → route → budget_check →
(equity | macro | crypto | compliance, only those routed, in parallel) → synthesize → output_guard``.

Rules:
- The routed specialists leave ``route`` through one conditional edge that returns every routed
  node, so LangGraph runs them in the same superstep (concurrently) and ``synthesize`` runs once,
  after all of them. Nothing routed goes straight to ``synthesize``, which says why.
- Abort edge: when the run's dollar budget is already spent after ``route``, the specialists are
  skipped and the answer says what was cut short; a specialist stopped by its own cap (iterations,
  budget) reports it in its warnings, which become ``cut_short`` lines too.
- Conflicts are found by code (``roles.research.conflicts``) before the coordinator writes, so both
  modes report the same conflicts.
- Memory is read in ``input_guard`` (the session's earlier turns resolve a follow-up; a procedural
  template may be chosen) and written in ``output_guard`` (this turn; facts the user stated), through
  ``workflows.research.memory_hooks``; a memory that cannot be opened is a warning, never a failure.
- State is serializable (typed reports, dates, plain containers), so a run is checkpointed and resumes.
"""

from __future__ import annotations

import asyncio
import operator
from datetime import date
from typing import Annotated, Any, TypedDict, cast

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from findesk.agents.roles.research import coordinator, synthesize
from findesk.agents.roles.research.conflicts import Conflict, find_conflicts
from findesk.agents.roles.research.findings import SPECIALISTS, SpecialistInput, SpecialistReport, Subjects
from findesk.agents.roles.research.route import load_route_tables, route
from findesk.agents.roles.research.synthesize import Synthesis, SynthesisInput
from findesk.agents.runtime import AgentOutcome
from findesk.workflows.nodes import State, agent_node, code_basis
from findesk.workflows.research import memory_hooks
from findesk.workflows.research.specialists import SPECIALIST_ROLES
from findesk.workflows.spec import AgentNotes, RunKit

# The runtime's stop codes that mean a cap stopped an agent, shown as "cut short"
_CAPS = frozenset({"budget_exceeded", "max_iterations"})


class ResearchState(TypedDict, total=False):
    question: str
    session: str | None
    user: str
    disclaimer: bool
    as_of: date
    resolved: str  # the question with a follow-up's subject filled in
    carried: Subjects | None  # subjects carried over from the session
    followup: bool
    template: str | None
    rules: coordinator.RoutePlan  # what the explicit rules found
    plan: coordinator.RoutePlan  # what the desk follows (the rules', or a model's with the mandatory routes)
    reports: Annotated[dict[str, SpecialistReport], operator.or_]
    # each desk's report as its code composes it from the same tool results: what a model-written
    # report is checked against, and what replaces it when it states a number no tool gave
    basis: Annotated[dict[str, SpecialistReport], operator.or_]
    conflicts: list[Conflict]
    synthesis: Synthesis
    fallback: Synthesis
    cut_short: Annotated[list[str], operator.add]
    memory_warnings: Annotated[list[str], operator.add]
    agents: AgentNotes


async def input_guard(state: State, runtime: Runtime[RunKit]) -> dict[str, Any]:
    recalled = await memory_hooks.recall(
        runtime.context, state["user"], state.get("session"), state["question"]
    )
    return {
        "resolved": recalled.resolved,
        "carried": recalled.carried,
        "followup": recalled.followup,
        "template": recalled.template,
        "memory_warnings": recalled.warnings,
    }


async def rules(state: State, runtime: Runtime[RunKit]) -> dict[str, Any]:
    """The explicit routing rules (tables of the snapshot's tickers, names, series and coins, loaded
    once per process), with a follow-up's carried subjects."""
    tables = await asyncio.to_thread(load_route_tables, runtime.context.context.snapshot_dir)
    plan = coordinator.with_carried(route(state["resolved"], tables=tables), state.get("carried"))
    return {"rules": plan}


def _route_input(state: State) -> coordinator.RouteInput:
    return coordinator.RouteInput(question=state["resolved"], rules=state["rules"])


def _route(state: State, inputs: coordinator.RouteInput, out: AgentOutcome[Any]) -> dict[str, Any]:
    return {"plan": coordinator.final_plan(inputs, out.output)}


def _after_route(state: State) -> list[str]:
    if state.get("cut_short"):
        return ["synthesize"]
    routed = [agent for agent in state["plan"].intents if agent in SPECIALIST_ROLES]
    return routed or ["synthesize"]


async def budget_check(state: State, runtime: Runtime[RunKit]) -> dict[str, Any]:
    """The abort edge's test: a run whose dollar budget is spent skips the specialists."""
    budget = runtime.context.runtime.budget
    if budget.exhausted and state["plan"].intents:
        names = ", ".join(state["plan"].intents)
        return {
            "cut_short": [
                f"the run's dollar budget (${budget.limit_usd:.2f}) was spent before the {names} desk(s) ran"
            ]
        }
    return {}


def _specialist(agent: str) -> Any:
    role = SPECIALIST_ROLES[agent]

    def inputs(state: State) -> SpecialistInput:
        return SpecialistInput(
            question=state["resolved"],
            as_of=state["as_of"],
            subjects=state["plan"].subjects,
            template=state.get("template"),
        )

    def build(_state: State, given: SpecialistInput, out: AgentOutcome[Any]) -> dict[str, Any]:
        report: SpecialistReport = out.output
        basis = code_basis(role, given, out)
        cut = [f"{agent} desk: {w}" for w in out.warnings] if out.stopped in _CAPS else []
        return {"reports": {agent: report}, "basis": {agent: basis}, "cut_short": cut}

    return agent_node(
        role,
        inputs,
        build,
        progress=lambda update: (agent, update["reports"][agent], update["basis"][agent]),
    )


def _synthesis_input(state: State) -> SynthesisInput:
    reports: dict[str, SpecialistReport] = dict(state.get("reports") or {})
    plan = state["plan"]
    return SynthesisInput(
        question=state["resolved"],
        as_of=state["as_of"],
        plan=plan.plan,
        reports=reports,
        conflicts=find_conflicts(reports),
        cut_short=list(state.get("cut_short") or []),
        unrouted=None if plan.intents else plan.plan,
    )


def _synthesize(state: State, inputs: SynthesisInput, out: AgentOutcome[Any]) -> dict[str, Any]:
    # the fallback answer is built from the desks' code-composed reports, never from model prose
    basis = dict(state.get("basis") or {})
    grounded = inputs.model_copy(update={"reports": basis, "conflicts": find_conflicts(basis)})
    return {
        "conflicts": inputs.conflicts,
        "synthesis": synthesize.normalize(out.output, inputs),
        "fallback": synthesize.compose(grounded, {}),
    }


async def output_guard(state: State, runtime: Runtime[RunKit]) -> dict[str, Any]:
    """Records the turn and the facts the user stated. The guard itself (advice scrub, number trace,
    fallback) runs in the assembler over the run's number pool; the turn keeps the code-built answer's
    first line, so a model's unchecked sentence never reaches a later session."""
    warnings = await memory_hooks.remember(
        runtime.context,
        state["user"],
        state.get("session"),
        question=state["question"],
        resolved=state["resolved"],
        plan=state["plan"],
        answer=state["fallback"].answer,
    )
    return {"memory_warnings": warnings}


def build_graph() -> StateGraph:  # type: ignore[type-arg]
    graph: Any = StateGraph(
        ResearchState
    )  # plain nodes read the runtime context: LangGraph's overloads cannot say so
    graph.add_node("input_guard", input_guard)
    graph.add_node("rules", rules)
    graph.add_node(
        "route",
        agent_node(
            coordinator.ROUTE_ROLE,
            _route_input,
            _route,
            progress=lambda update: ("plan", update["plan"]),
        ),
    )
    graph.add_node("budget_check", budget_check)
    for agent in SPECIALISTS:
        graph.add_node(agent, _specialist(agent))
    graph.add_node("synthesize", agent_node(synthesize.ROLE, _synthesis_input, _synthesize))
    graph.add_node("output_guard", output_guard)
    graph.add_edge(START, "input_guard")
    graph.add_edge("input_guard", "rules")
    graph.add_edge("rules", "route")
    graph.add_edge("route", "budget_check")
    graph.add_conditional_edges("budget_check", _after_route, [*SPECIALISTS, "synthesize"])
    for agent in SPECIALISTS:
        graph.add_edge(agent, "synthesize")
    graph.add_edge("synthesize", "output_guard")
    graph.add_edge("output_guard", END)
    return cast(StateGraph, graph)  # type: ignore[type-arg]
