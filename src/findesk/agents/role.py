"""An agent role is data: prompt, tools, output schema, model tier, caps and a deterministic policy.

Rules:
- A role never performs I/OutT itself; the runtime runs its tool calls and its composer.
- The deterministic policy is complete on its own: its playbook stages name every tool call the role
  needs, and its composer fills the output schema from their outcomes (errors included), so the role
  works with no model at all and the model-driven path can fall back to it at any point.
- Playbook stages run in order; the calls inside one stage are independent and run concurrently.
  A later stage sees the outcomes of the earlier ones (e.g. list filings, then read the latest one).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from findesk.core.config import Tier
from findesk.core.result import Ok
from findesk.tools.base import ToolOutcome

InT = TypeVar("InT", bound=BaseModel)
OutT = TypeVar("OutT", bound=BaseModel)

Outcomes = Mapping[str, ToolOutcome]  # playbook key -> the outcome of that call


@dataclass(frozen=True)
class PlannedCall:
    key: str  # how the composer finds this call's outcome
    tool: str
    args: dict[str, Any]


Stage = Callable[[Any, Outcomes], list[PlannedCall]]


@dataclass(frozen=True)
class Caps:
    max_iterations: int = 10  # model turns per run of the role
    max_tokens_per_call: int = 4096  # output tokens per model call
    budget_usd: float | None = None  # this role's own cap; the run's budget applies as well
    max_tool_calls_per_turn: int = 8


@dataclass(frozen=True)
class DeterministicPolicy(Generic[InT, OutT]):
    stages: tuple[Callable[[InT, Outcomes], list[PlannedCall]], ...]
    compose: Callable[[InT, Outcomes], OutT]


@dataclass(frozen=True)
class Role(Generic[InT, OutT]):
    name: str
    description: str
    system_prompt: str
    tools: tuple[str, ...]
    input_schema: type[InT]
    output_schema: type[OutT]
    policy: DeterministicPolicy[InT, OutT]
    task: Callable[[InT], str]  # the user message that states the task for a model
    tier: Tier = "mid"
    caps: Caps = field(default_factory=Caps)
    prefetch: bool = True  # run the playbook before the first model turn, so the model starts with facts


def outcome_value(outcomes: Outcomes, key: str) -> Any:
    """The value of a successful call, or None (missing or failed)."""
    outcome = outcomes.get(key)
    if outcome is not None and isinstance(outcome.result, Ok):
        return outcome.result.value
    return None


def outcome_failure(outcomes: Outcomes, key: str) -> str:
    """Why a call failed, for a reader: its one-line error without the router's instruction to a model."""
    from findesk.data.router import DO_NOT_ESTIMATE

    return (outcome_error(outcomes, key) or "no result").replace(DO_NOT_ESTIMATE, "").strip()


def outcome_error(outcomes: Outcomes, key: str) -> str | None:
    """The one-line error of a failed call, or None."""
    outcome = outcomes.get(key)
    if outcome is None:
        return f"{key}: not requested"
    return None if outcome.ok else outcome.summary
