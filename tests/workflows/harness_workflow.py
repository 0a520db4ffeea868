"""A workflow defined outside the package: two fake agents on real snapshot tools, plugged in through
``FINDESK_WORKFLOWS=harness_workflow:SPEC`` — the proof that a new workflow needs no interface code.

``scout`` reads the quote; ``writer`` lists filings and writes one note from the scout's price. With
``HARNESS_KILL_BEFORE_WRITER=1`` the process kills itself (SIGKILL) as the writer starts, after the
scout's step was checkpointed, so a test can resume it.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Mapping
from datetime import date
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel, ConfigDict

from findesk.agents.role import DeterministicPolicy, Outcomes, PlannedCall, Role, outcome_value
from findesk.core.events.model import SectionReady
from findesk.data.context import DataContext
from findesk.workflows.nodes import State, agent_node
from findesk.workflows.spec import AgentNotes, RunScope, StreamHandler, WorkflowSpec

KILL_ENV = "HARNESS_KILL_BEFORE_WRITER"


class TickerIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    symbol: str


class ScoutNote(BaseModel):
    symbol: str
    price: float | None = None
    session_date: date | None = None
    summary: str


class WriterIn(BaseModel):
    symbol: str
    price: float | None = None


class WriterNote(BaseModel):
    filings: int
    summary: str


def _scout_compose(inputs: TickerIn, outcomes: Outcomes) -> ScoutNote:
    quote = outcome_value(outcomes, "quote")
    if quote is None:
        return ScoutNote(symbol=inputs.symbol, summary=f"No quote for {inputs.symbol}.")
    return ScoutNote(
        symbol=inputs.symbol,
        price=quote.price,
        session_date=quote.session_date,
        summary=f"{inputs.symbol} last closed at ${quote.price:.2f}.",
    )


def _writer_compose(inputs: WriterIn, outcomes: Outcomes) -> WriterNote:
    filings = outcome_value(outcomes, "filings") or []
    price = f"${inputs.price:.2f}" if inputs.price is not None else "no price"
    return WriterNote(
        filings=len(filings), summary=f"{inputs.symbol}: {price}; {len(filings)} recent filings."
    )


SCOUT: Role[TickerIn, ScoutNote] = Role(
    name="scout",
    description="Reads the quote.",
    system_prompt="Read the quote.",
    tools=("get_quote",),
    input_schema=TickerIn,
    output_schema=ScoutNote,
    policy=DeterministicPolicy(
        stages=(lambda i, _o: [PlannedCall("quote", "get_quote", {"symbol": i.symbol})],),
        compose=_scout_compose,
    ),
    task=lambda i: f"Quote {i.symbol}.",
)
WRITER: Role[WriterIn, WriterNote] = Role(
    name="writer",
    description="Lists filings and writes the note.",
    system_prompt="Write the note.",
    tools=("list_filings",),
    input_schema=WriterIn,
    output_schema=WriterNote,
    policy=DeterministicPolicy(
        stages=(lambda i, _o: [PlannedCall("filings", "list_filings", {"symbol": i.symbol, "limit": 5})],),
        compose=_writer_compose,
    ),
    task=lambda i: f"Write about {i.symbol}.",
)


class HarnessReport(BaseModel):
    symbol: str
    price: float | None
    filings: int
    summary: str
    tool_calls: int
    agents: list[str]


class HarnessState(TypedDict, total=False):
    symbol: str
    scout: ScoutNote
    writer: WriterNote
    agents: AgentNotes


def _writer_input(state: State) -> WriterIn:
    if os.environ.get(KILL_ENV):
        os.kill(os.getpid(), signal.SIGKILL)  # a crash after the scout's step was checkpointed
    return WriterIn(symbol=state["symbol"], price=state["scout"].price)


def _graph() -> StateGraph:  # type: ignore[type-arg]
    g = StateGraph(HarnessState)
    g.add_node(
        "scout",
        agent_node(
            SCOUT,
            lambda s: TickerIn(symbol=s["symbol"]),
            lambda _s, _i, out: {"scout": out.output},
            progress=lambda update: update["scout"],
        ),
    )
    g.add_node("writer", agent_node(WRITER, _writer_input, lambda _s, _i, out: {"writer": out.output}))
    g.add_edge(START, "scout")
    g.add_edge("scout", "writer")
    g.add_edge("writer", END)
    return g


class _Sections:
    def __init__(self, scope: RunScope) -> None:
        self.scope = scope

    def update(self, chunk: Any) -> None:
        self.scope.tracer.emit(
            SectionReady(name="scout", title="Scout", index=1, html=f"<p>{chunk.summary}</p>")
        )

    def finish(self, report: Any) -> None:
        self.scope.tracer.emit(
            SectionReady(name="note", title="Note", index=2, html=f"<p>{report.summary}</p>")
        )


def _assemble(state: Mapping[str, Any], scope: RunScope, _h: StreamHandler | None) -> HarnessReport:
    facts = scope.facts(state)
    return HarnessReport(
        symbol=state["symbol"],
        price=state["scout"].price,
        filings=state["writer"].filings,
        summary=state["writer"].summary,
        tool_calls=len(facts.tool_calls),
        agents=[a.name for a in facts.agents],
    )


def _initial(inputs: TickerIn, _context: DataContext) -> dict[str, Any]:
    return {"symbol": inputs.symbol.upper()}


SPEC: WorkflowSpec[TickerIn, HarnessReport] = WorkflowSpec(
    name="test",
    title="Harness test",
    description="Two fake agents (scout, writer) on the snapshot: the harness's plug-in proof.",
    input_model=TickerIn,
    report_model=HarnessReport,
    graph=_graph,
    initial_state=_initial,
    assemble=_assemble,
    headline=lambda r: r.summary,
    stream=lambda scope, _inputs: _Sections(scope),
    sections=(("scout", "Scout"), ("note", "Note")),
    renderers={"markdown": lambda r, _d: f"# {r.symbol}\n\n{r.summary}\n"},
    cli_arguments=("symbol",),
)
