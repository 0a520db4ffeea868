"""The Python API: ``findesk.run("brief", {"ticker": "AAPL"})`` runs any registered workflow in this
process and returns its typed report.

Rules:
- Every call runs on one process-wide event loop (a daemon thread) and reuses one open tool context
  per data mode and settings, so the tenth call is as warm as the second: stores are built once per
  process, and live HTTP clients stay on the loop they were made on. Contexts are closed at exit.
- Safe to call from plain code and from threads; inside that loop's own thread it refuses (it would
  wait on itself) with an ``Err`` naming ``run_workflow`` as the async entry point.
- Returns ``Ok(report)`` or ``Err``; never raises for bad input, unknown workflows or failed sources.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import threading
from collections import OrderedDict
from collections.abc import Coroutine, Mapping, Sequence
from datetime import date
from typing import Any, TypeVar

from pydantic import BaseModel

from findesk.agents.runtime.outcome import RequestedMode
from findesk.core.config import Settings
from findesk.core.events.trace import Sink
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.context import DataContext, resolve_context
from findesk.tools.base import ToolContext
from findesk.tools.catalog import close_tool_context, open_tool_context
from findesk.workflows import registry
from findesk.workflows.runner import WorkflowRun, run_workflow

T = TypeVar("T")
_KEPT = 4  # open tool contexts per process (each holds a loaded snapshot)


class SharedTools:
    """Open tool contexts by (data mode, settings), least recently used closed first. Used from one
    event loop; ``get`` opens a context on first use."""

    def __init__(self, kept: int = _KEPT) -> None:
        self._kept = kept
        self._open: OrderedDict[tuple[str, str], ToolContext] = OrderedDict()
        self._lock: asyncio.Lock | None = None

    async def get(self, settings: Settings, context: DataContext) -> Result[ToolContext]:
        if self._lock is None:
            self._lock = asyncio.Lock()
        key = (context.mode, settings.model_dump_json())
        async with self._lock:
            found = self._open.get(key)
            if found is not None:
                self._open.move_to_end(key)
                return Ok(found.with_context(context))
            opened = await open_tool_context(settings, context)
            if isinstance(opened, Err):
                return opened
            self._open[key] = opened.value
            while len(self._open) > self._kept:
                _, oldest = self._open.popitem(last=False)
                await close_tool_context(oldest)
            return Ok(opened.value)

    async def close(self) -> None:
        while self._open:
            _, ctx = self._open.popitem(last=False)
            await close_tool_context(ctx)


class _Loop:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.tools = SharedTools()
        self.thread = threading.Thread(target=self.loop.run_forever, name="findesk-api-loop", daemon=True)
        self.thread.start()
        atexit.register(self.close)

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def close(self) -> None:
        if self.loop.is_running():
            # exiting: a context that fails to close must not hide the real exit
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(self.tools.close(), self.loop).result(timeout=10)
            self.loop.call_soon_threadsafe(self.loop.stop)


_shared: _Loop | None = None
_shared_lock = threading.Lock()


def _loop() -> _Loop:
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = _Loop()
        return _shared


def run(
    workflow: str,
    inputs: BaseModel | Mapping[str, Any],
    *,
    as_of: str | date | None = None,
    settings: Settings | None = None,
    mode: RequestedMode = "auto",
    snapshot: bool | None = None,
    sinks: Sequence[Sink] = (),
) -> Result[Any]:
    """Run ``workflow`` (a registry name, e.g. ``"brief"`` or ``"agents.quote_filings"``) on ``inputs``
    (its input model, or a dict of it) → ``Ok(report)`` or ``Err``. ``snapshot`` forces the offline
    snapshot (True) or live sources (False); settings come from the environment unless given."""
    done = run_recorded(
        workflow, inputs, as_of=as_of, settings=settings, mode=mode, snapshot=snapshot, sinks=sinks
    )
    return done.map(lambda r: r.report)


def run_recorded(
    workflow: str,
    inputs: BaseModel | Mapping[str, Any],
    *,
    as_of: str | date | None = None,
    settings: Settings | None = None,
    mode: RequestedMode = "auto",
    snapshot: bool | None = None,
    sinks: Sequence[Sink] = (),
) -> Result[WorkflowRun[Any]]:
    """``run``, returning the run (its id and data context) with the report."""
    spec = registry.load(workflow)
    if isinstance(spec, Err):
        return spec
    settings = settings or Settings()
    data_mode: Any = None if snapshot is None else ("snapshot" if snapshot else "live")
    day = as_of.isoformat() if isinstance(as_of, date) else as_of
    context = resolve_context(settings, mode=data_mode, as_of=day)
    if isinstance(context, Err):
        return context
    shared = _loop()
    if threading.current_thread() is shared.thread:
        return Err(
            ErrorCode.INVALID_INPUT, "findesk.run was called from its own event loop; await run_workflow"
        )

    async def go() -> Result[WorkflowRun[Any]]:
        tools = await shared.tools.get(settings, context.value)
        if isinstance(tools, Err):
            return tools
        return await run_workflow(
            spec.value,
            inputs,
            settings=settings,
            context=context.value,
            sinks=sinks,
            mode=mode,
            tools=tools.value,
        )

    return shared.call(go())
