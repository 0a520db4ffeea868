"""A workflow the API has never heard of, plugged in through ``FINDESK_WORKFLOWS=api_workflow:SPEC``: two
small deterministic agents on real snapshot tools, so the tests prove ``POST /v1/runs/{workflow}`` and
``GET /v1/workflows`` serve any registered spec with no interface code of its own.

``pricer`` reads the quote (``get_quote``); ``namer`` reads the company record (``get_company``) and
writes one note from the pricer's price. The input check refuses a non-US ticker (``out_of_scope``)
before any tool is called. The module lives beside the API tests, whose directory pytest puts on
``sys.path`` — and spawned worker processes inherit that path and the environment, so they load it too.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel, ConfigDict, Field

from findesk.agents.role import DeterministicPolicy, Outcomes, PlannedCall, Role, outcome_value
from findesk.core.events.model import SectionReady
from findesk.core.result import Err, Ok, Result
from findesk.data.context import DataContext
from findesk.data.symbols import normalize_symbol
from findesk.workflows.nodes import agent_node
from findesk.workflows.spec import AgentNotes, RunScope, StreamHandler, WorkflowSpec

NAME = "test"


class PriceIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    symbol: str = Field(min_length=1, max_length=12, description="US ticker, e.g. AAPL")


class PriceNote(BaseModel):
    symbol: str
    price: float | None = None
    session_date: date | None = None
    summary: str


class NameIn(BaseModel):
    symbol: str
    price: float | None = None


class NameNote(BaseModel):
    company: str | None = None
    summary: str


def _price(inputs: PriceIn, outcomes: Outcomes) -> PriceNote:
    quote = outcome_value(outcomes, "quote")
    if quote is None:
        return PriceNote(symbol=inputs.symbol, summary=f"No quote for {inputs.symbol}.")
    return PriceNote(
        symbol=inputs.symbol,
        price=quote.price,
        session_date=quote.session_date,
        summary=f"{inputs.symbol} last closed at ${quote.price:.2f}.",
    )


def _name(inputs: NameIn, outcomes: Outcomes) -> NameNote:
    company = outcome_value(outcomes, "company")
    name = company.name if company is not None else None
    price = f"${inputs.price:.2f}" if inputs.price is not None else "no price"
    return NameNote(company=name, summary=f"{name or inputs.symbol} ({inputs.symbol}): {price}.")


PRICER: Role[PriceIn, PriceNote] = Role(
    name="api_test_pricer",
    description="Reads the quote.",
    system_prompt="Read the quote.",
    tools=("get_quote",),
    input_schema=PriceIn,
    output_schema=PriceNote,
    policy=DeterministicPolicy(
        stages=(lambda i, _o: [PlannedCall("quote", "get_quote", {"symbol": i.symbol})],),
        compose=_price,
    ),
    task=lambda i: f"Quote {i.symbol}.",
)
NAMER: Role[NameIn, NameNote] = Role(
    name="api_test_namer",
    description="Names the company and writes the note.",
    system_prompt="Write the note.",
    tools=("get_company",),
    input_schema=NameIn,
    output_schema=NameNote,
    policy=DeterministicPolicy(
        stages=(lambda i, _o: [PlannedCall("company", "get_company", {"symbol": i.symbol})],),
        compose=_name,
    ),
    task=lambda i: f"Name {i.symbol}.",
)


class NoteReport(BaseModel):
    symbol: str
    price: float | None
    company: str | None
    summary: str
    tool_calls: int
    agents: list[str]


class NoteState(TypedDict, total=False):
    symbol: str
    pricer: PriceNote
    namer: NameNote
    agents: AgentNotes


def _graph() -> StateGraph:  # type: ignore[type-arg]
    g = StateGraph(NoteState)
    g.add_node(
        "pricer",
        agent_node(
            PRICER,
            lambda s: PriceIn(symbol=s["symbol"]),
            lambda _s, _i, out: {"pricer": out.output},
            progress=lambda update: update["pricer"],
        ),
    )
    g.add_node(
        "namer",
        agent_node(
            NAMER,
            lambda s: NameIn(symbol=s["symbol"], price=s["pricer"].price),
            lambda _s, _i, out: {"namer": out.output},
        ),
    )
    g.add_edge(START, "pricer")
    g.add_edge("pricer", "namer")
    g.add_edge("namer", END)
    return g


class _Sections:
    """The pricer's section as soon as it is done, the note when the report is."""

    def __init__(self, scope: RunScope) -> None:
        self.scope = scope

    def update(self, chunk: Any) -> None:
        self.scope.tracer.emit(
            SectionReady(name="price", title="Price", index=1, html=f"<p>{chunk.summary}</p>")
        )

    def finish(self, report: Any) -> None:
        self.scope.tracer.emit(
            SectionReady(name="note", title="Note", index=2, html=f"<p>{report.summary}</p>")
        )


def _check(inputs: PriceIn) -> Result[PriceIn]:
    symbol = normalize_symbol(inputs.symbol)
    if isinstance(symbol, Err):
        return symbol
    return Ok(inputs.model_copy(update={"symbol": symbol.value}))


def _initial(inputs: PriceIn, _context: DataContext) -> dict[str, Any]:
    return {"symbol": inputs.symbol}


def _assemble(state: Mapping[str, Any], scope: RunScope, _h: StreamHandler | None) -> NoteReport:
    facts = scope.facts(state)
    return NoteReport(
        symbol=state["symbol"],
        price=state["pricer"].price,
        company=state["namer"].company,
        summary=state["namer"].summary,
        tool_calls=len(facts.tool_calls),
        agents=[a.name for a in facts.agents],
    )


SPEC: WorkflowSpec[PriceIn, NoteReport] = WorkflowSpec(
    name=NAME,
    title="API test workflow",
    description="Two fake agents (pricer, namer) on the snapshot: the API's plug-in proof.",
    input_model=PriceIn,
    report_model=NoteReport,
    graph=_graph,
    initial_state=_initial,
    assemble=_assemble,
    headline=lambda r: r.summary,
    check=_check,
    stream=lambda scope, _inputs: _Sections(scope),
    sections=(("price", "Price"), ("note", "Note")),
)
