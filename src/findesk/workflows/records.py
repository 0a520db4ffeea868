"""A run's audit trail, read back from its own events: tool calls, agent records, model round trips and
the number pool the output guard checks against. Shared by every workflow.

Rules:
- Pure: events in, records out. Nothing depends on agent names.
- The tool trace pairs every ``tool_call`` with its ``tool_result`` (by parent id); a call without a
  result is reported as ``interrupted``.
- Model round trips on the critical path come from the events' nesting and order: the agents directly
  under the run's opening event are grouped into waves of runs that overlap in time (one started before
  another ended); a wave costs the largest model-call count among its agents, waves add up. Every
  attempt counts (a retry is a round trip too); calls of nested agents count for their top agent.
- The number pool holds every tool result of the run (each event walked once) plus the typed reports.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from findesk.core.events.model import AgentEnd, AgentStart, Event, LlmCall, ToolCallStarted, ToolResultReady
from findesk.guardrails.number_trace import NumberCollector
from findesk.tools.summaries import clip

SUMMARY_CHARS = 160


class ToolCallRecord(BaseModel):
    agent: str
    name: str
    arguments: dict[str, object]
    status: str  # "ok" or the error code
    latency_ms: float
    cached: bool = False
    summary: str  # first line of the tool's summary or its error, and what was quarantined
    # passages withheld as likely prompt injection: "<where>: <reasons>" (the text is in the audit log)
    quarantined: list[str] = []


class AgentRecord(BaseModel):
    name: str
    mode: str
    mode_reason: str
    fell_back: bool = False
    model_turns: int = 0
    tool_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_ms: float = 0.0


def tool_calls(events: Sequence[Event]) -> list[ToolCallRecord]:
    results = {e.parent_id: e for e in events if isinstance(e.data, ToolResultReady)}
    records = []
    for event in events:
        call = event.data
        if not isinstance(call, ToolCallStarted):
            continue
        done = results.get(event.id)
        result = done.data if done is not None and isinstance(done.data, ToolResultReady) else None
        held = (
            [f"{q.get('path') or 'result'}: {', '.join(q.get('reasons') or [])}" for q in result.quarantined]
            if result
            else []
        )
        first = clip(result.summary.split("\n", 1)[0], SUMMARY_CHARS) if result is not None else ""
        if held:  # first, so a clipped trace line still says it
            first = f"⚠ {len(held)} passage(s) quarantined as likely prompt injection ({held[0]}) · {first}"
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
                summary=first,
                quarantined=held,
            )
        )
    return records


def agent_records(events: Sequence[Event], *, skip: str | None = None) -> list[AgentRecord]:
    """One record per finished agent, in the order they ended. ``skip``: the id of the run's opening
    event, whose own closing ``agent_end`` is the workflow's, not an agent's."""
    starts = {e.id: e.data for e in events if isinstance(e.data, AgentStart)}
    records = []
    for event in events:
        end = event.data
        if not isinstance(end, AgentEnd) or (skip is not None and event.parent_id == skip):
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
    """Sequential model calls on the run's critical path (see the module rules)."""
    by_id = {e.id: e for e in events}
    opening = next((e for e in events if e.parent_id is None and isinstance(e.data, AgentStart)), None)
    top_parent = opening.id if opening is not None else None
    tops = [e for e in events if isinstance(e.data, AgentStart) and e.parent_id == top_parent]
    top_ids = {e.id for e in tops}
    ends = {e.parent_id: e.seq for e in events if isinstance(e.data, AgentEnd)}
    calls: dict[str, int] = dict.fromkeys(top_ids, 0)
    for e in events:
        if isinstance(e.data, LlmCall):
            top = _top_agent(e, by_id, top_ids)
            if top is not None:
                calls[top] += 1
    total, wave_end, wave_max = 0, -1, 0
    for start in sorted(tops, key=lambda e: e.seq):
        end = ends.get(start.id, start.seq if not events else events[-1].seq)
        if start.seq > wave_end:  # starts after every agent of the wave ended: a new wave
            total += wave_max
            wave_max = 0
        wave_end = max(wave_end, end)
        wave_max = max(wave_max, calls[start.id])
    return total + wave_max


def _top_agent(event: Event, by_id: dict[str, Event], top_ids: set[str]) -> str | None:
    seen = 0
    parent = event.parent_id
    while parent is not None and seen < 1000:  # a cycle cannot happen; the bound keeps it certain
        if parent in top_ids:
            return parent
        found = by_id.get(parent)
        parent = found.parent_id if found is not None else None
        seen += 1
    return None


def collect_tool_numbers(events: Sequence[Event], numbers: NumberCollector) -> NumberCollector:
    """Add each tool result's numbers to ``numbers`` once (keyed by event id); returns ``numbers``."""
    for e in events:
        if isinstance(e.data, ToolResultReady) and e.data.result is not None:
            numbers.add(e.id, e.data.result)
    return numbers
