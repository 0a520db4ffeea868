"""Scripted fake models: each test states the exact replies (tool calls, text, usage, failures).

Rules:
- A ``ScriptedModel`` is a real ``ChatModel``: the runtime cannot tell it from a provider.
- Replies are consumed in order; a step may also be a function of the request (to answer from what
  the model was shown). Running out of replies is an ``unavailable`` error that says so, so a test
  that under-scripts fails visibly instead of hanging.
- Without explicit usage, token counts are approximated from characters (4 per token) so accounting
  paths see non-zero, deterministic figures. Nothing here touches the network.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from findesk.core.llm.tokens import count_tokens
from findesk.core.llm.types import ModelRequest, ModelResponse, TokenUsage, ToolCall, UserText
from findesk.core.result import Err, ErrorCode, Ok, Result

SUBMIT_TOOL = "submit_report"  # the runtime's report tool (findesk.agents.runtime.model_loop)


@dataclass(frozen=True)
class Reply:
    text: str = ""
    calls: tuple[tuple[str, dict[str, Any]], ...] = ()
    usage: TokenUsage | None = None
    delay_s: float = 0.0


@dataclass(frozen=True)
class Failure:
    code: ErrorCode
    reason: str = "scripted failure"
    status: int | None = None
    retry_after: float | None = None
    delay_s: float = 0.0


Step = Reply | Failure | Callable[[ModelRequest], "Reply | Failure"]


def reply(
    text: str = "",
    calls: Sequence[tuple[str, dict[str, Any]]] = (),
    *,
    usage: TokenUsage | None = None,
    delay_s: float = 0.0,
) -> Reply:
    return Reply(text, tuple(calls), usage, delay_s)


def submit(report: BaseModel | dict[str, Any], text: str = "", *, usage: TokenUsage | None = None) -> Reply:
    """A reply that submits ``report`` through the runtime's report tool."""
    args = report.model_dump(mode="json") if isinstance(report, BaseModel) else dict(report)
    return Reply(text, ((SUBMIT_TOOL, args),), usage)


def rate_limited(retry_after: float | None = None, status: int = 429) -> Failure:
    return Failure(ErrorCode.RATE_LIMITED, f"scripted {status}", status, retry_after)


@dataclass
class ScriptedModel:
    steps: list[Step]
    model: str = "scripted"
    provider: str = "fake"
    requests: list[ModelRequest] = field(default_factory=list)
    calls_started: list[float] = field(default_factory=list)  # perf_counter at each call (concurrency checks)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    async def complete(self, request: ModelRequest) -> Result[ModelResponse]:
        self.requests.append(request)
        self.calls_started.append(time.perf_counter())
        if not self.steps:
            return Err(
                ErrorCode.UNAVAILABLE,
                f"scripted model {self.model!r} has no reply left (call {len(self.requests)})",
                f"{self.provider}:{self.model}",
            )
        step = self.steps.pop(0)
        resolved = step if isinstance(step, Reply | Failure) else step(request)
        if resolved.delay_s:
            await asyncio.sleep(resolved.delay_s)
        if isinstance(resolved, Failure):
            details: dict[str, Any] = {}
            if resolved.status is not None:
                details["status"] = resolved.status
            if resolved.retry_after is not None:
                details["retry_after"] = resolved.retry_after
            return Err(resolved.code, resolved.reason, f"{self.provider}:{self.model}", details)
        calls = tuple(ToolCall(id=f"call-{next(self._ids)}", name=n, arguments=a) for n, a in resolved.calls)
        usage = resolved.usage or approx_usage(request, resolved)
        return Ok(
            ModelResponse(
                provider=self.provider,
                model=self.model,
                text=resolved.text,
                tool_calls=calls,
                usage=usage,
                stop_reason="tool_use" if calls else "end_turn",
            )
        )

    async def aclose(self) -> None:
        pass

    @property
    def remaining(self) -> int:
        return len(self.steps)


def approx_usage(request: ModelRequest, answer: Reply) -> TokenUsage:
    """Real cl100k tokens over everything a provider would bill (system, messages, tool schemas; the
    reply's text and tool arguments), as a scripted model has no ``usage`` of its own."""
    sent = [request.system, *(m.model_dump_json() for m in request.messages)]
    sent += [json.dumps(t.parameters) + t.description for t in request.tools]
    produced = [answer.text, *(json.dumps(a) for _, a in answer.calls)]
    return TokenUsage(
        input_tokens=max(1, sum(count_tokens(s) for s in sent)),
        output_tokens=max(1, sum(count_tokens(s) for s in produced)),
    )


def task_text(request: ModelRequest) -> str:
    """The task message a role sent (its first user text)."""
    return next((m.text for m in request.messages if isinstance(m, UserText)), "")


def task_payload(request: ModelRequest) -> dict[str, Any]:
    """The JSON payload inside the task message (``data_task``'s fenced object), or {} when none."""
    task = task_text(request)
    try:
        return dict(json.loads(task[task.index("{") : task.rindex("}") + 1]))
    except ValueError:
        return {}
