"""Every workflow the tests plug in through ``FINDESK_WORKFLOWS``, in one module: ``plugin_env("GATED")``
(or ``target("API")`` in process) names one.

- ``HARNESS`` ("test"): scout (quote) then writer (filings): the CLI's and the Python API's plug-in
  proof; with ``HARNESS_KILL_BEFORE_WRITER=1`` the process kills itself (SIGKILL) as the writer starts,
  after the scout's step was checkpointed, so a test can resume the run.
- ``API`` ("test"): pricer (quote) then namer (company record), US tickers only: the HTTP API's proof.
- ``GATED`` ("gated"): one agent that reads the quote, writes its process id to
  ``$GATED_WORKFLOW_DIR/<gate>.pid`` (the worker to kill) and waits for the file
  ``$GATED_WORKFLOW_DIR/<gate>`` (at most ``MAX_WAIT_S``: a forgotten gate fails a test, never hangs it).
- ``PAGE_ECHO`` ("page_echo") and ``HOSTILE_LINKS`` ("hostile_links"): hostile on purpose, for the
  browser tests. Every string they hand the page carries a payload, and the html of their ``raw``
  section is NOT sanitized, so the page's own allow-list is the only fence it meets.

Rules:
- The module lives at the root of ``tests/``, which pytest puts on ``sys.path`` for every test (the root
  conftest is there); spawned worker processes inherit ``sys.path`` and the environment, and a
  subprocess (``findesk serve``, the CLI) gets the folder on ``PYTHONPATH`` from ``plugin_env``. One
  target string therefore loads the same workflow in every process.
- The boilerplate is written once: ``one_call`` (a deterministic role of one tool call), ``step`` (its
  graph node, the output kept under ``notes[<role>]``), ``line`` (nodes run one after the other on the
  one ``State``), ``Sections`` (a stream handler from functions) and ``spec`` (the spec's defaults:
  the checked input as the initial state).
- Models are module-level pydantic classes, so a checkpoint store allows them
  (``WorkflowSpec.state_classes``) and a test can validate a report against them.
"""

from __future__ import annotations

import html
import operator
import os
import signal
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict, TypeVar

from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel, ConfigDict, Field

from findesk.agents.role import DeterministicPolicy, Outcomes, PlannedCall, Role, outcome_value
from findesk.core.events.model import SectionReady
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.context import DataContext
from findesk.data.symbols import normalize_symbol
from findesk.workflows.nodes import Node, agent_node
from findesk.workflows.nodes import State as NodeState
from findesk.workflows.registry import PLUGINS_ENV
from findesk.workflows.spec import AgentNotes, RunScope, StreamHandler, WorkflowSpec

TESTS_DIR = Path(__file__).parent
KILL_ENV = "HARNESS_KILL_BEFORE_WRITER"
GATE_ENV = "GATED_WORKFLOW_DIR"
MAX_WAIT_S = 60.0

In = TypeVar("In", bound=BaseModel)
Out = TypeVar("Out", bound=BaseModel)


def target(name: str) -> str:
    """The ``FINDESK_WORKFLOWS`` entry of the spec called ``name`` in this module."""
    return f"{__name__}:{name}"


def plugin_env(*names: str) -> dict[str, str]:
    """What a subprocess needs to load these specs: ``FINDESK_WORKFLOWS`` and ``PYTHONPATH``."""
    path = os.pathsep.join(p for p in (str(TESTS_DIR), os.environ.get("PYTHONPATH", "")) if p)
    return {PLUGINS_ENV: ",".join(target(n) for n in names), "PYTHONPATH": path}


# --- the shared boilerplate ---------------------------------------------------------------------------


class State(TypedDict, total=False):
    inputs: Any  # the checked input model
    notes: Annotated[dict[str, Any], operator.or_]  # each step's output, by step name
    agents: AgentNotes


def one_call(
    name: str,
    does: str,
    tool: str,
    args: Callable[[In], dict[str, Any]],
    compose: Callable[[In, Outcomes], Out],
    schemas: tuple[type[In], type[Out]],
) -> Role[In, Out]:
    """A deterministic role that makes one call of ``tool`` (its outcome keyed by the tool's name)."""
    return Role(
        name=name,
        description=does,
        system_prompt=does,
        tools=(tool,),
        input_schema=schemas[0],
        output_schema=schemas[1],
        policy=DeterministicPolicy(
            stages=(lambda i, _o: [PlannedCall(tool, tool, args(i))],), compose=compose
        ),
        task=lambda i: f"{does} {i.model_dump_json()}",
    )


def step(role: Role[Any, Any], given: Callable[[NodeState], BaseModel], *, progress: bool = False) -> Node:
    """The graph node running ``role``: its output goes to ``notes[role.name]`` (and, with
    ``progress``, to the stream handler's ``update`` as soon as it is ready)."""
    return agent_node(
        role,
        given,
        lambda _s, _i, out: {"notes": {role.name: out.output}},
        progress=(lambda update: update["notes"][role.name]) if progress else None,
    )


def line(*nodes: Node) -> Callable[[], StateGraph]:  # type: ignore[type-arg]
    """A graph running ``nodes`` one after the other (named after their functions)."""

    def graph() -> StateGraph:  # type: ignore[type-arg]
        g = StateGraph(State)
        names = [n.__name__ for n in nodes]
        for name, node in zip(names, nodes, strict=True):
            g.add_node(name, node)
        for before, after in zip([START, *names], [*names, END], strict=True):
            g.add_edge(before, after)
        return g

    return graph


def paragraph(name: str, title: str, index: int, text: str) -> SectionReady:
    return SectionReady(name=name, title=title, index=index, html=f"<p>{text}</p>")


@dataclass
class Sections:
    """A stream handler: the sections ``on_update`` makes of a progress chunk, then those ``on_finish``
    makes of the report."""

    scope: RunScope
    on_update: Callable[[Any], list[SectionReady]]
    on_finish: Callable[[Any], list[SectionReady]]

    def update(self, chunk: Any) -> None:
        for section in self.on_update(chunk):
            self.scope.tracer.emit(section)

    def finish(self, report: Any) -> None:
        for section in self.on_finish(report):
            self.scope.tracer.emit(section)


def sections(
    on_finish: Callable[[Any], list[SectionReady]],
    on_update: Callable[[Any], list[SectionReady]] = lambda _c: [],
) -> Callable[[RunScope, Any], StreamHandler]:
    return lambda scope, _given: Sections(scope, on_update, on_finish)


def _inputs(given: BaseModel, _context: DataContext) -> dict[str, Any]:
    return {"inputs": given}


def spec(
    name: str,
    title: str,
    description: str,
    models: tuple[type[In], type[Out]],
    graph: Callable[[], StateGraph],  # type: ignore[type-arg]
    assemble: Callable[[Mapping[str, Any], RunScope, StreamHandler | None], Out],
    **options: Any,
) -> WorkflowSpec[In, Out]:
    """A spec whose initial state is its checked input (``state["inputs"]``); ``options`` as in
    ``WorkflowSpec`` (the headline defaults to the report's ``summary``)."""
    options.setdefault("headline", lambda r: r.summary)
    return WorkflowSpec(
        name=name,
        title=title,
        description=description,
        input_model=models[0],
        report_model=models[1],
        graph=graph,
        initial_state=_inputs,
        assemble=assemble,
        **options,
    )


# --- HARNESS and API: a quote, then a second agent that writes the note --------------------------------


class SymbolIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    symbol: str = Field(min_length=1, max_length=12, description="US ticker, e.g. AAPL")


class QuoteNote(BaseModel):
    symbol: str
    price: float | None = None
    session_date: date | None = None
    summary: str


class PricedIn(BaseModel):
    symbol: str
    price: float | None = None


class Note(BaseModel):
    summary: str
    filings: int | None = None  # the writer's
    company: str | None = None  # the namer's


class NoteReport(BaseModel):
    symbol: str
    price: float | None
    summary: str
    tool_calls: int
    agents: list[str]
    filings: int | None = None
    company: str | None = None


def _quote_note(given: SymbolIn, outcomes: Outcomes) -> QuoteNote:
    quote = outcome_value(outcomes, "get_quote")
    if quote is None:
        return QuoteNote(symbol=given.symbol, summary=f"No quote for {given.symbol}.")
    summary = f"{given.symbol} last closed at ${quote.price:.2f}."
    return QuoteNote(symbol=given.symbol, price=quote.price, session_date=quote.session_date, summary=summary)


def _price(given: PricedIn) -> str:
    return f"${given.price:.2f}" if given.price is not None else "no price"


def _filings_note(given: PricedIn, outcomes: Outcomes) -> Note:
    filings = len(outcome_value(outcomes, "list_filings") or [])
    return Note(filings=filings, summary=f"{given.symbol}: {_price(given)}; {filings} recent filings.")


def _company_note(given: PricedIn, outcomes: Outcomes) -> Note:
    company = outcome_value(outcomes, "get_company")
    name = company.name if company is not None else None
    return Note(company=name, summary=f"{name or given.symbol} ({given.symbol}): {_price(given)}.")


def _us_symbol(given: SymbolIn) -> Result[SymbolIn]:
    symbol = normalize_symbol(given.symbol)
    if isinstance(symbol, Err):
        return symbol
    return Ok(given.model_copy(update={"symbol": symbol.value}))


def _quote_then_note(
    name: str,
    title: str,
    roles: tuple[Role[SymbolIn, QuoteNote], Role[PricedIn, Note]],
    shown: tuple[tuple[str, str], tuple[str, str]],
    *,
    before_note: Callable[[], None] = lambda: None,
    **options: Any,
) -> WorkflowSpec[SymbolIn, NoteReport]:
    """The quote agent, then the note agent on its price; the quote's section streams as soon as it is
    ready, the note's with the report."""
    first, second = roles

    def note_input(state: NodeState) -> PricedIn:
        before_note()
        return PricedIn(symbol=state["inputs"].symbol, price=state["notes"][first.name].price)

    def assemble(state: Mapping[str, Any], scope: RunScope, _h: StreamHandler | None) -> NoteReport:
        facts, note = scope.facts(state), state["notes"][second.name]
        return NoteReport(
            symbol=state["inputs"].symbol,
            price=state["notes"][first.name].price,
            tool_calls=len(facts.tool_calls),
            agents=[a.name for a in facts.agents],
            **note.model_dump(),
        )

    (quote_key, quote_title), (note_key, note_title) = shown
    return spec(
        name,
        title,
        f"Two fake agents ({first.name}, {second.name}) on the snapshot: a plug-in proof.",
        (SymbolIn, NoteReport),
        line(step(first, lambda s: s["inputs"], progress=True), step(second, note_input)),
        assemble,
        check=_us_symbol,
        stream=sections(
            lambda report: [paragraph(note_key, note_title, 2, report.summary)],
            lambda chunk: [paragraph(quote_key, quote_title, 1, chunk.summary)],
        ),
        sections=shown,
        **options,
    )


def _quote_role(name: str) -> Role[SymbolIn, QuoteNote]:
    return one_call(
        name,
        "Reads the quote.",
        "get_quote",
        lambda i: {"symbol": i.symbol},
        _quote_note,
        (SymbolIn, QuoteNote),
    )


def _kill_if_asked() -> None:
    if os.environ.get(KILL_ENV):
        os.kill(os.getpid(), signal.SIGKILL)  # a crash after the scout's step was checkpointed


HARNESS = _quote_then_note(
    "test",
    "Harness test",
    (
        _quote_role("scout"),
        one_call(
            "writer",
            "Lists filings and writes the note.",
            "list_filings",
            lambda i: {"symbol": i.symbol, "limit": 5},
            _filings_note,
            (PricedIn, Note),
        ),
    ),
    (("scout", "Scout"), ("note", "Note")),
    before_note=_kill_if_asked,
    renderers={"markdown": lambda r, _d: f"# {r.symbol}\n\n{r.summary}\n"},
    cli_arguments=("symbol",),
)
API = _quote_then_note(
    "test",
    "API test workflow",
    (
        _quote_role("api_test_pricer"),
        one_call(
            "api_test_namer",
            "Names the company and writes the note.",
            "get_company",
            lambda i: {"symbol": i.symbol},
            _company_note,
            (PricedIn, Note),
        ),
    ),
    (("price", "Price"), ("note", "Note")),
)


# --- GATED: a run in flight until the test lets it finish ----------------------------------------------


class GateIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gate: str = Field(pattern=r"^[a-z0-9_-]{1,40}$", description="the file name that lets the run finish")
    symbol: str = "AAPL"


class GateNote(BaseModel):
    gate: str
    pid: int  # the worker process that ran it
    summary: str


def _wait_and_write(given: GateIn, outcomes: Outcomes) -> GateNote:
    folder = os.environ.get(GATE_ENV)
    if folder:
        Path(folder, f"{given.gate}.pid").write_text(str(os.getpid()))
        deadline = time.monotonic() + MAX_WAIT_S
        while not (Path(folder) / given.gate).exists() and time.monotonic() < deadline:
            time.sleep(0.02)
    quote = outcome_value(outcomes, "get_quote")
    price = f"${quote.price:.2f}" if quote is not None else "no price"
    return GateNote(gate=given.gate, pid=os.getpid(), summary=f"{given.symbol} {price} ({given.gate})")


WAITER = one_call(
    "gated_waiter",
    "Reads the quote, then waits for its gate.",
    "get_quote",
    lambda i: {"symbol": i.symbol},
    _wait_and_write,
    (GateIn, GateNote),
)
GATED = spec(
    "gated",
    "Gated test workflow",
    "One fake agent that waits for a file: the crash tests' run in flight.",
    (GateIn, GateNote),
    line(step(WAITER, lambda s: s["inputs"])),
    lambda state, _scope, _h: state["notes"][WAITER.name],
)


# --- PAGE_ECHO and HOSTILE_LINKS: hostile on purpose -------------------------------------------------


def xss(n: int) -> str:
    """A payload numbered after where it is: it sets ``window.__pwned`` if it ever runs."""
    return f'<img src=x onerror="window.__pwned = {n}"><script>window.__pwned = {n}</script>'


def img(n: int) -> str:
    """A payload that calls ``alert`` if it ever runs."""
    return f'<img src=x onerror="alert({n})">'


class EchoInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(description="Echoed back. " + xss(10))
    times: int = Field(1, ge=1, le=3, description="How many times")
    shout: bool = False
    day: date | None = None
    tone: Literal["plain", "loud"] = "plain"
    extra: dict[str, Any] | None = None


class EchoReport(BaseModel):
    echo: str
    summary: str
    inputs: EchoInput
    warnings: list[str]


def echo(state: NodeState) -> dict[str, Any]:
    given: EchoInput = state["inputs"]
    text = " ".join([given.text] * given.times)
    return {"notes": {"echo": text.upper() if given.shout else text}}


def _echo_sections(report: EchoReport) -> list[SectionReady]:
    # "raw" first, though the listing puts it second; its html is NOT sanitized (the page's fence)
    raw = "<p>kept</p>" + xss(11) + '<a href="javascript:window.__pwned = 12">js link</a>'
    escaped = "<p>" + html.escape(report.echo) + "</p>"
    return [
        SectionReady(name="raw", title="Raw " + xss(13), index=2, html=raw),
        SectionReady(name="echo", title="Echo " + xss(14), index=1, html=escaped),
    ]


def _refuse_on_request(given: EchoInput) -> Result[EchoInput]:
    if given.text.startswith("refuse"):
        return Err(ErrorCode.INVALID_INPUT, "page_echo refuses " + given.text)
    return Ok(given)


PAGE_ECHO = spec(
    "page_echo",
    "Echo " + xss(17),
    "Echoes its input. " + xss(18),
    (EchoInput, EchoReport),
    line(echo),
    lambda state, _scope, _h: EchoReport(
        echo=state["notes"]["echo"], summary="Summary " + xss(15), inputs=state["inputs"], warnings=[xss(16)]
    ),
    headline=lambda r: r.echo,
    check=_refuse_on_request,
    stream=sections(_echo_sections),
    sections=(("echo", "Echo"), ("raw", "Raw")),
)

# Link schemes that must never become a link (the raw href as an attacker would write it).
BAD_HREFS = (
    "javascript:alert(1)",
    "JaVaScRiPt:alert(2)",
    " \t javascript:alert(3)",
    "java\tscript:alert(4)",
    "java\nscript:alert(5)",
    "\x01javascript:alert(6)",
    "&#106;avascript:alert(7)",
    "&#x6A;&#x61;vascript:alert(8)",
    "javascript&colon;alert(9)",
    "jav&#x09;ascript:alert(10)",
    "data:text/html,<script>alert(11)</script>",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxMik8L3NjcmlwdD4=",
    "vbscript:msgbox(13)",
    "VBScript:msgbox(14)",
    "file:///etc/passwd",
    "mailto:someone@example.com",
    "//evil.example/15",
    "/v1/keys",
    "#/runs/abcd",
    "#source-1x",
    "",
)

# The raw section: markup an attacker controls, sent to the page unsanitized.
RAW_LINKS = "".join(f'<p><a href="{h}" title="bad {i}">bad link {i}</a></p>' for i, h in enumerate(BAD_HREFS))
RAW_HTML = (
    "<p>raw start</p>"
    + RAW_LINKS
    + '<p><a href="https://ok.example/good">good link</a> <a href="HTTPS://OK.EXAMPLE/UP">upper link</a>'
    + ' <a href="#source-1">[1]</a></p>'
    + f"<p>{img(801)}<script>alert(802)</script></p>"
    + '<p title="x" onmouseover="alert(803)" style="background:url(javascript:alert(804))">handlers</p>'
    + '<p><a href="https://ok.example/" onclick="alert(805)" style="color:red" target="_self">styled</a></p>'
    + '<svg><a xlink:href="javascript:alert(806)"><text>svg link</text></a></svg>'
    + '<math><mi href="javascript:alert(807)">math link</mi></math>'
    + '<form action="javascript:alert(808)"><button formaction="javascript:alert(809)">go</button></form>'
    + '<iframe srcdoc="<script>alert(810)</script>"></iframe><object data="javascript:alert(811)"></object>'
    + '<embed src="javascript:alert(812)"><meta http-equiv="refresh" content="0;url=javascript:alert(813)">'
    + '<base href="javascript:alert(814)//"><link rel="stylesheet" href="data:text/css,body{display:none}">'
    + "<style>body{display:none}</style>"
    + '<details open ontoggle="alert(815)"><summary>toggle</summary>inside</details>'
    + '<p id="run-result" class="x&quot; onclick=&quot;alert(816)">clobber</p>'
    + '<a href="javascript:alert(817)"><p>nested block link</p></a>'
    + '<noscript><p title="</noscript><img src=x onerror=alert(818)>"></p></noscript>'
    + "<p>raw end</p>"
)


class LinksInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str


class LinksReport(BaseModel):
    echo: str
    summary: str
    links: list[str]
    warnings: list[str]


def noop(_state: NodeState) -> dict[str, Any]:
    return {}


def _links_report(state: Mapping[str, Any], _scope: RunScope, _h: StreamHandler | None) -> LinksReport:
    text = state["inputs"].text
    return LinksReport(
        echo=text, summary="Summary " + text, links=list(BAD_HREFS), warnings=["Warned " + text]
    )


HOSTILE_LINKS = spec(
    "hostile_links",
    "Hostile links",
    "Sends a section of raw, unsanitized markup.",
    (LinksInput, LinksReport),
    line(noop),
    _links_report,
    headline=lambda r: r.echo,
    stream=sections(
        lambda report: [SectionReady(name="raw", title="Raw " + report.echo, index=1, html=RAW_HTML)]
    ),
    sections=(("raw", "Raw"),),
)


# --- ALIASED: the harness workflow under another name, with a further CLI command name ------------------

ALIASED = replace(HARNESS, name="aliased", aliases=("aliased-too",))
