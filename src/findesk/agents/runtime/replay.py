"""A model run replayed from its audit log: every role answers as its model answered the first time.

Rules:
- The record of one role run is its ``agent_end`` (mode, ``output``, ``rejected``, ``fell_back``,
  ``stopped``) and the events nested under its ``agent_start``: each successful ``llm_call`` opens a
  model turn; the model's text (``token``) and its own tool calls (``tool_call`` events not issued by the
  playbook's prefetch) belong to the turn they follow. The workflow's closing ``agent_end`` (a child of
  the opening event) is no role run.
- Records are queued per role name, in the order the role ran: a role that runs several times (one
  debate turn each) takes its records in order. Concurrent agents of different roles interleave in the
  log, so the queue is keyed by role name only.
- Each run of a role gets a ``ReplayModel``, a real ``ChatModel`` behind a ``ModelChain`` with no retries:
  turn by turn it repeats the recorded text and tool calls (so tool results, and the numbers the output
  guard traces, are the same) and the reports the model submitted that failed validation (so the loop
  rejects them for the same reason), and on its last recorded turn submits the recorded output through
  ``submit_report``. Usage and cost are zero: a replay spends nothing.
- Past its recorded turns, a role whose model path fell back keeps falling back the same way:
  ``invalid_output`` and ``max_iterations`` as a model that never submits (plain text, or the recorded
  tool calls again); anything else (``model_unavailable``, ``budget_exceeded``) as a model that is
  unavailable.
- A role that ran deterministically, or not at all, in the recorded run gets ``not_configured`` and runs
  deterministically again.
- Pure: reads the events given, never the audit log itself; nothing here touches the network.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from findesk.agents.role import Role
from findesk.agents.runtime.model_loop import SUBMIT_TOOL
from findesk.agents.runtime.runner import ModelResolver
from findesk.core.events.model import AgentEnd, AgentStart, Event, LlmCall, Token, ToolCallStarted
from findesk.core.llm.chain import ModelChain
from findesk.core.llm.pricing import PriceTable
from findesk.core.llm.types import ModelRequest, ModelResponse, TokenUsage, ToolCall
from findesk.core.result import Err, ErrorCode, Ok, Result

__all__ = ["RecordedAgent", "RecordedTurn", "ReplayModel", "recorded_agents", "recorded_models"]

PROVIDER = "replay"
NO_REPORT = "recorded run: the model gave no report on this turn"
UNAVAILABLE = "recorded run: the model was unavailable"
# a model loop that stopped on these kept answering without a valid report; replayed as such
_NEVER_SUBMITS = frozenset({"invalid_output", "max_iterations"})

Call = tuple[str, dict[str, Any]]  # (tool name, arguments)


@dataclass(frozen=True)
class RecordedTurn:
    """One model turn: its text, its own tool calls, and the report it submitted that was rejected."""

    text: str = ""
    calls: tuple[Call, ...] = ()
    rejected: dict[str, Any] | None = None


@dataclass(frozen=True)
class RecordedAgent:
    """One run of one role as the audit log holds it."""

    agent: str
    mode: str
    output: dict[str, Any] | None = None
    fell_back: bool = False
    stopped: str | None = None
    turns: tuple[RecordedTurn, ...] = ()

    @property
    def model_written(self) -> bool:
        return self.mode == "model"

    @property
    def lacks_output(self) -> bool:
        """A model report recorded before the audit log kept outputs: it cannot be replayed."""
        return self.mode == "model" and not self.fell_back and self.output is None


def recorded_agents(events: Sequence[Event]) -> dict[str, list[RecordedAgent]]:
    """Every role run of the recorded run, per role name, in the order the runs ended."""
    openings = {e.id for e in events if isinstance(e.data, AgentStart) and e.parent_id is None}
    children: dict[str, list[Event]] = {}
    for event in events:
        if event.parent_id is not None:
            children.setdefault(event.parent_id, []).append(event)
    found: dict[str, list[RecordedAgent]] = {}
    for event in sorted(events, key=lambda e: e.seq):
        data = event.data
        if not isinstance(data, AgentEnd) or event.parent_id is None or event.parent_id in openings:
            continue  # the workflow's own closing event, not a role's
        record = RecordedAgent(
            agent=data.agent,
            mode=data.mode,
            output=data.output,
            fell_back=data.fell_back,
            stopped=data.stopped,
            turns=_turns(children.get(event.parent_id, []), data.rejected),
        )
        found.setdefault(data.agent, []).append(record)
    return found


def _turns(under_start: list[Event], rejected: list[dict[str, Any]]) -> tuple[RecordedTurn, ...]:
    texts: list[str] = []
    calls: list[list[Call]] = []
    for event in sorted(under_start, key=lambda e: e.seq):
        data = event.data
        if isinstance(data, LlmCall) and data.ok:
            texts.append("")
            calls.append([])
        elif isinstance(data, Token) and texts:
            texts[-1] += data.text
        elif isinstance(data, ToolCallStarted) and not data.prefetch and calls:
            calls[-1].append((data.name, dict(data.arguments)))
    by_turn = {r.get("turn"): r.get("report") for r in rejected}
    return tuple(
        RecordedTurn(text, tuple(made), _report(by_turn.get(n)))
        for n, (text, made) in enumerate(zip(texts, calls, strict=True), start=1)
    )


def _report(value: object) -> dict[str, Any] | None:
    return dict(value) if isinstance(value, dict) else None


class ReplayModel:
    """A ``ChatModel`` that answers one role run's model loop as the recorded model did."""

    provider = PROVIDER

    def __init__(self, record: RecordedAgent, model: str = "recorded") -> None:
        self.record = record
        self.model = model
        self.calls = 0  # model turns answered so far
        self._ids = itertools.count(1)

    async def complete(self, request: ModelRequest) -> Result[ModelResponse]:
        turn = self.calls
        self.calls += 1
        record = self.record
        turns = record.turns
        if turn < len(turns):
            recorded = turns[turn]
            calls = list(recorded.calls)
            if record.output is not None and turn == len(turns) - 1:
                calls.append((SUBMIT_TOOL, record.output))
            elif recorded.rejected is not None:
                calls.append((SUBMIT_TOOL, recorded.rejected))
            return Ok(self._answer(calls, recorded.text))
        if record.output is not None:  # no turns recorded (a one-turn submit): submit at once
            return Ok(self._answer([(SUBMIT_TOOL, record.output)]))
        if record.fell_back and record.stopped in _NEVER_SUBMITS:
            if record.stopped == "max_iterations":
                # a loop that ran out of turns kept calling tools; keep doing so, memo-cheap
                again = next((t.calls for t in reversed(turns) if t.calls), ())
                return Ok(self._answer(list(again)))
            return Ok(self._answer([], NO_REPORT))
        return Err(ErrorCode.UNAVAILABLE, UNAVAILABLE, f"{self.provider}:{self.model}")

    def _answer(self, calls: list[Call], text: str = "") -> ModelResponse:
        tool_calls = tuple(
            ToolCall(id=f"replay-{next(self._ids)}", name=name, arguments=dict(args)) for name, args in calls
        )
        return ModelResponse(
            provider=self.provider,
            model=self.model,
            text=text,
            tool_calls=tool_calls,
            usage=TokenUsage(),
            stop_reason="tool_use" if tool_calls else "end_turn",
        )

    async def aclose(self) -> None:
        return None


def recorded_models(events: Sequence[Event]) -> ModelResolver:
    """A model resolver that replays ``events`` (one recorded run): each run of a role takes the next
    record of that role name; a role with no model record left runs deterministically."""
    queues = {name: deque(records) for name, records in recorded_agents(events).items()}
    run_id = events[0].run_id if events else "?"
    prices = PriceTable()  # a provider of its own: nothing is priced, so a replay costs 0.0

    def resolve(role: Role[Any, Any]) -> Result[ModelChain]:
        queue = queues.get(role.name)
        record = queue.popleft() if queue else None
        if record is None or not record.model_written:
            return Err(
                ErrorCode.NOT_CONFIGURED,
                f"run {run_id} ran {role.name} without a model here; running it deterministically",
            )
        model = ReplayModel(record, model=f"run {run_id}")
        return Ok(ModelChain([model], prices, max_retries=0))

    return resolve
