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
- A dead worker costs only its own run. Nothing is shared between workers: each has its own pipe for
  jobs and its own pipe for events (a worker killed mid-write can corrupt only its own pipe), and the
  pool hands one job at a time to an idle worker, keeping the others queued here. A worker that dies
  ends its run with one ``error`` event (``unavailable``, naming the signal), is replaced by a new
  one, and the queued runs go on to the workers that are left and the replacement.
- A run's events and its end marker come over its worker's one pipe, read by one thread, so no event
  is lost or reordered behind the end; a death is seen after the last event the worker sent. A run
  cancelled before a worker took it ends with ``interrupted``.
- Workers die with the process that started them: Linux kills them when their starting thread ends
  (``PR_SET_PDEATHSIG``; each worker is started by its slot's thread, which lives as long as the pool),
  and every worker also watches its parent pid, so a ``kill -9`` of the server leaves no orphan.
- The caller emits the run's opening event itself (``RunStart``) so a queued run is visible at once;
  the worker continues that event sequence, including for a refusal (unknown workflow, tools that do
  not open).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import itertools
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from findesk.agents.runtime.outcome import RequestedMode
from findesk.core.config import Settings
from findesk.core.events.model import Done, Error, Event
from findesk.core.events.trace import CallbackSink, EventBus, Sink, Tracer
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.context import DataContext
from findesk.tools.base import ToolContext
from findesk.tools.catalog import open_tool_context
from findesk.workflows import registry
from findesk.workflows.runner import RunStart, run_workflow

WORKER_NICENESS = 10
_PR_SET_PDEATHSIG = 1  # linux/prctl.h
_PARENT_POLL_S = 0.5  # the portable fallback's check that the server is still there
_RESPAWN_MAX_S = 30.0  # back-off ceiling for a worker that keeps dying before it is ready
_CLOSE_WAIT_S = 60.0  # how long close() lets running runs finish before it kills their workers

# messages a worker sends on its events pipe
_READY = "ready"  # (READY,)
_EVENT = "event"  # (EVENT, run id, event JSON)
_END = "end"  # (END, run id): after the run's last event
_FAILED = "failed"  # (FAILED, run id, reason): the job raised; nothing after its last event


@dataclass(frozen=True)
class WorkflowJob:
    workflow: str  # a registry name: "brief", "agents.quote_filings", a plug-in's name
    inputs: dict[str, Any]  # the input as JSON; the runner validates and checks it again in the worker
    start: RunStart
    context: DataContext
    mode: RequestedMode
    budget_usd: float | None  # caps the run's model budget (what is left of a key's daily cap)


class WorkerDiedError(RuntimeError):
    """The worker process running a job died (killed, out of memory, crashed)."""


# -- in the worker -----------------------------------------------------------------------------


def _die_with_parent(parent: int) -> None:
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    # portable, and it covers a parent that died before prctl ran: an orphan is re-parented
    threading.Thread(target=_watch_parent, args=(parent,), name="findesk-parent-watch", daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_PARENT_POLL_S)
    os._exit(1)  # the server is gone: nobody reads this run's events any more


def _worker_main(settings: Settings, jobs: Connection, events: Connection, parent: int) -> None:
    _die_with_parent(parent)
    # Workers yield the CPU to the server process: accepting requests and streaming events must not
    # wait behind another client's analytics. On an idle machine this costs nothing.
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
    lock = threading.Lock()  # a run's sinks may be called from more than one thread

    def send(message: tuple[str, ...]) -> None:
        with lock:
            events.send(message)

    loop = asyncio.new_event_loop()
    tools: dict[str, ToolContext] = {}
    # import the registered workflows (LangGraph, the roles) as the worker starts, not in a client's
    # first run; one that cannot load is reported by the run that asks for it
    known = registry.entries()
    for name in known.value if isinstance(known, Ok) else ():
        registry.load(name)
    send((_READY,))
    while True:
        try:
            job: WorkflowJob | None = jobs.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        try:
            _run_job(job, settings, loop, tools, send)
        except Exception as exc:  # a bug in a workflow must not take the worker's later runs with it
            send((_FAILED, job.start.run_id, f"{type(exc).__name__}: {exc}"))
        else:
            send((_END, job.start.run_id))


def _run_job(
    job: WorkflowJob,
    settings: Settings,
    loop: asyncio.AbstractEventLoop,
    tools: dict[str, ToolContext],
    send: Callable[[tuple[str, ...]], None],
) -> None:
    run_id = job.start.run_id
    # child runs' events (a pipeline's scan and desks) go to the server too, which records them
    sink = CallbackSink(lambda event: send((_EVENT, run_id, event.to_json())), child_runs=True)

    def refuse(err: Err) -> None:
        tracer = Tracer(EventBus([sink]), run_id, _counter=itertools.count(job.start.next_seq))
        tracer.emit(Error(code=err.code.value, message=err.reason))

    spec = registry.load(job.workflow)  # cheap once imported: Python keeps the spec's module
    if isinstance(spec, Err):
        refuse(spec)
        return
    if job.budget_usd is not None:
        settings = settings.model_copy(
            update={"llm": settings.llm.model_copy(update={"budget_usd": job.budget_usd})}
        )
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


# -- in the caller -----------------------------------------------------------------------------


class _Run:
    def __init__(self, job: WorkflowJob, bus: EventBus, done: Callable[[], None]) -> None:
        self.job = job
        self.bus = bus
        self.done = done
        self.future: Future[None] = Future()
        self.last_seq = job.start.next_seq - 1
        self.ended = False  # its closing done/error event has been forwarded

    def forward(self, event: Event) -> None:
        if event.run_id == self.job.start.run_id:  # a child run's events neither number nor end it
            self.last_seq = event.seq
            if event.parent_id is None and isinstance(event.data, Done | Error):
                self.ended = True
        self.bus.emit(event)

    def finish(self, code: str | None = None, message: str = "") -> None:
        """End the run: an error event first unless it already closed, then the caller's callback."""
        if code is not None and not self.ended:
            tracer = Tracer(self.bus, self.job.start.run_id, _counter=itertools.count(self.last_seq + 1))
            tracer.emit(Error(code=code, message=message))
            self.ended = True
        self.done()
        if not self.future.done():
            if code is None:
                self.future.set_result(None)
            else:
                self.future.set_exception(WorkerDiedError(message))


class _Slot:
    """One worker at a time: its thread starts the worker process, reads its pipe until the process
    ends, ends the run it was on, and starts a replacement, for as long as the pool is open."""

    def __init__(self, pool: WorkflowPool, index: int) -> None:
        self.pool = pool
        self.index = index
        self.ready = threading.Event()  # the current worker has warmed up
        self.tried = threading.Event()  # a worker has got ready or died trying, at least once
        self.pid: int | None = None
        self.run: _Run | None = None  # guarded by the pool's lock
        self._jobs: Connection | None = None
        self._process: multiprocessing.process.BaseProcess | None = None
        self.thread = threading.Thread(target=self._live, name=f"findesk-worker-{index}", daemon=True)

    def send(self, job: WorkflowJob | None) -> bool:
        """Hand the worker a job (None: exit when idle); False when its pipe refuses it, which it does
        once the worker is dead: the job never reached it."""
        jobs = self._jobs
        if jobs is None:
            return False
        try:
            jobs.send(job)
        except (OSError, ValueError):
            return False
        return True

    def kill(self) -> None:
        process = self._process
        if process is not None and process.is_alive():
            process.kill()

    def _live(self) -> None:
        failures = 0
        while not self.pool.closing.is_set():
            warmed = self._serve_one()
            failures = 0 if warmed else failures + 1
            if failures:  # dying before it is ready: a broken install or environment, not one bad run
                self.pool.closing.wait(min(_RESPAWN_MAX_S, 0.5 * 2 ** (failures - 1)))

    def _serve_one(self) -> bool:
        """Start one worker and serve it until it ends; whether it got ready."""
        ctx = multiprocessing.get_context("spawn")
        jobs_out, jobs_in = ctx.Pipe(duplex=False)  # (receiving end, sending end)
        events_out, events_in = ctx.Pipe(duplex=False)
        process = ctx.Process(
            target=_worker_main,
            args=(self.pool.settings, jobs_out, events_in, os.getpid()),
            name=f"findesk-worker-{self.index}",
            daemon=True,
        )
        try:
            process.start()
        except Exception as exc:  # e.g. out of processes or memory: try again after the back-off
            print(f"findesk: cannot start a workflow worker: {exc}", file=sys.stderr)
            events_out.close()
            jobs_in.close()
            self.tried.set()
            return False
        finally:
            # our copies of the worker's ends: once closed, the worker's death reads as EOF here
            jobs_out.close()
            events_in.close()
        self._process, self._jobs, self.pid = process, jobs_in, process.pid
        if self.pool.closing.is_set():
            self.send(None)  # close() may have looked for this worker's pipe before it existed
        warmed = False
        try:
            while True:
                try:
                    message = events_out.recv()
                except (EOFError, OSError):
                    break
                warmed = warmed or message[0] == _READY
                self._handle(message)
        finally:
            self._jobs = None
            events_out.close()
            jobs_in.close()
        process.join()
        self.ready.clear()
        self.tried.set()
        self.pool._lost(self, _how(process.exitcode), process.pid)
        return warmed

    def _handle(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == _READY:
            self.ready.set()
            self.tried.set()
            self.pool._idle(self)
            return
        with self.pool._lock:
            run = self.run
        if run is None or message[1] != run.job.start.run_id:
            return  # not ours to forward (cannot happen: one job at a time)
        if kind == _EVENT:
            run.forward(Event.from_json(message[2]))
            return
        with self.pool._lock:
            self.run = None
        if kind == _END:
            run.finish()
        else:
            run.finish(ErrorCode.UNAVAILABLE.value, f"the workflow failed in its worker: {message[2]}")
        self.pool._idle(self)


def _how(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return f"killed by signal {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exited with code {exitcode}"


class WorkflowPool:
    """Create, ``submit`` runs, ``close``. ``submit`` may be called from any thread (the caller's
    event loop, usually); the run's events reach its sinks on the pool's reader threads."""

    def __init__(self, settings: Settings, workers: int) -> None:
        self.workers = workers
        self.settings = settings
        self.restarts = 0  # workers replaced after dying
        self.closing = threading.Event()
        self._lock = threading.Lock()
        self._queue: deque[_Run] = deque()
        self._free: list[_Slot] = []
        self._slots = [_Slot(self, i) for i in range(workers)]
        for slot in self._slots:
            slot.thread.start()

    def warm_up(self, timeout_s: float = 300.0) -> int:
        """Wait until every worker has started and imported the workflows (spawning takes a second or
        two), so the first runs do not pay for it; how many are ready. A worker that dies while
        starting is not waited for (its slot keeps trying in the background)."""
        deadline = time.monotonic() + timeout_s
        for slot in self._slots:
            slot.tried.wait(max(0.0, deadline - time.monotonic()))
        return sum(slot.ready.is_set() for slot in self._slots)

    def submit(self, job: WorkflowJob, sinks: list[Sink], on_end: Callable[[], None]) -> Future[None]:
        """Queue a run; its events go to ``sinks``, then ``on_end`` is called. Cancelling the returned
        future before a worker takes the run ends it with ``interrupted``."""
        run = _Run(job, EventBus(sinks), on_end)
        with self._lock:
            if self.closing.is_set():
                raise RuntimeError("the workflow pool is closed")
            self._queue.append(run)
        run.future.add_done_callback(lambda f: self._cancelled(run) if f.cancelled() else None)
        self._dispatch()
        return run.future

    def close(self) -> None:
        """Queued runs end ``interrupted``; running ones finish (up to a minute), then workers exit."""
        with self._lock:
            self.closing.set()
            queued = list(self._queue)
            self._queue.clear()
        for run in queued:
            if run.future.cancel() or run.future.running():  # running: a dead worker refused it
                self._end_cancelled(run)
        for slot in self._slots:
            slot.send(None)  # exits once its current run is done
        deadline = time.monotonic() + _CLOSE_WAIT_S
        for slot in self._slots:
            slot.thread.join(max(0.0, deadline - time.monotonic()))
            if slot.thread.is_alive():
                slot.kill()
                slot.thread.join(5)

    # -- the pool's bookkeeping (called from slot threads and callers) --------------------------

    def _dispatch(self) -> None:
        # Jobs are sent under the lock, so a slot that sees its worker die (``_lost``) finds the run
        # either delivered (it died with the worker) or still queued, never in between. An idle
        # worker reads at once, so a send does not wait; a worker that died idle refuses it, and the
        # run stays first in the queue for the next worker.
        with self._lock:
            while self._queue and self._free:
                run = self._queue[0]
                if not run.future.running() and not run.future.set_running_or_notify_cancel():
                    self._queue.popleft()
                    continue  # cancelled: its callback ends it
                slot = self._free.pop()
                # the slot owns the run before the worker can answer: its reader thread would drop
                # the events (and the end) of a run it did not know it had
                slot.run = run
                if slot.send(run.job):
                    self._queue.popleft()
                else:
                    slot.run = None

    def _idle(self, slot: _Slot) -> None:
        with self._lock:
            if slot.run is None and slot not in self._free:
                self._free.append(slot)
        self._dispatch()

    def _lost(self, slot: _Slot, how: str, pid: int | None) -> None:
        """A worker process ended: its run (if any) ends with ``unavailable``; the slot starts anew."""
        with self._lock:
            if slot in self._free:
                self._free.remove(slot)
            run, slot.run = slot.run, None
            if not self.closing.is_set():
                self.restarts += 1
        if run is not None:
            run.finish(
                ErrorCode.UNAVAILABLE.value,
                f"the workflow worker (pid {pid}) running this run died ({how}); "
                "other runs were not affected",
            )

    def _cancelled(self, run: _Run) -> None:
        with self._lock:
            if run in self._queue:
                self._queue.remove(run)
            elif self.closing.is_set():
                return  # close() ends it
        self._end_cancelled(run)

    @staticmethod
    def _end_cancelled(run: _Run) -> None:
        if not run.ended:
            run.finish("interrupted", "the run was cancelled before a worker started it")
