"""What running a role returns, and the run's dollar budget.

Rules:
- Both modes return the same ``AgentOutcome``: the role's typed output plus how it was produced
  (mode and why, warnings, counts, tokens, dollars).
- A budget is shared by every agent of one run; spending is recorded from provider-reported usage
  only, after each model call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

from pydantic import BaseModel

from findesk.core.llm.types import TokenUsage
from findesk.tools.base import ToolOutcome

OutT = TypeVar("OutT", bound=BaseModel)
Mode = Literal["deterministic", "model"]
RequestedMode = Literal["auto", "deterministic", "model"]


@dataclass
class Budget:
    """A run's ledger: dollars and tokens (input + output) spent by every model call of the run, with a
    hard cap on each (``limit_tokens`` None: dollars only). Crossing either stops the model loop."""

    limit_usd: float
    spent_usd: float = 0.0
    limit_tokens: int | None = None
    used_tokens: int = 0

    @property
    def exhausted(self) -> bool:
        over_tokens = self.limit_tokens is not None and self.used_tokens >= self.limit_tokens
        return self.spent_usd >= self.limit_usd or over_tokens

    def charge(self, usd: float, tokens: int = 0) -> None:
        self.spent_usd += usd
        self.used_tokens += tokens


@dataclass
class AgentOutcome(Generic[OutT]):
    output: OutT
    mode: Mode
    mode_reason: str
    warnings: list[str] = field(default_factory=list)
    fell_back: bool = False  # model-driven run that ended on the deterministic composer
    stopped: str | None = None  # why the model loop stopped without a report (budget_exceeded, ...)
    iterations: int = 0  # model turns
    tool_calls: int = 0
    usage: TokenUsage = field(default_factory=TokenUsage)
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    # The playbook's outcomes (run, or pre-fetched for the model), by playbook key: workflows build
    # code-computed evidence from them, so figures never depend on what a model copied.
    outcomes: dict[str, ToolOutcome] = field(default_factory=dict)
