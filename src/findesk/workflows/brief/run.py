"""Run one advisor briefing: input guards, the graph, the output guards, one ``done`` or ``error`` event.

Rules:
- Input guards run before any tool: the question (optional) is capped at 2,000 characters and refused
  when it asks for advice; the ticker must be a US listing (any symbol with a ``.`` is out of scope).
  Before the graph, a ticker no source knows (no company record and no price) ends the run with
  ``not_found`` instead of a briefing made of errors.
- A run always ends with exactly one ``done`` (carrying the briefing) or ``error`` event; returns
  ``Err`` instead of raising.
- The same graph, sections and guards serve both modes; the mode is chosen per agent from the
  configured models (no key: deterministic, and the audit section says so).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from findesk.agents.run import settings_runtime
from findesk.agents.runtime import ModelResolver
from findesk.agents.runtime.outcome import RequestedMode
from findesk.analytics.divergence import verdict_counts
from findesk.core.config import Settings
from findesk.core.events.model import AgentEnd, AgentStart, Done, Error
from findesk.core.events.trace import EventBus, MemorySink, Sink, Tracer
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.context import DataContext, resolve_context
from findesk.data.symbols import normalize_symbol
from findesk.guardrails.advice import MAX_INPUT_CHARS, check_request
from findesk.tools.base import ToolContext, ToolRegistry
from findesk.tools.catalog import close_tool_context, open_tool_context
from findesk.workflows.brief import audit
from findesk.workflows.brief.assemble import RunFacts, assemble, official_part, social_part
from findesk.workflows.brief.graph import BriefDeps, build_graph
from findesk.workflows.brief.models import Briefing
from findesk.workflows.brief.question import answer_question
from findesk.workflows.brief.stream import SectionStream


@dataclass(frozen=True)
class RunStart:
    """A briefing whose opening ``agent_start`` was already emitted: the API emits it the moment it
    accepts a run, before a worker process picks the run up; the run continues that sequence."""

    run_id: str
    event_id: str
    next_seq: int


def start_event(symbol: str, as_of: date, question: str | None, mode: RequestedMode) -> AgentStart:
    """The workflow's opening event; every agent, section and tool event of the run nests under it."""
    return AgentStart(
        agent="brief",
        mode=mode,
        mode_reason="as requested; each agent states the mode it ran in",
        inputs={"symbol": symbol, "as_of": as_of.isoformat(), "question": question or ""},
    )


@dataclass
class BriefingRun:
    run_id: str
    context: str
    briefing: Briefing


def check_input(symbol: str, question: str | None = None) -> Result[str]:
    """The normalized ticker, or why the request is refused — before any tool is called."""
    if len(symbol) > MAX_INPUT_CHARS:
        return Err(
            ErrorCode.INVALID_INPUT,
            f"the ticker is {len(symbol):,} characters; the cap is {MAX_INPUT_CHARS:,}",
        )
    if question is not None:
        checked = check_request(question)
        if isinstance(checked, Err):
            return checked
    return normalize_symbol(symbol)


async def run_briefing(
    symbol: str,
    *,
    settings: Settings,
    context: DataContext,
    question: str | None = None,
    sinks: Sequence[Sink] = (),
    mode: RequestedMode = "auto",
    models: ModelResolver | None = None,
    registry: ToolRegistry | None = None,
    run_id: str | None = None,
    tools: ToolContext | None = None,
    start: RunStart | None = None,
) -> Result[BriefingRun]:
    """One briefing as a recorded run. ``tools``: an open tool context to reuse (a server or a batch
    keeps one per process so later briefings are warm); the caller closes it. Without it one is opened
    and closed here. ``start``: the run's opening event was emitted elsewhere (``RunStart``)."""
    began = time.perf_counter()
    memory = MemorySink()
    bus = EventBus([memory, *sinks])
    if start is None:
        tracer = Tracer(bus, run_id)
    else:
        tracer = Tracer(bus, start.run_id, _counter=itertools.count(start.next_seq))
    checked = check_input(symbol, question)
    if isinstance(checked, Err):
        tracer.emit(Error(code=checked.code.value, message=checked.reason))
        return checked
    ticker = checked.value
    opening = (
        start.event_id
        if start is not None
        else tracer.emit(start_event(ticker, context.as_of, question, mode)).id
    )
    workflow = tracer.child(opening)
    if tools is not None:
        opened: Result[ToolContext] = Ok(
            ToolContext(router=tools.router, sections=tools.sections, context=context)
        )
    else:
        opened = await open_tool_context(settings, context)
    if isinstance(opened, Err):
        tracer.emit(Error(code=opened.code.value, message=opened.reason))
        return opened
    unknown = await _unknown_symbol(opened.value, ticker)
    if unknown is not None:
        if tools is None:
            await close_tool_context(opened.value)
        tracer.emit(Error(code=unknown.code.value, message=unknown.reason))
        return unknown
    runtime = settings_runtime(settings, opened.value, models=models, registry=registry)
    deps = BriefDeps(runtime=runtime, tracer=workflow, mode=mode)
    stream = SectionStream(workflow, memory, context, lambda agent: _agent_warnings(deps, agent))
    deps.on_official, deps.on_social = stream.official_ready, stream.social_ready
    try:
        state: dict[str, Any] = await build_graph(deps).ainvoke({"symbol": ticker, "as_of": context.as_of})
        briefing = _briefing(state, deps, memory, stream, context, question)
        stream.finish(briefing)
    except (asyncio.CancelledError, KeyboardInterrupt):
        tracer.emit(Error(code="interrupted", message="the run was interrupted"))
        raise
    except Exception as exc:
        message = f"internal error in the briefing: {type(exc).__name__}: {exc}"
        tracer.emit(Error(code=ErrorCode.UNAVAILABLE.value, message=message))
        return Err(ErrorCode.UNAVAILABLE, message)
    finally:
        if tools is None:
            await close_tool_context(opened.value)
    workflow.emit(
        AgentEnd(
            agent="brief",
            mode=briefing.audit.mode,
            ok=True,
            summary=briefing.headline,
            tool_calls=len(briefing.audit.tool_calls),
            input_tokens=sum(a.input_tokens for a in briefing.audit.agents),
            output_tokens=sum(a.output_tokens for a in briefing.audit.agents),
            cost_usd=sum(a.cost_usd for a in briefing.audit.agents),
            latency_ms=(time.perf_counter() - began) * 1000,
        )
    )
    tracer.emit(Done(result=briefing.model_dump(mode="json"), summary=briefing.headline))
    return Ok(BriefingRun(tracer.run_id, context.describe(), briefing))


async def _unknown_symbol(tools: ToolContext, ticker: str) -> Err | None:
    """``not_found`` when no source knows the ticker at all (no company record and no price): a
    briefing of nothing but errors would read as if the company existed and the desk had failed."""
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


def _agent_warnings(deps: BriefDeps, agent: str) -> list[str]:
    out = deps.outcomes.get(agent)
    return list(out.warnings) if out is not None else []


def _briefing(
    state: dict[str, Any],
    deps: BriefDeps,
    memory: MemorySink,
    stream: SectionStream,
    context: DataContext,
    question: str | None,
) -> Briefing:
    events = list(memory.events)
    official, social = state["official"], state["social"]
    run_id = stream.run_id
    # the official agent's warnings are already in its part; the others' are added here
    warnings = [w for name, out in deps.outcomes.items() if name != "official" for w in out.warnings]
    modes = {out.mode for out in deps.outcomes.values()}
    run = RunFacts(
        run_id=run_id,
        data_mode=context.describe(),
        as_of=context.as_of,
        mode="model" if "model" in modes else "deterministic",
        agents=audit.agent_records(events),
        tool_calls=audit.tool_calls(events),
        warnings=warnings,
        round_trips=audit.model_round_trips(events),
    )
    # Counts the desk states ("38 posts", "2 divergences") are computed here, so they trace too.
    counts: dict[str, object] = {
        "posts": len(social.posts),
        "divergences": len(state["divergences"]),
        "verdicts": list(verdict_counts(state["divergences"]).values()),
        "flags": len(social.pump_flags),
        "themes": [t.mentions for t in social.themes],
    }
    pool = stream.pool(official, social, state["divergences"], counts)
    official_done = stream.official or official_part(official, _agent_warnings(deps, "official"), pool)
    social_done = stream.social or social_part(social, pool)
    briefing = assemble(
        official_done, social_done, state["divergences"], state["notes"], state["fallback_notes"], run, pool
    )
    return briefing.model_copy(update={"question": answer_question(question, briefing)})


def brief(
    symbol: str,
    *,
    as_of: str | date | None = None,
    settings: Settings | None = None,
    mode: RequestedMode = "auto",
    question: str | None = None,
    snapshot: bool | None = None,
) -> Result[Briefing]:
    """The Python API: ``brief("AAPL", as_of="2025-08-29")`` → ``Ok(Briefing)`` or ``Err``.

    Settings come from the environment and config file unless given; ``snapshot`` forces the offline
    snapshot (True) or live sources (False). Not for use inside a running event loop (use
    ``run_briefing``).
    """
    settings = settings or Settings()
    data_mode: Any = None if snapshot is None else ("snapshot" if snapshot else "live")
    day = as_of.isoformat() if isinstance(as_of, date) else as_of
    context = resolve_context(settings, mode=data_mode, as_of=day)
    if isinstance(context, Err):
        return context
    done = asyncio.run(
        run_briefing(symbol, settings=settings, context=context.value, question=question, mode=mode)
    )
    return done.map(lambda run: run.briefing)
