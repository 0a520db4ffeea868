"""Running one agent as a recorded run: tools opened, events emitted, ``done`` or ``error`` at the end.

Rules:
- A run always ends with exactly one ``done`` (carrying the typed output) or ``error`` event, so the
  audit log and any stream can tell a finished run from an interrupted one.
- The mode is chosen per role from the configured models; with no key the run is deterministic and
  says so (agent_start's ``mode_reason``, the outcome).
- A ``symbol`` input outside scope (non-US, malformed) is refused before any tool is called.
- Returns ``Err`` instead of raising; an unexpected exception becomes an ``error`` event and an
  ``unavailable`` result naming it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from findesk.agents.role import Role
from findesk.agents.runtime import AgentOutcome, AgentRuntime, Budget, ModelResolver
from findesk.agents.runtime.outcome import RequestedMode
from findesk.core.config import Settings
from findesk.core.events.model import Done, Error
from findesk.core.events.trace import EventBus, Sink, Tracer
from findesk.core.llm.chain import ModelChain
from findesk.core.llm.factory import model_chain
from findesk.core.result import Err, ErrorCode, Ok, Result, validation_reason
from findesk.data.context import DataContext
from findesk.data.symbols import normalize_symbol
from findesk.tools.base import ToolContext, ToolRegistry
from findesk.tools.catalog import close_tool_context, default_registry, open_tool_context

OutT = TypeVar("OutT", bound=BaseModel)


@dataclass
class AgentRun(Generic[OutT]):
    run_id: str
    context: str  # "offline snapshot as of 2025-08-29" / "live"
    outcome: AgentOutcome[OutT]


def settings_models(settings: Settings) -> ModelResolver:
    """Resolve each role's model chain from ``settings.llm`` (tier, per-role override, keys)."""

    def resolve(role: Role[Any, Any]) -> Result[ModelChain]:
        return model_chain(settings.llm, role.tier, role.name)

    return resolve


def settings_runtime(
    settings: Settings,
    ctx: ToolContext,
    *,
    models: ModelResolver | None = None,
    registry: ToolRegistry | None = None,
) -> AgentRuntime:
    """The runtime of one recorded run: the default tools, models from settings, the run's budget."""
    return AgentRuntime(
        registry or default_registry(),
        ctx,
        models=models or settings_models(settings),
        budget=Budget(limit_usd=settings.llm.budget_usd),
    )


def parse_inputs(role: Role[Any, Any], raw: dict[str, Any]) -> Result[BaseModel]:
    """Validate raw inputs against the role's schema, then check their scope."""
    try:
        inputs = role.input_schema.model_validate(raw)
    except ValidationError as exc:
        return Err(ErrorCode.INVALID_INPUT, f"{role.name}: {validation_reason(exc, limit=1)}")
    return check_scope(inputs).map(lambda _: inputs)


def check_scope(inputs: BaseModel) -> Result[BaseModel]:
    """A ``symbol`` input must be a US listing: anything else is refused before any tool runs."""
    symbol = getattr(inputs, "symbol", None)
    if isinstance(symbol, str):
        checked = normalize_symbol(symbol)
        if isinstance(checked, Err):
            return checked
    return Ok(inputs)


async def run_agent(
    role: Role[Any, OutT],
    inputs: BaseModel,
    *,
    settings: Settings,
    context: DataContext,
    sinks: Sequence[Sink] = (),
    mode: RequestedMode = "auto",
    models: ModelResolver | None = None,
    registry: ToolRegistry | None = None,
    run_id: str | None = None,
) -> Result[AgentRun[OutT]]:
    tracer = Tracer(EventBus(sinks), run_id)
    in_scope = check_scope(inputs)
    if isinstance(in_scope, Err):
        tracer.emit(Error(code=in_scope.code.value, message=in_scope.reason))
        return in_scope
    opened = await open_tool_context(settings, context)
    if isinstance(opened, Err):
        tracer.emit(Error(code=opened.code.value, message=opened.reason))
        return opened
    runtime = settings_runtime(settings, opened.value, models=models, registry=registry)
    try:
        outcome = await runtime.run(role, inputs, tracer, mode=mode)
    except (asyncio.CancelledError, KeyboardInterrupt):
        tracer.emit(Error(code="interrupted", message="the run was interrupted"))
        raise
    except Exception as exc:
        message = f"internal error in {role.name}: {type(exc).__name__}: {exc}"
        tracer.emit(Error(code=ErrorCode.UNAVAILABLE.value, message=message))
        return Err(ErrorCode.UNAVAILABLE, message)
    finally:
        await close_tool_context(opened.value)
    tracer.emit(Done(result=outcome.output.model_dump(mode="json"), summary=_summary(outcome)))
    return Ok(AgentRun(tracer.run_id, context.describe(), outcome))


def _summary(outcome: AgentOutcome[Any]) -> str:
    text = getattr(outcome.output, "summary", "")
    return text if isinstance(text, str) else ""
