"""Runs an agent's tool calls: concurrently, each wrapped in a tool_call / tool_result event pair.

Rules:
- Calls issued together run together (``asyncio.gather``); one slow tool never serializes the rest.
- An agent may only call the tools its role lists; any other name is ``invalid_input`` for that
  call alone.
- Identical calls (same tool, same arguments) within one agent run execute once: later ones are
  answered from the memo (marked ``cached``), including while the first is still in flight.
- Never raises: every failure is an ``Err`` inside the outcome (``findesk.tools.base.execute``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from findesk.core.events.model import ToolCallStarted, ToolResultReady
from findesk.core.events.trace import Tracer
from findesk.tools.base import Tool, ToolContext, ToolOutcome, ToolRegistry, execute


@dataclass(frozen=True)
class CallRequest:
    call_id: str
    name: str
    arguments: Mapping[str, Any]


class ToolRunner:
    def __init__(
        self, registry: ToolRegistry, ctx: ToolContext, allowed: Iterable[str], tracer: Tracer
    ) -> None:
        self._registry = registry
        self._ctx = ctx
        self._allowed = frozenset(allowed)
        self._tracer = tracer
        self._memo: dict[str, asyncio.Task[ToolOutcome]] = {}
        self.calls = 0  # tool calls requested (memo hits included)

    async def run_many(self, requests: Sequence[CallRequest], *, prefetch: bool = False) -> list[ToolOutcome]:
        if not requests:
            return []
        return list(await asyncio.gather(*(self.run_one(r, prefetch=prefetch) for r in requests)))

    async def run_one(self, request: CallRequest, *, prefetch: bool = False) -> ToolOutcome:
        self.calls += 1
        args = dict(request.arguments)
        started = self._tracer.emit(
            ToolCallStarted(call_id=request.call_id, name=request.name, arguments=args, prefetch=prefetch)
        )
        key = _memo_key(request.name, args)
        task = self._memo.get(key)
        cached = task is not None
        if task is None:
            task = asyncio.ensure_future(execute(self._tool(request.name), request.name, args, self._ctx))
            self._memo[key] = task
        outcome = await asyncio.shield(task)
        if cached:
            outcome = replace(outcome, latency_ms=0.0)
        self._tracer.emit(
            ToolResultReady(
                call_id=request.call_id,
                name=request.name,
                ok=outcome.ok,
                latency_ms=round(outcome.latency_ms, 3),
                summary=outcome.summary,
                error_code=outcome.error_code,
                cached=cached,
                result=None if cached else outcome.payload,
                truncated=outcome.truncated,
                quarantined=[] if cached else [q.model_dump(mode="json") for q in outcome.quarantined],
            ),
            parent_id=started.id,
        )
        return outcome

    def _tool(self, name: str) -> Tool | None:
        return self._registry.get(name) if name in self._allowed else None


def _memo_key(name: str, args: Mapping[str, Any]) -> str:
    try:
        return name + json.dumps(args, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return name + repr(sorted(args.items(), key=lambda kv: kv[0]))
