"""A run's events as MCP progress notifications, and its model cost for the key's accounting.

Rules:
- A sink of the run (``RunProgress``): agent start and end, tool calls, sections and warnings of the run
  itself become one progress message each (progress counts them: it only ever grows; the total is not
  known in advance). Nothing is sent when the client sent no progressToken (``report`` is None).
- Emitting never blocks the run and is safe from any thread: messages are queued and a task of the
  serving loop sends them in order; a client that cannot take them any more only loses progress.
- The events of runs a run starts (a pipeline's) are counted for cost (``child_runs``), like the API's
  stream does, but only the run's own events are reported.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Awaitable, Callable
from types import TracebackType

from findesk.core.events.model import (
    AgentEnd,
    AgentStart,
    Event,
    LlmCall,
    RunWarning,
    SectionReady,
    ToolCallStarted,
)

log = logging.getLogger("findesk.mcp")
Report = Callable[[float, str], Awaitable[None]]  # (progress, message)
MAX_MESSAGE = 300


def describe(event: Event) -> str | None:
    """The progress message of one event, or None for events a client need not follow."""
    data = event.data
    if isinstance(data, AgentStart):
        return f"{data.agent}: started ({data.mode})"
    if isinstance(data, AgentEnd):
        return f"{data.agent}: finished, {data.tool_calls} tool calls" + (
            f" — {data.summary}" if data.summary else ""
        )
    if isinstance(data, ToolCallStarted):
        return f"{event.agent or 'run'}: tool {data.name}"
    if isinstance(data, SectionReady):
        return f"section {data.index}: {data.title}"
    if isinstance(data, RunWarning):
        return f"warning: {data.message}"
    return None


class RunProgress:
    """An event sink forwarding one run's progress to the client; also an ``async with`` that starts
    and drains the sender."""

    child_runs = True

    def __init__(self, report: Report | None, run_id: str | None) -> None:
        self._report = report
        self._run_id = run_id
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._task: asyncio.Task[None] | None = None
        self.cost_usd = 0.0  # what the run's model calls (children's included) cost so far
        self.sent = 0

    def write(self, event: Event) -> None:
        if isinstance(event.data, LlmCall):
            self.cost_usd += event.data.cost_usd
        if self._run_id is not None and event.run_id != self._run_id:
            return
        message = describe(event)
        if message is not None:
            self.say(message)

    def say(self, message: str) -> None:
        """Queue one progress message (the backtester's progress lines come here directly)."""
        if self._report is None:
            return
        text = " ".join(message.split())[:MAX_MESSAGE]
        if threading.get_ident() == self._thread:
            self._queue.put_nowait(text)
        else:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, text)

    def close(self) -> None:
        pass

    async def __aenter__(self) -> RunProgress:
        if self._report is not None:
            self._task = asyncio.create_task(self._send(self._report))
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._task is None:
            return
        if kind is None:
            self._queue.put_nowait(None)  # send what is queued, then stop
            with contextlib.suppress(Exception):
                await self._task
        else:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task

    async def _send(self, report: Report) -> None:
        while True:
            message = await self._queue.get()
            if message is None:
                return
            self.sent += 1
            try:
                await report(float(self.sent), message)
            except Exception as exc:  # the client left or its stream closed: the run goes on
                log.debug("progress not sent: %s", exc)
