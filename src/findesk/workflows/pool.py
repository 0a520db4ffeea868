"""Workflow runs in worker processes, their events streamed back as they happen.

Rules:
- A run's analytics are CPU-bound (a briefing's claims, pump-bot scores, number pools: about half a
  second of one core). In a server they would block its event loop, so every other client would wait;
  here they run in ``workers`` processes (``spawn``ed, so no thread state is forked) and the caller's
  loop only forwards events.
- A job names its workflow; the worker resolves the spec through ``workflows.registry.load``, so any
  registered workflow or agent runs here. Plug-ins (``FINDESK_WORKFLOWS``) reach the workers through
  the environment and ``sys.path`` they inherit when spawned.
- Workers run at a lower CPU priority (``nice`` +10) than the server, so the server's event loop
  answers and streams at once however busy the workers are.
- Each worker keeps one open tool context per data mode for its life and one event loop, so its runs
  are warm and live HTTP clients stay on the loop they were made on.
- Events cross as JSON on one queue, tagged with the run id; the run's end is an explicit marker on the
  same queue, so no event is lost or reordered behind it. A worker that dies mid-run ends its runs
  with an ``error`` event (``unavailable``), never a silent hang, and the next ``submit`` replaces the
  broken generation (and its queue, whose lock the dead worker may hold) with a new one. A run
  cancelled before a worker started it ends with ``interrupted``.
- The caller emits the run's opening event itself (``RunStart``) so a queued run is visible at once;
  the worker continues that event sequence, including for a refusal (unknown workflow, tools that do
  not open).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from queue import Empty
from typing import Any

from findesk.agents.runtime.outcome import RequestedMode
from findesk.core.config import Settings
from findesk.core.events.model import Error, Event
from findesk.core.events.trace import CallbackSink, EventBus, Sink, Tracer
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.context import DataContext
from findesk.tools.base import ToolContext
from findesk.tools.catalog import open_tool_context
from findesk.workflows import registry
from findesk.workflows.runner import RunStart, run_workflow

_END = ""  # payload marking the end of a run's events
_POLL_S = 0.2  # how often the reader looks up from an empty queue to see if it must stop
WORKER_NICENESS = 10


@dataclass(frozen=True)
class WorkflowJob:
    workflow: str  # a registry name: "brief", "agents.quote_filings", a plug-in's name
    inputs: dict[str, Any]  # the input as JSON; the runner validates and checks it again in the worker
    start: RunStart
    context: DataContext
    mode: RequestedMode
    budget_usd: float | None  # caps the run's model budget (what is left of a key's daily cap)


# -- in the worker -----------------------------------------------------------------------------

_worker: dict[str, Any] = {}


def _init_worker(settings: Settings, queue: Any) -> None:
    # Workers yield the CPU to the server process: accepting requests and streaming events must not
    # wait behind another client's analytics. On an idle machine this costs nothing.
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
    _worker.update(settings=settings, queue=queue, loop=asyncio.new_event_loop(), tools={})
    # import the registered workflows (LangGraph, the roles) as the worker starts, not in a client's
    # first run; one that cannot load is reported by the run that asks for it
    known = registry.entries()
    for name in known.value if isinstance(known, Ok) else ():
        registry.load(name)


def _run_job(job: WorkflowJob) -> None:
    settings: Settings = _worker["settings"]
    loop: asyncio.AbstractEventLoop = _worker["loop"]
    queue = _worker["queue"]
    run_id = job.start.run_id
    sink = CallbackSink(lambda event: queue.put((run_id, event.to_json())))

    def refuse(err: Err) -> None:
        tracer = Tracer(EventBus([sink]), run_id, _counter=itertools.count(job.start.next_seq))
        tracer.emit(Error(code=err.code.value, message=err.reason))

    try:
        spec = registry.load(job.workflow)  # cheap once imported: Python keeps the spec's module
        if isinstance(spec, Err):
            refuse(spec)
            return
        if job.budget_usd is not None:
            settings = settings.model_copy(
                update={"llm": settings.llm.model_copy(update={"budget_usd": job.budget_usd})}
            )
        tools: dict[str, ToolContext] = _worker["tools"]
        if job.context.mode not in tools:
            opened = loop.run_until_complete(open_tool_context(settings, job.context))
            if isinstance(opened, Err):
                refuse(opened)
                return
            tools[job.context.mode] = opened.value
        loop.run_until_complete(
            run_workflow(
                spec.value,
                job.inputs,
                settings=settings,
                context=job.context,
                sinks=[sink],
                mode=job.mode,
                tools=tools[job.context.mode],
                start=job.start,
            )
        )
    finally:
        queue.put((run_id, _END))


def _warm() -> int:
    return 0


# -- in the caller -----------------------------------------------------------------------------


class _Run:
    def __init__(self, bus: EventBus, start: RunStart, done: Callable[[], None]) -> None:
        self.bus = bus
        self.last_seq = start.next_seq - 1
        self.start = start
        self.done = done


class _Generation:
    """One set of worker processes and the queue they write to. A worker that dies may die holding the
    queue's write lock, so a broken generation is abandoned whole, never reused."""

    def __init__(
        self, settings: Settings, workers: int, read: Callable[[Any, threading.Event], None]
    ) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.queue: Any = ctx.Queue()
        self.executor = ProcessPoolExecutor(
            workers, mp_context=ctx, initializer=_init_worker, initargs=(settings, self.queue)
        )
        self.stop = threading.Event()
        self.reader = threading.Thread(
            target=read, args=(self.queue, self.stop), name="findesk-workflow-pool", daemon=True
        )
        self.reader.start()

    def retire(self, *, wait: bool) -> None:
        self.stop.set()
        self.queue.cancel_join_thread()  # never wait at exit on a lock a dead worker may hold
        self.executor.shutdown(wait=wait, cancel_futures=True)
        self.reader.join(2 * _POLL_S)


class WorkflowPool:
    """Create, ``submit`` runs, ``close``. ``submit`` is called from the caller's event loop."""

    def __init__(self, settings: Settings, workers: int) -> None:
        self.workers = workers
        self._settings = settings
        self._runs: dict[str, _Run] = {}
        self._lock = threading.Lock()
        self._current = _Generation(settings, workers, self._read)
        self.restarts = 0

    def warm_up(self) -> None:
        """Start every worker process now (spawning takes a second or two), not on the first run."""
        for future in [self._current.executor.submit(_warm) for _ in range(self.workers)]:
            future.result()

    def submit(self, job: WorkflowJob, sinks: list[Sink], on_end: Callable[[], None]) -> Future[None]:
        """Queue a run; its events go to ``sinks`` (from the pool's reader thread), then ``on_end``.
        A generation broken by a dead worker is replaced by a new one first."""
        run = _Run(EventBus(sinks), job.start, on_end)
        with self._lock:
            self._runs[job.start.run_id] = run
        try:
            future = self._current.executor.submit(_run_job, job)
        except BrokenProcessPool:
            self._current.retire(wait=False)
            self._current = _Generation(self._settings, self.workers, self._read)
            self.restarts += 1
            future = self._current.executor.submit(_run_job, job)
        future.add_done_callback(lambda f: self._failed(job.start.run_id, f))
        return future

    def _read(self, queue: Any, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                run_id, payload = queue.get(timeout=_POLL_S)
            except (EOFError, OSError):
                return
            except Empty:
                continue
            with self._lock:
                run = self._runs.get(run_id)
                if run is not None and payload == _END:
                    del self._runs[run_id]
            if run is None:
                continue
            if payload == _END:
                run.done()
                continue
            event = Event.from_json(payload)
            run.last_seq = event.seq
            run.bus.emit(event)

    def _failed(self, run_id: str, future: Future[None]) -> None:
        """A worker died or the job could not run: end the run with an error event ourselves."""
        if future.cancelled():
            problem = "the run was cancelled before a worker started it"
            code = "interrupted"
        elif future.exception() is not None:
            problem = f"the workflow worker failed: {type(future.exception()).__name__}: {future.exception()}"
            code = ErrorCode.UNAVAILABLE.value
        else:
            return
        with self._lock:
            run = self._runs.pop(run_id, None)
        if run is None:
            return
        tracer = Tracer(run.bus, run_id, _counter=itertools.count(run.last_seq + 1))
        tracer.emit(Error(code=code, message=problem))
        run.done()

    def close(self) -> None:
        self._current.retire(wait=True)
