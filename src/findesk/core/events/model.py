"""The one event type: everything the desk does becomes an ``Event``.

Rules:
- One envelope (``Event``) with a typed payload per kind (``data.type``): token, tool_call,
  tool_result, llm_call, agent_start, agent_end, warning, section, done, error. Nothing else is
  emitted. ``EVENT_TYPES`` and ``event_registry()`` are the one list every consumer (the terminal,
  the audit log, the SSE API and the web page) is checked against.
- Every event carries its run id, a timestamp (UTC), a per-run sequence number, and the id of its
  parent event, so a trace nests: agent_start → tool_call → tool_result, agent_start → llm_call.
- Events are plain data: ``to_json()`` is what the JSONL sink, the audit log and SSE send, and
  ``Event.from_json`` reads it back unchanged.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field


class _Payload(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Token(_Payload):
    """A piece of model text as it streams."""

    type: Literal["token"] = "token"
    text: str


class ToolCallStarted(_Payload):
    type: Literal["tool_call"] = "tool_call"
    call_id: str
    name: str
    arguments: dict[str, Any]
    prefetch: bool = False  # issued by the playbook before the model's first turn


class ToolResultReady(_Payload):
    type: Literal["tool_result"] = "tool_result"
    call_id: str
    name: str
    ok: bool
    latency_ms: float
    summary: str  # the compact text a model sees
    error_code: str | None = None
    cached: bool = False  # answered from this run's memo of identical calls
    result: Any = None  # the full result (size-capped) for the audit log
    truncated: bool = False
    # paragraphs of stranger-written text withheld as likely prompt injection: path, reasons, score and
    # the original text as evidence (never sent to a model)
    quarantined: list[dict[str, Any]] = Field(default_factory=list)


class LlmCall(_Payload):
    type: Literal["llm_call"] = "llm_call"
    provider: str
    model: str
    ok: bool
    attempt: int = 1  # 1 = first try; >1 = a retry of the same model
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0  # input tokens read from the provider's prompt cache
    cache_write_tokens: int = 0
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    error_code: str | None = None
    error: str | None = None


class AgentStart(_Payload):
    type: Literal["agent_start"] = "agent_start"
    agent: str
    mode: str  # "deterministic" | "model"
    mode_reason: str = ""
    inputs: dict[str, Any] = Field(default_factory=dict)


class AgentEnd(_Payload):
    type: Literal["agent_end"] = "agent_end"
    agent: str
    mode: str
    ok: bool  # the agent produced its report (a fallback report counts)
    summary: str
    fell_back: bool = False  # the model path ended on the deterministic composer
    iterations: int = 0
    tool_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    # The agent's typed output as its model submitted it and it validated (JSON), before any workflow
    # normalization: what ``findesk runs replay`` answers the model loop with. None in deterministic
    # mode, when the model path fell back, and in rows recorded before it was kept.
    output: dict[str, Any] | None = None
    stopped: str | None = None  # why the model loop stopped without a report (the outcome's code)
    # The reports the model submitted that did not become its output (failed validation), with the model
    # turn each came on: ``{"turn": 1, "report": {...}}``. A replay submits them again, so a decision that
    # could not be validated fails the same way, for the same stated reason.
    rejected: list[dict[str, Any]] = Field(default_factory=list)


class RunWarning(_Payload):
    type: Literal["warning"] = "warning"
    code: str
    message: str


class SectionReady(_Payload):
    """One part of a workflow's report, final as soon as it is emitted (the ``done`` result repeats it).

    ``html`` is a fragment already sanitized by the renderer (data escaped, Markdown rendered through
    an allow-list), so a page may insert it as is.
    """

    type: Literal["section"] = "section"
    name: str  # the workflow's section key, e.g. "risks" for the briefing
    title: str
    index: int  # 1-based position in the report
    html: str
    message: str | None = None  # why the section is empty or partial


class Done(_Payload):
    type: Literal["done"] = "done"
    result: Any = None
    summary: str = ""


class Error(_Payload):
    type: Literal["error"] = "error"
    code: str
    message: str


Payload: TypeAlias = Annotated[
    Token
    | ToolCallStarted
    | ToolResultReady
    | LlmCall
    | AgentStart
    | AgentEnd
    | RunWarning
    | SectionReady
    | Done
    | Error,
    Field(discriminator="type"),
]
EVENT_TYPES: tuple[str, ...] = (
    "token",
    "tool_call",
    "tool_result",
    "llm_call",
    "agent_start",
    "agent_end",
    "warning",
    "section",
    "done",
    "error",
)


_PAYLOADS: tuple[type[_Payload], ...] = (
    Token,
    ToolCallStarted,
    ToolResultReady,
    LlmCall,
    AgentStart,
    AgentEnd,
    RunWarning,
    SectionReady,
    Done,
    Error,
)


def event_registry() -> dict[str, dict[str, list[str]]]:
    """Every event kind with the payload fields it sends (all) and always carries (required).

    The API serves this at ``/v1/events/registry``; the web page's contract test checks against it.
    """
    out: dict[str, dict[str, list[str]]] = {}
    for model in _PAYLOADS:
        kind = model.model_fields["type"].default
        fields = list(model.model_fields)
        required = [n for n, f in model.model_fields.items() if f.is_required() or n == "type"]
        out[kind] = {"fields": fields, "required": required}
    return out


class Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    run_id: str
    seq: int
    ts: datetime
    parent_id: str | None = None
    agent: str | None = None
    data: Payload

    @property
    def type(self) -> str:
        return self.data.type

    def to_json(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_json(cls, text: str | bytes) -> Event:
        return cls.model_validate_json(text)

    def to_dict(self) -> dict[str, Any]:
        return json.loads(self.model_dump_json())  # type: ignore[no-any-return]


def utc_now() -> datetime:
    return datetime.now(UTC)
