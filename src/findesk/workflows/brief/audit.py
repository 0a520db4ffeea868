"""The briefing's audit trail, read back from the run's own events.

Rules:
- Pure: events in, records out. The tool trace pairs every ``tool_call`` with its ``tool_result``
  (by parent id); a call without a result is reported as ``interrupted``.
- Model round trips on the critical path: the sub-agents run in parallel, so the path is the larger of
  their model-call counts plus the coordinator's (every attempt counts: a retry is a round trip too).
- The number pool for the trace check holds every tool result of the run and the typed reports.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from findesk.core.events.model import AgentEnd, Event, LlmCall, ToolCallStarted, ToolResultReady
from findesk.guardrails.number_trace import NumberCollector
from findesk.tools.summaries import clip
from findesk.workflows.brief.models import AgentRecord, ToolCallRecord

PARALLEL_AGENTS = ("official", "social")
SUMMARY_CHARS = 160


def tool_calls(events: Sequence[Event]) -> list[ToolCallRecord]:
    results = {e.parent_id: e for e in events if isinstance(e.data, ToolResultReady)}
    records = []
    for event in events:
        call = event.data
        if not isinstance(call, ToolCallStarted):
            continue
        done = results.get(event.id)
        result = done.data if done is not None and isinstance(done.data, ToolResultReady) else None
        records.append(
            ToolCallRecord(
                agent=event.agent or "",
                name=call.name,
                arguments=dict(call.arguments),
                status="interrupted"
                if result is None
                else ("ok" if result.ok else result.error_code or "error"),
                latency_ms=result.latency_ms if result is not None else 0.0,
                cached=result.cached if result is not None else False,
                summary=clip(result.summary.split("\n", 1)[0], SUMMARY_CHARS) if result is not None else "",
            )
        )
    return records


def agent_records(events: Sequence[Event]) -> list[AgentRecord]:
    starts = {e.id: e.data for e in events if e.data.type == "agent_start"}
    records = []
    for event in events:
        end = event.data
        if not isinstance(end, AgentEnd):
            continue
        start = starts.get(event.parent_id or "")
        records.append(
            AgentRecord(
                name=end.agent,
                mode=end.mode,
                mode_reason=getattr(start, "mode_reason", ""),
                fell_back=end.fell_back,
                model_turns=end.iterations,
                tool_calls=end.tool_calls,
                input_tokens=end.input_tokens,
                output_tokens=end.output_tokens,
                cost_usd=end.cost_usd,
                latency_ms=end.latency_ms,
            )
        )
    return records


def model_round_trips(events: Sequence[Event]) -> int:
    calls = Counter(e.agent for e in events if isinstance(e.data, LlmCall))
    parallel = max((calls.get(a, 0) for a in PARALLEL_AGENTS), default=0)
    return parallel + sum(n for agent, n in calls.items() if agent not in PARALLEL_AGENTS)


def collect_tool_numbers(events: Sequence[Event], numbers: NumberCollector) -> NumberCollector:
    """Add each tool result's numbers to ``numbers`` once (keyed by event id); returns ``numbers``."""
    for e in events:
        if isinstance(e.data, ToolResultReady) and e.data.result is not None:
            numbers.add(e.id, e.data.result)
    return numbers
