"""The advisor briefing as a workflow spec: ticker (and an optional client question) in, ``Briefing`` out.

Rules:
- Input guards run before any tool: the question (optional) goes through ``guardrails.input_guard``
  (2,000-character cap, personal data replaced by tokens before it is recorded, refused when it is a
  prompt injection, asks for advice or is off topic); the ticker must be a US listing (any symbol
  with a ``.`` is out of scope).
  With the tools open and before the graph, a ticker no source knows (no company record and no price)
  ends the run with ``not_found`` instead of a briefing made of errors.
- The same graph, sections and guards serve both modes; the mode is chosen per agent from the
  configured models (no key: deterministic, and the audit section says so).
- Sections stream as the sub-agents finish (``stream.SectionStream``); the final briefing reuses the
  guarded parts, so a streamed section equals the same section of the ``done`` result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from findesk.analytics.divergence import verdict_counts
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.context import DataContext
from findesk.data.symbols import normalize_symbol
from findesk.guardrails.advice import MAX_INPUT_CHARS
from findesk.guardrails.input_guard import guard_text
from findesk.tools.base import ToolContext
from findesk.workflows.brief.assemble import assemble, official_part, social_part
from findesk.workflows.brief.graph import build_graph
from findesk.workflows.brief.models import SECTION_NAMES, SECTION_TITLES, Briefing
from findesk.workflows.brief.question import answer_question
from findesk.workflows.brief.render_html import to_html
from findesk.workflows.brief.render_markdown import to_markdown
from findesk.workflows.brief.stream import SectionStream
from findesk.workflows.spec import RunScope, StreamHandler, WorkflowSpec


class BriefingInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ticker: str = Field(min_length=1, description="US ticker, e.g. AAPL")
    question: str | None = Field(None, description="what the client asked (checked: no advice is given)")


def checked_input(symbol: str, question: str | None = None) -> Result[tuple[str, str | None]]:
    """The normalized ticker and the question as the run may use it (personal data replaced), or why
    the request is refused — before any tool is called."""
    if len(symbol) > MAX_INPUT_CHARS:
        return Err(
            ErrorCode.INVALID_INPUT,
            f"the ticker is {len(symbol):,} characters; the cap is {MAX_INPUT_CHARS:,}",
        )
    guarded: str | None = None
    if question is not None:
        checked = guard_text(question)
        if isinstance(checked, Err):
            return checked
        guarded = checked.value.text
    return normalize_symbol(symbol).map(lambda ticker: (ticker, guarded))


def check_input(symbol: str, question: str | None = None) -> Result[str]:
    """The normalized ticker, or why the request is refused (``checked_input`` without the question)."""
    return checked_input(symbol, question).map(lambda pair: pair[0])


def _check(inputs: BriefingInput) -> Result[BriefingInput]:
    checked = checked_input(inputs.ticker, inputs.question)
    if isinstance(checked, Err):
        return checked
    ticker, question = checked.value
    return Ok(inputs.model_copy(update={"ticker": ticker, "question": question}))


async def unknown_symbol(tools: ToolContext, inputs: BriefingInput) -> Err | None:
    """``not_found`` when no source knows the ticker at all (no company record and no price): a
    briefing of nothing but errors would read as if the company existed and the desk had failed."""
    ticker = inputs.ticker
    # the company lookup is a cached directory read; the quote is asked only when it knows nothing,
    # so a known ticker costs the briefing no extra market-data call
    company = await tools.router.company(ticker, tools.as_of)
    if isinstance(company, Ok) or company.code is not ErrorCode.NOT_FOUND:
        return None  # a source that failed or has no data is a warning in the briefing, not "unknown"
    quote = await tools.router.quote(ticker, tools.as_of)
    if isinstance(quote, Ok) or quote.code is not ErrorCode.NOT_FOUND:
        return None
    return Err(
        ErrorCode.NOT_FOUND,
        f"{ticker} is not a US listing known to the data sources ({tools.context.describe()}): no company "
        "record and no price. Check the ticker; findesk covers US listings only (a foreign company may "
        "trade in the US under another ticker, e.g. Nestlé as the ADR NSRGY).",
    )


def _initial(inputs: BriefingInput, context: DataContext) -> dict[str, Any]:
    return {"symbol": inputs.ticker, "as_of": context.as_of, "question": inputs.question}


def _opening(inputs: BriefingInput, context: DataContext) -> dict[str, Any]:
    return {"symbol": inputs.ticker, "as_of": context.as_of.isoformat(), "question": inputs.question or ""}


def _stream(scope: RunScope, _inputs: BriefingInput) -> SectionStream:
    return SectionStream(scope)


def _assemble(state: Mapping[str, Any], scope: RunScope, handler: StreamHandler | None) -> Briefing:
    stream = handler if isinstance(handler, SectionStream) else SectionStream(scope)
    official, social = state["official"], state["social"]
    notes = state.get("agents") or {}
    # the official agent's warnings are already in its part; the others' are added here
    run = scope.facts(state, skip_warnings=("official",))
    # Counts the desk states ("38 posts", "2 divergences") are computed here, so they trace too.
    counts: dict[str, object] = {
        "posts": len(social.posts),
        "divergences": len(state["divergences"]),
        "verdicts": list(verdict_counts(state["divergences"]).values()),
        "flags": len(social.pump_flags),
        "themes": [t.mentions for t in social.themes],
    }
    pool = stream.pool(official, social, state["divergences"], counts)
    official_warnings = list(notes["official"].warnings) if "official" in notes else []
    official_done = stream.official or official_part(official, official_warnings, pool)
    social_done = stream.social or social_part(social, pool)
    briefing = assemble(
        official_done, social_done, state["divergences"], state["notes"], state["fallback_notes"], run, pool
    )
    return briefing.model_copy(update={"question": answer_question(state.get("question"), briefing)})


SPEC: WorkflowSpec[BriefingInput, Briefing] = WorkflowSpec(
    name="brief",
    title="Advisor briefing",
    description=(
        "One-screen advisor briefing: quote, business, events, risks (cited), UNVERIFIED social signal, "
        "divergences and the tool trace. Never investment advice."
    ),
    input_model=BriefingInput,
    report_model=Briefing,
    graph=build_graph,
    initial_state=_initial,
    assemble=_assemble,
    headline=lambda b: b.headline,
    check=_check,
    precheck=unknown_symbol,
    stream=_stream,
    sections=tuple(zip(SECTION_NAMES, SECTION_TITLES, strict=True)),
    renderers={"markdown": lambda b, _details: to_markdown(b), "html": lambda b, _details: to_html(b)},
    cli_arguments=("ticker",),
    opening_inputs=_opening,
    resume_inputs=lambda o: {"ticker": o.get("symbol", ""), "question": o.get("question") or None},
)
