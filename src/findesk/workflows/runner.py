"""The one runner: every workflow and every single-agent run goes through ``run_workflow``.

Rules:
- The envelope is the same for every spec: input validated and checked before any tool is called
  (refusals are an ``error`` event and an ``Err``), the opening ``agent_start`` (the workflow's name and
  inputs), the tool context opened (or an open one reused with this run's as-of date) and closed, the
  spec's precheck, the graph, the assembler, the closing ``agent_end`` and exactly one ``done`` (the
  typed report) or ``error`` event. Returns ``Err`` instead of raising; an interrupt is recorded as
  ``interrupted`` and re-raised.
- Every event also goes to an in-memory sink, from which the assembler reads the tool trace, agent
  records and number pool: the report's audit is the run's own events.
- With a checkpointer the graph's state is saved after every superstep under the run id; ``resume``
  continues a run from its last checkpoint, with its earlier events (read back from the audit log)
  in memory and its event sequence continued, so it ends with the report an uninterrupted run gives.
  A finished run's checkpoints are deleted (the audit log keeps the record).
- A spec's graph is compiled once per process (and per checkpointer).
- With ``[telemetry]`` on, a run is also exported as one OpenTelemetry trace by the process that opens
  it (``core.events.otel``): here unless the opening event was emitted elsewhere (``start``: the API
  server, which exports the runs it hands to workers).
- A spec may ``prepare`` its input and data context (after validation, before the opening event) and
  ``publish`` its report (after assembly, before ``done``).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from findesk.agents.run import settings_runtime
from findesk.agents.runtime import ModelResolver
from findesk.agents.runtime.outcome import RequestedMode
from findesk.core.config import Settings
from findesk.core.events.model import AgentEnd, AgentStart, Done, Error, Event
from findesk.core.events.otel import telemetry_sinks
from findesk.core.events.trace import EventBus, MemorySink, Sink, Tracer
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.context import DataContext
from findesk.tools.base import ToolContext, ToolRegistry
from findesk.tools.catalog import close_tool_context, open_tool_context
from findesk.workflows.spec import RunKit, RunScope, WorkflowSpec

InT = TypeVar("InT", bound=BaseModel)
RepT = TypeVar("RepT", bound=BaseModel)

MODE_REASON = "as requested; each agent states the mode it ran in"
FLUSH_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class RunStart:
    """A run whose opening ``agent_start`` was already emitted: the API emits it the moment it accepts
    a run, before a worker process picks it up; the run continues that sequence."""

    run_id: str
    event_id: str
    next_seq: int


@dataclass(frozen=True)
class Resume:
    """A run to continue from its checkpoint: its earlier events, in order (from the audit log)."""

    events: Sequence[Event]

    def start(self) -> RunStart:
        opening = next(e for e in self.events if e.parent_id is None and isinstance(e.data, AgentStart))
        last = max(e.seq for e in self.events)
        return RunStart(opening.run_id, opening.id, last + 1)


@dataclass
class WorkflowRun(Generic[RepT]):
    run_id: str
    context: str  # "offline snapshot as of 2025-08-29" / "live"
    workflow: str
    report: RepT


def run_attributes(context: DataContext) -> dict[str, str]:
    """The root span's attributes a run's events do not carry (its data mode, its as-of date)."""
    return {"findesk.data_mode": context.mode, "findesk.as_of": context.as_of.isoformat()}


def opening_event(
    spec: WorkflowSpec[Any, Any], inputs: BaseModel, context: DataContext, mode: str
) -> AgentStart:
    """The workflow's opening event; every agent, section and tool event of the run nests under it."""
    return AgentStart(
        agent=spec.name, mode=mode, mode_reason=MODE_REASON, inputs=spec.opening(inputs, context)
    )


_COMPILED: dict[tuple[str, Callable[[], Any]], Any] = {}


def compiled(spec: WorkflowSpec[Any, Any], checkpointer: Any | None = None) -> Any:
    """The spec's graph, compiled once per process; a run's checkpointer is set on a shallow copy, so
    a checkpointed run never recompiles it."""
    # keyed by the graph factory as well as the name: two specs that share a name in one process (test
    # plug-ins, a reloaded plug-in) must never run each other's graph
    key = (spec.name, spec.graph)
    graph = _COMPILED.get(key)
    if graph is None:
        graph = _COMPILED[key] = spec.graph().compile()
    return graph if checkpointer is None else graph.copy(update={"checkpointer": checkpointer})


async def run_workflow(
    spec: WorkflowSpec[InT, RepT],
    raw: InT | Mapping[str, Any],
    *,
    settings: Settings,
    context: DataContext,
    sinks: Sequence[Sink] = (),
    mode: RequestedMode = "auto",
    models: ModelResolver | None = None,
    registry: ToolRegistry | None = None,
    run_id: str | None = None,
    tools: ToolContext | None = None,
    start: RunStart | None = None,
    checkpointer: Any | None = None,
    resume: Resume | None = None,
) -> Result[WorkflowRun[RepT]]:
    """One run of ``spec`` as a recorded run. ``tools``: an open tool context to reuse (a server, a
    worker or the Python API keeps one per process so later runs are warm); the caller closes it.
    ``start``: the opening event was emitted elsewhere. ``checkpointer``: a LangGraph saver (see
    ``workflows.checkpoints``); ``resume``: continue that run from its checkpoint."""
    began = time.perf_counter()
    memory = MemorySink()
    opens_here = start is None  # the process that opens a run exports its trace (``core.events.otel``)
    if resume is not None:
        memory.events.extend(resume.events)
        start = resume.start()
    bus = EventBus([memory, *sinks])
    if start is None:
        tracer = Tracer(bus, run_id)
    else:
        tracer = Tracer(bus, start.run_id, _counter=itertools.count(start.next_seq))
    if opens_here:
        for sink in telemetry_sinks(
            settings,
            tracer.run_id,
            workflow=spec.name,
            attributes=run_attributes(context),
            earlier=resume.events if resume is not None else (),
        ):
            bus.add(sink)
    parsed = spec.parse(raw)
    if isinstance(parsed, Err):
        tracer.emit(Error(code=parsed.code.value, message=parsed.reason))
        return parsed
    ready = spec.prepared(parsed.value, context, settings)
    if isinstance(ready, Err):
        tracer.emit(Error(code=ready.code.value, message=ready.reason))
        return ready
    inputs, context = ready.value
    opening = (
        start.event_id if start is not None else tracer.emit(opening_event(spec, inputs, context, mode)).id
    )
    workflow = tracer.child(opening)
    opened: Result[ToolContext] = (
        Ok(tools.with_context(context)) if tools is not None else await open_tool_context(settings, context)
    )
    if isinstance(opened, Err):
        tracer.emit(Error(code=opened.code.value, message=opened.reason))
        return opened
    try:
        if spec.precheck is not None and resume is None:
            refused = await spec.precheck(opened.value, inputs)
            if refused is not None:
                tracer.emit(Error(code=refused.code.value, message=refused.reason))
                return refused
        runtime = settings_runtime(settings, opened.value, models=models, registry=registry)
        scope = RunScope(tracer.run_id, opening, workflow, memory, context, sections=tuple(spec.sections))
        handler = spec.stream(scope, inputs) if spec.stream is not None else None
        kit = RunKit(
            runtime=runtime,
            tracer=workflow,
            mode=mode,
            context=context,
            durable=_flusher(sinks) if checkpointer is not None else RunKit.durable,
            settings=settings,
        )
        state = await _run_graph(spec, inputs, kit, handler, checkpointer, tracer.run_id, resume is not None)
        report = spec.assemble(state, scope, handler)
        if spec.publish is not None:
            report = spec.publish(inputs, report, settings)
        if handler is not None:
            handler.finish(report)
    except (asyncio.CancelledError, KeyboardInterrupt):
        tracer.emit(Error(code="interrupted", message="the run was interrupted"))
        raise
    except Exception as exc:
        message = f"internal error in {spec.name}: {type(exc).__name__}: {exc}"
        tracer.emit(Error(code=ErrorCode.UNAVAILABLE.value, message=message))
        return Err(ErrorCode.UNAVAILABLE, message)
    finally:
        if tools is None:
            await close_tool_context(opened.value)
    facts = scope.facts(state)
    headline = spec.headline(report)
    workflow.emit(
        AgentEnd(
            agent=spec.name,
            mode=facts.mode,
            ok=True,
            summary=headline,
            tool_calls=len(facts.tool_calls),
            input_tokens=sum(a.input_tokens for a in facts.agents),
            output_tokens=sum(a.output_tokens for a in facts.agents),
            cost_usd=sum(a.cost_usd for a in facts.agents),
            latency_ms=(time.perf_counter() - began) * 1000,
        )
    )
    tracer.emit(Done(result=report.model_dump(mode="json"), summary=headline))
    if checkpointer is not None:
        from findesk.workflows.checkpoints import delete_run

        await delete_run(checkpointer, tracer.run_id)  # the audit log keeps the record
    return Ok(WorkflowRun(tracer.run_id, context.describe(), spec.name, report))


def _flusher(sinks: Sequence[Sink]) -> Callable[[], Awaitable[None]]:
    """Waits until every event so far is committed by the sinks that commit (the audit log)."""
    durable = [s for s in sinks if callable(getattr(s, "flush", None))]

    async def flush() -> None:
        for sink in durable:
            await asyncio.to_thread(sink.flush, FLUSH_TIMEOUT_S)  # type: ignore[attr-defined]

    return flush


async def _run_graph(
    spec: WorkflowSpec[Any, Any],
    inputs: BaseModel,
    kit: RunKit,
    handler: Any,
    checkpointer: Any | None,
    run_id: str,
    resuming: bool,
) -> dict[str, Any]:
    graph = compiled(spec, checkpointer)
    config: dict[str, Any] = {"configurable": {"thread_id": run_id}} if checkpointer is not None else {}
    first = None if resuming else spec.initial_state(inputs, kit.context)
    state: dict[str, Any] = {}
    # checkpoints.DURABILITY ("sync"): a superstep's checkpoint is committed before the next step
    # starts, so a process killed mid-graph resumes after the last finished step, not before it
    durability = None
    if checkpointer is not None:
        from findesk.workflows.checkpoints import DURABILITY

        durability = DURABILITY
    stream = graph.astream(
        first, config, context=kit, stream_mode=["custom", "values"], durability=durability
    )
    async for kind, chunk in stream:
        if kind == "values":
            state = chunk
        elif handler is not None:
            handler.update(chunk)
    return state
