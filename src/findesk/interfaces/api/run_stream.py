"""One workflow run streamed as server-sent events: the code behind ``POST /v1/runs/{workflow}`` and
``POST /v1/brief`` (which maps its body onto the workflow ``brief``).

Rules:
- Everything that can be refused is refused before the stream opens, as a JSON error, in this order:
  who is calling (401), an unknown workflow (404), input the workflow's model rejects or its check
  refuses (400: malformed, out of scope, an advice request), a bad as-of date (400), and only then the
  key's limits (429). A request refused before the last step costs the key nothing and leaves no row.
- Once open, the stream carries the run's events as they happen (``event: <kind>``, ``id: <seq>``,
  ``data: <Event JSON>``) and ends after exactly one ``done`` (the workflow's report) or ``error`` event;
  a quiet stream gets ``: ping`` comments. The same events go to the audit log (committed before the
  stream ends, so ``GET /v1/runs/{id}`` works at once) and to the metrics, labelled by workflow.
- The run's opening event is emitted as the request is accepted; the run itself goes to a worker
  process (``workflows.pool``) when the server has workers, so its CPU-bound analytics never stall
  other clients' streams; without workers it runs here through ``run_workflow`` with the server's open
  tool context.
- The run is a task of its own (``services.run_tasks``), not part of the request: a client that
  disconnects cancels an in-process run (recorded as ``interrupted``) and a run still waiting for a
  worker; a run a worker has started finishes and is recorded. Either way the run's bookkeeping goes
  on without the client.
- Money: a keyed run reserves its model budget (the configured budget, or what is left of the key's
  daily cap if that is less; nothing for a run that cannot reach a model: ``deterministic``, or no
  model configured) as it is admitted, and runs with that budget. When the *run* ends, whenever the
  client left, the reservation is settled to what its model calls cost (its ``llm_call`` events). A
  worker run the server stops waiting for at shutdown may still be spending: it stays charged at
  least its reservation.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import AsyncIterator, Mapping
from concurrent.futures import Future
from datetime import date
from typing import Any

from fastapi import Request
from fastapi.responses import StreamingResponse

from findesk.agents.runtime.outcome import RequestedMode
from findesk.core.access import Admission, record_cost
from findesk.core.config import Settings
from findesk.core.events.model import Event, LlmCall
from findesk.core.events.otel import telemetry_sinks
from findesk.core.events.trace import EventBus, Sink, Tracer, new_run_id
from findesk.core.llm.factory import reservable_budget_usd
from findesk.core.result import Err, Ok
from findesk.interfaces.api.auth import Caller, admit_caller, authenticate
from findesk.interfaces.api.errors import ApiError
from findesk.interfaces.api.metrics import MetricsSink
from findesk.interfaces.api.schemas import ERRORS
from findesk.interfaces.api.services import ApiServices
from findesk.workflows import registry
from findesk.workflows.pool import WorkflowJob, WorkflowPool
from findesk.workflows.runner import RunStart, opening_event, run_attributes, run_workflow
from findesk.workflows.spec import RunCaller

_END = None  # queued after the run's last event
PING_S = 15
log = logging.getLogger("findesk.api")

STREAM_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "text/event-stream of run events (kinds: see /v1/events/registry), "
        "ending with one `done` (result = the workflow's report) or `error` event; "
        "the run id is in the X-Run-Id header",
        "content": {"text/event-stream": {}},
    },
    **ERRORS,
}


class QueueSink:
    """Hands the run's events to the request's stream; safe from worker threads (emits hop onto the
    loop). It also receives the events of the runs the run starts (a pipeline's scan and desks): their
    model cost counts against the key, but only the run's own events are streamed (a child's ``done``
    is not the run's)."""

    child_runs = True

    def __init__(
        self, queue: asyncio.Queue[Event | None], loop: asyncio.AbstractEventLoop, run_id: str | None = None
    ) -> None:
        self._queue = queue
        self._loop = loop
        self._run_id = run_id
        self._thread = threading.get_ident()
        self._detached = False
        self.cost_usd = 0.0  # what the run's model calls cost so far

    def detach(self) -> None:
        """The client left: keep counting the cost, stop queueing events nobody will read."""
        self._detached = True

    def write(self, event: Event) -> None:
        if isinstance(event.data, LlmCall):
            self.cost_usd += event.data.cost_usd
        if self._detached or (self._run_id is not None and event.run_id != self._run_id):
            return
        if threading.get_ident() == self._thread:
            self._queue.put_nowait(event)
        else:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, event)

    def close(self) -> None:
        pass


def sse_frame(event: Event) -> str:
    """One server-sent event: the kind, the sequence number (for Last-Event-ID), the JSON envelope.
    JSON never contains a raw newline, so the data fits on one ``data:`` line."""
    return f"event: {event.type}\nid: {event.seq}\ndata: {event.to_json()}\n\n"


async def _reserve_usd(services: ApiServices, mode: RequestedMode) -> float:
    """What a run may spend on models, reserved against its key's daily cap as it is admitted."""
    if services.models is not None and mode != "deterministic":
        return services.settings.llm.budget_usd  # a test's or plug-in's models: always reachable
    return await reservable_budget_usd(services.settings.llm, deterministic=mode == "deterministic")


def _budgeted(settings: Settings, caller: Caller) -> Settings:
    """The run's settings with its model budget cut to its reservation."""
    if caller.admission is None:
        return settings
    budget = caller.admission.reserved_usd
    if budget >= settings.llm.budget_usd or budget <= 0:
        return settings
    return settings.model_copy(update={"llm": settings.llm.model_copy(update={"budget_usd": budget})})


async def stream_run(
    request: Request,
    workflow: str,
    raw: Mapping[str, Any],
    *,
    as_of: date | None,
    mode: RequestedMode,
) -> StreamingResponse:
    """Refuse the run with a JSON error, or start it and stream its events (see the module's rules)."""
    services: ApiServices = request.app.state.services
    started = time.perf_counter()
    key = await authenticate(request, services)  # 401 before anything (the request gate did it already)
    found = registry.load(workflow)
    if isinstance(found, Err):
        services.metrics.rejected.labels(found.code.value).inc()
        raise ApiError.of(found)
    spec = found.value
    parsed = spec.parse(raw)
    if isinstance(parsed, Err):
        services.metrics.rejected.labels(parsed.code.value).inc()
        raise ApiError.of(parsed)
    # per-user state (memory) belongs to the key: whatever the body said, the run is bound to its caller
    parsed = spec.bind(parsed.value, RunCaller.of_key(key))
    if isinstance(parsed, Err):
        services.metrics.rejected.labels(parsed.code.value).inc()
        raise ApiError.of(parsed)
    raw = parsed.value.model_dump(mode="json") if spec.bind_caller is not None else raw
    context = services.data_context(as_of)
    if isinstance(context, Err):
        raise ApiError.of(context)
    ready = spec.prepared(parsed.value, context.value, services.settings)
    if isinstance(ready, Err):
        services.metrics.rejected.labels(ready.code.value).inc()
        raise ApiError.of(ready)
    parsed, context = Ok(ready.value[0]), Ok(ready.value[1])
    tools = await services.tool_context(context.value)  # cheap once open; also checks the data mode
    if isinstance(tools, Err):
        raise ApiError.of(tools)
    run_id = new_run_id()
    reserve = await _reserve_usd(services, mode)
    # 429 last: a request refused above does not count against the key's limits
    caller = await admit_caller(services, key, costly=True, run_id=run_id, reserve_usd=reserve)

    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Event | None] = asyncio.Queue()
    sink = QueueSink(queue, loop, run_id)
    sinks: list[Sink] = [sink, services.audit, MetricsSink(services.metrics)]
    # the run is opened here, so it is exported here (a worker's events come back to these sinks)
    sinks += telemetry_sinks(
        services.settings, run_id, workflow=spec.name, attributes=run_attributes(context.value)
    )
    # the run's first event goes out now, even if the run waits for a worker
    opening = Tracer(EventBus(sinks), run_id).emit(opening_event(spec, parsed.value, context.value, mode))
    start = RunStart(run_id, opening.id, opening.seq + 1)
    settings = _budgeted(services.settings, caller)

    async def in_process() -> None:
        assert services.runs is not None
        async with services.runs:
            await run_workflow(
                spec,
                parsed.value,
                settings=settings,
                context=context.value,
                sinks=sinks,
                mode=mode,
                models=services.models,
                registry=services.registry,
                tools=tools.value,
                start=start,
            )

    submitted: list[Future[None]] = []  # the worker job, once submitted
    out_of_sight = False  # a worker may still be spending after we stopped waiting (server shutdown)

    async def in_worker(pool: WorkflowPool) -> None:
        nonlocal out_of_sight
        ended = asyncio.Event()
        budget = settings.llm.budget_usd if caller.admission is not None else None
        # the raw JSON input, not the parsed model: the worker validates and checks it the same way
        job = WorkflowJob(spec.name, dict(raw), start, context.value, mode, budget)

        def end() -> None:  # called on the pool's reader thread, after the run's last event
            loop.call_soon_threadsafe(ended.set)

        future = pool.submit(job, sinks, end)
        submitted.append(future)
        try:
            await ended.wait()
        except asyncio.CancelledError:
            # cancel() only takes effect while the job still waits for a worker
            out_of_sight = not future.cancel()
            raise

    async def work() -> None:
        try:
            await (in_worker(services.pool) if services.pool is not None else in_process())
        finally:
            # the run is readable from /v1/runs once the stream ends
            await asyncio.to_thread(services.audit.flush, 10.0)
            if caller.admission is not None:
                await _settle(services, caller.admission, run_id, sink.cost_usd, out_of_sight=out_of_sight)
            loop.call_soon_threadsafe(queue.put_nowait, _END)  # after events the pool hopped over

    task = services.run_tasks.start(work(), name=f"{spec.name}-{run_id}")
    first_event = services.metrics.first_event.labels(spec.name)

    def client_left() -> None:
        sink.detach()
        if submitted:
            submitted[0].cancel()  # stops a run no worker has started yet; a started one finishes
        else:
            task.cancel()  # an in-process run (or one not yet handed to the pool) stops here

    async def stream() -> AsyncIterator[str]:
        services.metrics.in_progress.inc()
        first = True
        try:
            while True:
                try:
                    event = await asyncio.wait_for(queue.get(), PING_S)
                except TimeoutError:
                    yield ": ping\n\n"  # keeps proxies from closing a quiet stream (a slow model turn)
                    continue
                if event is _END:
                    return
                if first:
                    first_event.observe(time.perf_counter() - started)
                    first = False
                yield sse_frame(event)
        finally:
            services.metrics.in_progress.dec()
            if not task.done():
                client_left()

    headers = {"X-Run-Id": run_id, "Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    if caller.admission is not None:
        headers["X-RateLimit-Remaining"] = str(caller.admission.remaining_rpm)
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)


async def _settle(
    services: ApiServices, admission: Admission, run_id: str, spent_usd: float, *, out_of_sight: bool
) -> None:
    """Replace the run's reservation with what it spent (at least the reservation if a worker may
    still be spending). If the key store cannot be written, the reservation stays: charged in full."""
    cost = max(spent_usd, admission.reserved_usd) if out_of_sight else spent_usd
    recorded = await asyncio.to_thread(record_cost, services.keys, admission.request_id, run_id, cost)
    if isinstance(recorded, Err):
        log.warning("run %s: its cost of $%.4f was not recorded: %s", run_id, cost, recorded.reason)
