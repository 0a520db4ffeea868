"""A run's events as OpenTelemetry GenAI spans, in plain data: what ``core.events.otel`` exports.

Rules:
- One run, one trace. The run's opening ``agent_start`` (no parent) is the root span
  ``invoke_workflow <workflow>``; any other ``agent_start`` opens ``invoke_agent <agent>``, closed by the
  ``agent_end`` whose parent it is; a ``tool_call`` opens ``execute_tool <tool>``, closed by its
  ``tool_result``; an ``llm_call`` is ``chat <model>``, a span that ended when the event was emitted and
  began ``latency_ms`` before. The root closes on the run's ``done`` or ``error``; spans still open then
  close with it, marked unfinished.
- A span's parent is the span of its event's parent event; an event whose parent has no span hangs from
  the root. Every span carries its event's id (``findesk.event_id``), so a span is found in the audit
  log and the audit log's events in a trace.
- Times are the events' own timestamps, never the time of conversion: a re-export of a recorded run
  draws the same timeline.
- Warnings and sections are span events on the span of their parent; streamed tokens are not exported.
- Names follow the GenAI semantic conventions (``gen_ai.*``; ``tests`` check them against the installed
  ``opentelemetry-semantic-conventions``). Token usage (``gen_ai.usage.*``) and cost sit on chat spans
  only; an agent's and the run's totals are ``findesk.*`` attributes, so a backend that sums usage over
  a trace counts each model call once. No prompt, completion, tool argument or tool result content is
  exported: only names, counts, codes and times.
- Events of another run (a pipeline's child runs) are ignored: they are traces of their own.
- Pure data, no OpenTelemetry import: the builder is fed one event at a time and says what to do.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TypeAlias

from findesk.core.events.model import (
    AgentEnd,
    AgentStart,
    Done,
    Error,
    Event,
    LlmCall,
    RunWarning,
    SectionReady,
    ToolCallStarted,
    ToolResultReady,
)

AttrValue: TypeAlias = str | bool | int | float
Attrs: TypeAlias = dict[str, AttrValue]

# GenAI semantic conventions (opentelemetry-semantic-conventions 0.66b2, gen_ai_attributes)
OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
REQUEST_MODEL = "gen_ai.request.model"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
CACHE_READ_TOKENS = "gen_ai.usage.cache_read.input_tokens"
CACHE_WRITE_TOKENS = "gen_ai.usage.cache_creation.input_tokens"
AGENT_NAME = "gen_ai.agent.name"
WORKFLOW_NAME = "gen_ai.workflow.name"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
ERROR_TYPE = "error.type"  # stable semantic conventions
# findesk's own attributes
RUN_ID = "findesk.run_id"
EVENT_ID = "findesk.event_id"
COST_USD = "findesk.cost_usd"
# Langfuse reads a generation's cost from this (JSON); without it, it prices tokens from its own table
LANGFUSE_COST = "langfuse.observation.cost_details"

UNFINISHED = "unfinished"


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def ns(ts: datetime) -> int:
    """Nanoseconds since the epoch, as OpenTelemetry counts time (exact: no float on the way)."""
    return (ts - _EPOCH) // timedelta(microseconds=1) * 1_000


def trace_id_of(run_id: str) -> int:
    """A run's trace id: the first 16 bytes of SHA-256 of its id (so a run's trace is found from it)."""
    return int.from_bytes(hashlib.sha256(run_id.encode()).digest()[:16], "big") or 1


def span_id_of(run_id: str, key: str) -> int:
    """The id of the span event ``key`` opened: a resumed or re-exported run draws the same ids."""
    return int.from_bytes(hashlib.sha256(f"{run_id}\n{key}".encode()).digest()[:8], "big") or 1


@dataclass(frozen=True)
class SpanOpen:
    key: str  # the id of the event that opened the span
    parent: str | None  # the key of the parent span; None for the root
    name: str
    start_ns: int
    attributes: Attrs


@dataclass(frozen=True)
class SpanClose:
    key: str
    end_ns: int
    attributes: Attrs  # added at the end (results, totals)
    error: str | None = None  # error.type: the span ends with an error status
    message: str = ""


@dataclass(frozen=True)
class SpanSet:
    """Attributes for the open span ``key`` (the run's totals on the root)."""

    key: str
    attributes: Attrs


@dataclass(frozen=True)
class SpanNote:
    """A span event (a warning, a section) on the span ``key``."""

    key: str
    name: str
    ts_ns: int
    attributes: Attrs


SpanOp: TypeAlias = SpanOpen | SpanSet | SpanClose | SpanNote


@dataclass
class SpanBuilder:
    """Turns one run's events, in order, into span operations (see the module's rules).

    ``run_id``: the run to draw (None: the run of the first event); ``workflow``: the root's name when
    the run ends before its opening event (a refused input); ``extra``: attributes for the root span."""

    run_id: str | None = None
    workflow: str = "workflow"
    extra: Attrs = field(default_factory=dict)
    root: str | None = None
    finished: bool = False
    _open: dict[str, str] = field(default_factory=dict)  # open span key -> kind
    _known: set[str] = field(default_factory=set)  # every span key ever opened

    def feed(self, event: Event) -> list[SpanOp]:
        if self.run_id is None:
            self.run_id = event.run_id
        if event.run_id != self.run_id or self.finished:
            return []
        data = event.data
        at = ns(event.ts)
        if isinstance(data, AgentStart):
            return self._agent_start(event, data, at)
        if isinstance(data, AgentEnd):
            return self._agent_end(event, data, at)
        if isinstance(data, ToolCallStarted):
            return [self._open_span(event, "tool", f"execute_tool {data.name}", at, _tool_attrs(data))]
        if isinstance(data, ToolResultReady):
            return self._tool_result(event, data, at)
        if isinstance(data, LlmCall):
            return self._llm_call(event, data, at)
        if isinstance(data, RunWarning | SectionReady):
            return self._note(event, data, at)
        if isinstance(data, Done | Error) and event.parent_id is None:
            return self._end_run(event, data, at)
        return []

    def open_spans(self) -> list[str]:
        return list(self._open)

    def abandon(self, end_ns: int) -> list[SpanOp]:
        """Close every open span (innermost first): the run stopped without its closing event."""
        self.finished = True
        return [SpanClose(k, end_ns, {}, UNFINISHED, "the run ended first") for k in reversed(self._open)]

    # -- one kind each --------------------------------------------------------------------------

    def _agent_start(self, event: Event, data: AgentStart, at: int) -> list[SpanOp]:
        if event.parent_id is None and self.root is None:
            self.root = event.id
            self.workflow = data.agent
            attrs: Attrs = {
                OPERATION: "invoke_workflow",
                WORKFLOW_NAME: data.agent,
                RUN_ID: event.run_id,
                EVENT_ID: event.id,
                "findesk.mode": data.mode,
                **self.extra,
            }
            as_of = data.inputs.get("as_of")
            if isinstance(as_of, str):
                attrs["findesk.as_of"] = as_of
            self._open[event.id] = "root"
            self._known.add(event.id)
            return [SpanOpen(event.id, None, f"invoke_workflow {data.agent}", at, attrs)]
        agent: Attrs = {
            OPERATION: "invoke_agent",
            AGENT_NAME: data.agent,
            "findesk.agent.mode": data.mode,
        }
        return [self._open_span(event, "agent", f"invoke_agent {data.agent}", at, agent)]

    def _agent_end(self, event: Event, data: AgentEnd, at: int) -> list[SpanOp]:
        key = event.parent_id
        if key is None or key not in self._open:
            return []
        totals: Attrs = {
            "findesk.usage.input_tokens": data.input_tokens,
            "findesk.usage.output_tokens": data.output_tokens,
            COST_USD: data.cost_usd,
            "findesk.tool_calls": data.tool_calls,
        }
        if self._open[key] == "root":
            # the workflow's own agent_end: its totals go on the root, which ends with done or error
            return [SpanSet(key, totals)]
        del self._open[key]
        totals["findesk.agent.fell_back"] = data.fell_back
        totals["findesk.agent.iterations"] = data.iterations
        if data.stopped:
            totals["findesk.agent.stopped"] = data.stopped
        error = None if data.ok else "agent_failed"
        return [SpanClose(key, at, totals, error, data.summary if error else "")]

    def _tool_result(self, event: Event, data: ToolResultReady, at: int) -> list[SpanOp]:
        key = event.parent_id
        if key is None or self._open.get(key) != "tool":
            return []
        del self._open[key]
        attrs: Attrs = {"findesk.tool.cached": data.cached, "findesk.tool.latency_ms": data.latency_ms}
        if data.ok:
            return [SpanClose(key, at, attrs)]
        return [SpanClose(key, at, attrs, data.error_code or "tool_error", data.summary)]

    def _llm_call(self, event: Event, data: LlmCall, at: int) -> list[SpanOp]:
        attrs: Attrs = {
            OPERATION: "chat",
            PROVIDER: data.provider,
            REQUEST_MODEL: data.model,
            INPUT_TOKENS: data.input_tokens,
            OUTPUT_TOKENS: data.output_tokens,
            CACHE_READ_TOKENS: data.cached_tokens,
            CACHE_WRITE_TOKENS: data.cache_write_tokens,
            COST_USD: data.cost_usd,
            LANGFUSE_COST: json.dumps({"total": data.cost_usd}),
            "findesk.llm.attempt": data.attempt,
            "findesk.llm.latency_ms": data.latency_ms,
        }
        start = at - int(data.latency_ms * 1_000_000)
        opened = self._open_span(event, "llm", f"chat {data.model}", start, attrs)
        del self._open[event.id]  # it is over already
        error = None if data.ok else data.error_code or "llm_error"
        return [opened, SpanClose(event.id, at, {}, error, (data.error or "") if error else "")]

    def _note(self, event: Event, data: RunWarning | SectionReady, at: int) -> list[SpanOp]:
        key = self._parent_span(event.parent_id)
        if key is None:
            return []
        if isinstance(data, RunWarning):
            return [SpanNote(key, "findesk.warning", at, {"findesk.warning.code": data.code})]
        return [SpanNote(key, "findesk.section", at, {"findesk.section.name": data.name})]

    def _end_run(self, event: Event, data: Done | Error, at: int) -> list[SpanOp]:
        ops: list[SpanOp] = []
        if self.root is None:  # refused before it opened (invalid input): the run is one span
            self.root = event.id
            attrs: Attrs = {OPERATION: "invoke_workflow", WORKFLOW_NAME: self.workflow, RUN_ID: event.run_id}
            attrs.update({EVENT_ID: event.id, **self.extra})
            ops.append(SpanOpen(event.id, None, f"invoke_workflow {self.workflow}", at, attrs))
            self._open[event.id] = "root"
        root = self.root
        inner = [k for k in self._open if k != root]
        for key in reversed(inner):
            ops.append(SpanClose(key, at, {}, UNFINISHED, "the run ended before this span did"))
        self._open.clear()
        self.finished = True
        if isinstance(data, Error):
            ops.append(SpanClose(root, at, {}, data.code, data.message))
        else:
            ops.append(SpanClose(root, at, {}))
        return ops

    # -- helpers ----------------------------------------------------------------------------------

    def _open_span(self, event: Event, kind: str, name: str, at: int, attrs: Attrs) -> SpanOpen:
        self._open[event.id] = kind
        self._known.add(event.id)
        return SpanOpen(event.id, self._parent_span(event.parent_id), name, at, {**attrs, EVENT_ID: event.id})

    def _parent_span(self, parent_id: str | None) -> str | None:
        if parent_id is not None and parent_id in self._known:
            return parent_id
        return self.root


def _tool_attrs(data: ToolCallStarted) -> Attrs:
    return {
        OPERATION: "execute_tool",
        TOOL_NAME: data.name,
        TOOL_CALL_ID: data.call_id,
        TOOL_TYPE: "function",
        "findesk.tool.prefetch": data.prefetch,
    }
