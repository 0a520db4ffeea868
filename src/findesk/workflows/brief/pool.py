"""Briefings in worker processes, their events streamed back as they happen.

Rules:
- A briefing's analytics are CPU-bound (claims, pump-bot scores, number pools: about half a second of
  one core). In a server they would block its event loop, so every other client would wait; here
  they run in ``workers`` processes (``spawn``ed, so no thread state is forked) and the caller's
  loop only forwards events.
- Workers run at a lower CPU priority (``nice`` +10) than the server, so the server's event loop
  answers and streams at once however busy the workers are.
- Each worker opens one tool context for its life and keeps one event loop, so its briefings are warm
  and live HTTP clients stay on the loop they were made on.
- Events cross as JSON on one queue, tagged with the run id; the run's end is an explicit marker on the
  same queue, so no event is lost or reordered behind it. A worker that dies mid-run ends its runs
  with an ``error`` event (``unavailable``), never a silent hang.
- The caller emits the run's opening event itself (``RunStart``) so a queued run is visible at once.
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
from dataclasses import dataclass
from typing import Any

from findesk.agents.runtime.outcome import RequestedMode
from findesk.core.config import Settings
from findesk.core.events.model import Error, Event
from findesk.core.events.trace import EventBus, Sink, Tracer
from findesk.core.result import Err, ErrorCode
from findesk.data.context import DataContext
from findesk.tools.base import ToolContext
from findesk.tools.catalog import open_tool_context
from findesk.workflows.brief.run import RunStart, run_briefing

_END = ""  # payload marking the end of a run's events
WORKER_NICENESS = 10


@dataclass(frozen=True)
class BriefJob:
    start: RunStart
    symbol: str
    context: DataContext
    question: str | None
    mode: RequestedMode
    budget_usd: float | None  # caps the run's model budget (what is left of a key's daily cap)


# -- in the worker -----------------------------------------------------------------------------

_worker: dict[str, Any] = {}


class _Forward:
    def __init__(self, queue: Any, run_id: str) -> None:
        self._queue = queue
        self._run_id = run_id

    def write(self, event: Event) -> None:
        self._queue.put((self._run_id, event.to_json()))

    def close(self) -> None:
        pass


def _init_worker(settings: Settings, queue: Any) -> None:
    # Workers yield the CPU to the server process: accepting requests and streaming events must not
    # wait behind another client's analytics. On an idle machine this costs nothing.
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
    _worker.update(settings=settings, queue=queue, loop=asyncio.new_event_loop(), tools={})


def _run_job(job: BriefJob) -> None:
    settings: Settings = _worker["settings"]
    loop: asyncio.AbstractEventLoop = _worker["loop"]
    queue = _worker["queue"]
    sink = _Forward(queue, job.start.run_id)
    try:
        if job.budget_usd is not None:
            settings = settings.model_copy(
                update={"llm": settings.llm.model_copy(update={"budget_usd": job.budget_usd})}
            )
        tools: dict[str, ToolContext] = _worker["tools"]
        if job.context.mode not in tools:
            opened = loop.run_until_complete(open_tool_context(settings, job.context))
            if isinstance(opened, Err):
                Tracer(EventBus([sink]), job.start.run_id, _counter=itertools.count(job.start.next_seq)).emit(
                    Error(code=opened.code.value, message=opened.reason)
                )
                return
            tools[job.context.mode] = opened.value
        loop.run_until_complete(
            run_briefing(
                job.symbol,
                settings=settings,
                context=job.context,
                question=job.question,
                sinks=[sink],
                mode=job.mode,
                tools=tools[job.context.mode],
                start=job.start,
            )
        )
    finally:
        queue.put((job.start.run_id, _END))


def _warm() -> int:
    return 0


# -- in the caller -----------------------------------------------------------------------------


class _Run:
    def __init__(self, bus: EventBus, start: RunStart, done: Callable[[], None]) -> None:
        self.bus = bus
        self.last_seq = start.next_seq - 1
        self.start = start
        self.done = done


class BriefingPool:
    """Create, ``submit`` runs, ``close``. ``submit`` is called from the caller's event loop."""

    def __init__(self, settings: Settings, workers: int) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.workers = workers
        self._queue: Any = ctx.Queue()
        self._executor = ProcessPoolExecutor(
            workers, mp_context=ctx, initializer=_init_worker, initargs=(settings, self._queue)
        )
        self._runs: dict[str, _Run] = {}
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, name="findesk-brief-pool", daemon=True)
        self._reader.start()

    def warm_up(self) -> None:
        """Start every worker process now (spawning takes a second or two), not on the first run."""
        for future in [self._executor.submit(_warm) for _ in range(self.workers)]:
            future.result()

    def submit(self, job: BriefJob, sinks: list[Sink], on_end: Callable[[], None]) -> Future[None]:
        """Queue a run; its events go to ``sinks`` (from the pool's reader thread), then ``on_end``."""
        run = _Run(EventBus(sinks), job.start, on_end)
        with self._lock:
            self._runs[job.start.run_id] = run
        future = self._executor.submit(_run_job, job)
        future.add_done_callback(lambda f: self._failed(job.start.run_id, f))
        return future

    def _read(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            run_id, payload = item
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
            problem = f"the briefing worker failed: {type(future.exception()).__name__}: {future.exception()}"
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
        self._executor.shutdown(wait=True, cancel_futures=True)
        self._queue.put(None)
        self._reader.join(5)
