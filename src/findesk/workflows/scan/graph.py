"""The market scanner as a LangGraph state graph:
``(geopolitical | movers | sectors, in parallel) → industries → synthesis``.

Rules:
- Phase 1: the three analysts run in one superstep, concurrently; each writes its own key.
- Phase 2: the industry deep dive covers the top 3 sectors the sector board ranks
  (``analytics.scan.sectors.top_sectors``), decided by code. Without a sector board it does not run
  and its report says ``no_data`` with the reason.
- Phase 3: ``scan_synthesis`` reads the four reports; when the boards hold fewer than the 8 candidates
  a synthesis needs, it does not run and the state says why (never a short or padded list).
- A model's output is held to code by each role's ``normalize`` (``nodes.held``); the code-built
  version of every output is kept under ``basis`` for the output guard.
- State is serializable (typed models, dates, plain containers), so a run is checkpointed and resumes.
"""

from __future__ import annotations

import operator
from datetime import date
from typing import Annotated, Any, TypedDict, cast

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from pydantic import BaseModel

from findesk.agents.role import Role
from findesk.agents.roles.scan import geopolitical, industries, movers, sectors, synthesis
from findesk.agents.roles.scan.models import (
    GeopoliticalReport,
    IndustryReport,
    MoversReport,
    SectorReport,
    SynthesisReport,
)
from findesk.agents.runtime import AgentOutcome
from findesk.analytics.scan.candidates import MIN_PICKS
from findesk.analytics.scan.sectors import top_sectors
from findesk.workflows.nodes import State, agent_node, held
from findesk.workflows.spec import AgentNote, AgentNotes, RunKit

PHASE1 = ("geopolitical", "movers", "sectors")
PHASES = (*PHASE1, "industries")
TOP_SECTORS = 3


class ScanState(TypedDict, total=False):
    day: date
    geopolitical: GeopoliticalReport
    movers: MoversReport
    sectors: SectorReport
    top_sectors: list[str]
    industries: IndustryReport
    synthesis: SynthesisReport | None
    synthesis_note: str | None
    agents: AgentNotes
    # each role's output as code composes it from the same tool results (a model's is held to it)
    basis: Annotated[dict[str, Any], operator.or_]


def _normalizer(module: Any) -> Any:
    found = getattr(module, "normalize", None)
    return found if callable(found) else (lambda out, _given, _basis: out)


def _empty_input(role: Role[Any, Any]) -> Any:
    return lambda _state: role.input_schema.model_validate({})


def _phase(key: str, module: Any) -> Any:
    role: Role[Any, Any] = module.ROLE

    def build(_state: State, given: BaseModel, out: AgentOutcome[Any]) -> dict[str, Any]:
        report, basis = held(role, given, out, _normalizer(module))
        return {key: report, "basis": {key: basis}}

    return agent_node(role, _empty_input(role), build, progress=lambda u: (key, u[key]))


def _industry_input(sector_names: list[str]) -> BaseModel:
    schema = industries.ROLE.input_schema
    field = next((n for n in schema.model_fields if "sector" in n), "sectors")
    return cast(BaseModel, schema.model_validate({field: sector_names}))


async def _industries(state: State, runtime: Runtime[RunKit]) -> dict[str, Any]:
    kit = runtime.context
    board = state["sectors"].board
    top = top_sectors(board, n=TOP_SECTORS) if board is not None else []
    if not top:
        why = state["sectors"].summary if board is None else "the sector board ranks no sector"
        report = IndustryReport(status="no_data", summary=f"No industry deep dive: {why}")
        update: dict[str, Any] = {"industries": report, "top_sectors": [], "basis": {"industries": report}}
        update["agents"] = {industries.ROLE.name: AgentNote(mode="deterministic", warnings=[report.summary])}
    else:
        given = _industry_input(top)
        out = await kit.runtime.run(industries.ROLE, given, kit.tracer, mode=kit.mode)
        report, basis = held(industries.ROLE, given, out, _normalizer(industries))
        update = {"industries": report, "top_sectors": top, "basis": {"industries": basis}}
        update["agents"] = {industries.ROLE.name: AgentNote(mode=out.mode, warnings=list(out.warnings))}
    runtime.stream_writer(("industries", update["industries"]))
    await kit.durable()
    return update


def synthesis_input(state: State) -> synthesis.SynthesisInput:
    return synthesis.SynthesisInput(
        geopolitical=state["geopolitical"],
        movers=state["movers"],
        sectors=state["sectors"],
        industries=state["industries"],
    )


async def _synthesis(state: State, runtime: Runtime[RunKit]) -> dict[str, Any]:
    kit = runtime.context
    given = synthesis_input(state)
    update: dict[str, Any]
    if not synthesis.enough(given):
        note = (
            f"synthesis: no_data: the phase 1-2 boards hold fewer than {MIN_PICKS} "
            "candidates under the documented rules; no list is given rather than a short or invented one"
        )
        update = {"synthesis": None, "synthesis_note": note}
        update["agents"] = {synthesis.NAME: AgentNote(mode="deterministic", warnings=[note])}
    else:
        out = await synthesis.run(kit.runtime, given, kit.tracer, kit.mode)
        report, basis = held(synthesis.ROLE, given, out, synthesis.normalize)
        update = {
            "synthesis": synthesis.plain(report),
            "synthesis_note": None,
            "basis": {"synthesis": synthesis.plain(basis)},
            "agents": {synthesis.NAME: AgentNote(mode=out.mode, warnings=list(out.warnings))},
        }
    runtime.stream_writer(("synthesis", update["synthesis"]))
    await kit.durable()
    return update


def build_graph() -> StateGraph:  # type: ignore[type-arg]
    graph: Any = StateGraph(ScanState)
    for key, module in zip(PHASE1, (geopolitical, movers, sectors), strict=True):
        graph.add_node(key, _phase(key, module))
        graph.add_edge(START, key)
    graph.add_node("industries", _industries)
    graph.add_node("synthesis", _synthesis)
    graph.add_edge(list(PHASE1), "industries")  # a join: phase 2 starts when phase 1 is done
    graph.add_edge("industries", "synthesis")
    graph.add_edge("synthesis", END)
    return cast(StateGraph, graph)  # type: ignore[type-arg]
