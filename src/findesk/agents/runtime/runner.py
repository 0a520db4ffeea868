"""The agent runtime: runs a role deterministically or with a model and returns the same typed output.

Rules:
- Mode: ``deterministic`` when asked, or when no model is configured for the role's tier (the
  reason is stated in the agent_start event and the outcome); otherwise model-driven.
- Model-driven runs that cannot produce a valid report (model chain down, budget spent, turns used
  up, output invalid after one repair) end on the deterministic composer with a warning event —
  the caller always gets a schema-valid output. The runtime never raises for a tool or model failure.
- Every agent run is bracketed by agent_start / agent_end events; its tool and model events nest
  under its agent_start. A model-written report is kept in agent_end (``output``, as validated, before
  any workflow touches it), with the reports the model submitted that failed validation (``rejected``)
  and why a model loop gave up (``stopped``): the audit log alone can replay the run
  (``agents.runtime.replay``).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from pydantic import BaseModel

from findesk.agents.role import Role
from findesk.agents.runtime.deterministic import compose, run_playbook
from findesk.agents.runtime.model_loop import SUBMIT_TOOL, ModelLoop
from findesk.agents.runtime.outcome import AgentOutcome, Budget, Mode, RequestedMode
from findesk.agents.runtime.tool_runner import ToolRunner
from findesk.core.events.model import AgentEnd, AgentStart, RunWarning
from findesk.core.events.trace import Tracer
from findesk.core.llm.chain import ModelChain
from findesk.core.llm.types import ChatModel, ModelRequest, ModelResponse
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.tools.base import ToolContext, ToolRegistry

OutT = TypeVar("OutT", bound=BaseModel)

# Resolves the model chain for a role (its tier, per-role overrides); Err(not_configured) → deterministic.
ModelResolver = Callable[[Role[Any, Any]], Result[ModelChain]]


def no_models(role: Role[Any, Any]) -> Result[ModelChain]:
    return Err(ErrorCode.NOT_CONFIGURED, "no model is configured; running in deterministic mode")


class AgentRuntime:
    def __init__(
        self,
        registry: ToolRegistry,
        ctx: ToolContext,
        *,
        models: ModelResolver = no_models,
        budget: Budget | None = None,
    ) -> None:
        self.registry = registry
        self.ctx = ctx
        self.models = models
        self.budget = budget or Budget(limit_usd=1.0)

    async def run(
        self, role: Role[Any, OutT], inputs: BaseModel, tracer: Tracer, *, mode: RequestedMode = "auto"
    ) -> AgentOutcome[OutT]:
        started = time.perf_counter()
        chain, mode_used, reason = self._choose(role, mode)
        start = tracer.emit(
            AgentStart(
                agent=role.name, mode=mode_used, mode_reason=reason, inputs=inputs.model_dump(mode="json")
            )
        )
        scope = tracer.child(start.id, agent=role.name)
        runner = ToolRunner(self.registry, self.ctx, role.tools, scope)
        if mode == "model" and chain is None:
            scope.emit(RunWarning(code="model_not_configured", message=reason))
        submits = _Submits()
        if chain is None:
            outcome = await self._deterministic(role, inputs, runner, mode_used, reason)
        else:
            outcome = await self._model_driven(role, inputs, runner, scope, submits.watch(chain))
        outcome.tool_calls = runner.calls
        outcome.latency_ms = (time.perf_counter() - started) * 1000
        tracer.emit(
            AgentEnd(
                agent=role.name,
                mode=outcome.mode,
                ok=True,
                fell_back=outcome.fell_back,
                summary=_summary(outcome.output),
                iterations=outcome.iterations,
                tool_calls=outcome.tool_calls,
                input_tokens=outcome.usage.input_tokens,
                output_tokens=outcome.usage.output_tokens,
                cost_usd=round(outcome.cost_usd, 6),
                latency_ms=round(outcome.latency_ms, 3),
                output=_recorded_output(outcome),
                stopped=outcome.stopped,
                rejected=submits.rejected(outcome),
            ),
            parent_id=start.id,
        )
        return outcome

    def _choose(self, role: Role[Any, Any], mode: RequestedMode) -> tuple[ModelChain | None, Mode, str]:
        if mode == "deterministic":
            return None, "deterministic", "deterministic mode was requested"
        resolved = self.models(role)
        if isinstance(resolved, Ok):
            return resolved.value, "model", f"model chain {resolved.value.label}"
        return None, "deterministic", resolved.reason

    async def _deterministic(
        self, role: Role[Any, OutT], inputs: BaseModel, runner: ToolRunner, mode: Mode, reason: str
    ) -> AgentOutcome[OutT]:
        outcomes = await run_playbook(role, inputs, runner)
        output = compose(role, inputs, outcomes)
        return AgentOutcome(output=output, mode=mode, mode_reason=reason, outcomes=outcomes)

    async def _model_driven(
        self, role: Role[Any, OutT], inputs: BaseModel, runner: ToolRunner, scope: Tracer, chain: ModelChain
    ) -> AgentOutcome[OutT]:
        prefetched = await run_playbook(role, inputs, runner, prefetch=True) if role.prefetch else None
        loop = ModelLoop(
            role, chain, self.registry, runner, scope, self.budget, self.ctx.context.describe_for_model()
        )
        result = await loop.run(inputs, prefetched)
        outcome: AgentOutcome[OutT]
        if result.output is not None:
            # validated against role.output_schema by the loop
            report = cast(OutT, result.output)
            outcome = AgentOutcome(
                output=report,
                mode="model",
                mode_reason=f"model chain {chain.label}",
                outcomes=prefetched or {},
            )
        else:
            # the playbook's calls were pre-fetched (or run now) through the same memo: no refetching
            scope.emit(
                RunWarning(code=result.code, message=f"{result.reason}; using the deterministic composer")
            )
            outcomes = prefetched if prefetched is not None else await run_playbook(role, inputs, runner)
            output = compose(role, inputs, outcomes)
            outcome = AgentOutcome(
                output=output,
                mode="model",
                mode_reason=f"model chain {chain.label}",
                warnings=[f"{result.code}: {result.reason}"],
                fell_back=True,
                stopped=result.code,
                outcomes=outcomes,
            )
        outcome.iterations = result.iterations
        outcome.usage = result.usage
        outcome.cost_usd = result.cost_usd
        return outcome


@dataclass
class _Submits:
    """The ``submit_report`` arguments a model sent, by model turn (the first per turn: the only one the
    loop validates), seen through the chain's models without changing what they answer."""

    turn: int = 0  # model turns answered so far
    seen: list[tuple[int, dict[str, Any]]] = field(default_factory=list)

    def watch(self, chain: ModelChain) -> ModelChain:
        watched = copy.copy(chain)  # the same chain (class, prices, retries), its models watched
        watched.models = [_Watched(m, self) for m in chain.models]
        return watched

    def saw(self, response: ModelResponse) -> None:
        self.turn += 1
        first = next((c for c in response.tool_calls if c.name == SUBMIT_TOOL), None)
        if first is not None:
            self.seen.append((self.turn, dict(first.arguments)))

    def rejected(self, outcome: AgentOutcome[Any]) -> list[dict[str, Any]]:
        """Every submission but the one that became the output (made on the loop's last turn)."""
        accepted = outcome.iterations if outcome.mode == "model" and not outcome.fell_back else None
        return [{"turn": t, "report": args} for t, args in self.seen if t != accepted]


class _Watched:
    """A ``ChatModel`` passing every call to ``inner`` unchanged, telling ``submits`` what it answered."""

    def __init__(self, inner: ChatModel, submits: _Submits) -> None:
        self.inner = inner
        self.submits = submits
        self.provider = inner.provider
        self.model = inner.model

    async def complete(self, request: ModelRequest) -> Result[ModelResponse]:
        result = await self.inner.complete(request)
        if isinstance(result, Ok):
            self.submits.saw(result.value)
        return result

    async def aclose(self) -> None:
        await self.inner.aclose()


def _recorded_output(outcome: AgentOutcome[Any]) -> dict[str, Any] | None:
    """The model's own validated report, as the audit log keeps it for a replay; None when code wrote it
    (deterministic mode, or the fallback composer after the model path failed)."""
    if outcome.mode != "model" or outcome.fell_back:
        return None
    dumped: dict[str, Any] = outcome.output.model_dump(mode="json")
    return dumped


def _summary(output: BaseModel) -> str:
    text = getattr(output, "summary", None)
    if isinstance(text, str) and text:
        return text[:300]
    return output.model_dump_json()[:300]
