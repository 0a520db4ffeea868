"""What a recorded run needs from the agents layer: the runtime built from settings, and input checks.

Rules:
- The mode is chosen per role from the configured models; with no key the run is deterministic and
  says so (agent_start's ``mode_reason``, the outcome).
- A ``symbol`` input outside scope (non-US, malformed) is refused before any tool is called.
- The run envelope (events, tools, ``done``/``error``) is the workflows runner's: a single agent runs
  as a one-node workflow (``workflows.agent_spec``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from findesk.agents.role import Role
from findesk.agents.runtime import AgentRuntime, Budget, ModelResolver
from findesk.core.config import Settings
from findesk.core.llm.chain import ModelChain
from findesk.core.llm.factory import model_chain
from findesk.core.result import Err, ErrorCode, Ok, Result, validation_reason
from findesk.data.symbols import normalize_symbol
from findesk.guardrails.input_guard import guard_text
from findesk.tools.base import ToolContext, ToolRegistry
from findesk.tools.catalog import default_registry


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
        budget=Budget(limit_usd=settings.llm.budget_usd, limit_tokens=settings.llm.run_token_limit),
    )


def parse_inputs(role: Role[Any, Any], raw: dict[str, Any]) -> Result[BaseModel]:
    """Validate raw inputs against the role's schema, then check their scope."""
    try:
        inputs = role.input_schema.model_validate(raw)
    except ValidationError as exc:
        return Err(ErrorCode.INVALID_INPUT, f"{role.name}: {validation_reason(exc, limit=1)}")
    return check_scope(inputs)  # the checked inputs: a question with its personal data replaced


_TEXT_FIELDS = ("question", "query")


def check_scope(inputs: BaseModel) -> Result[BaseModel]:
    """A ``symbol`` input must be a US listing, and a free-text ``question`` or ``query`` goes through the
    input guard (PII redacted, injection, misconduct, advice and off-topic refused): anything else is
    refused before any tool runs."""
    symbol = getattr(inputs, "symbol", None)
    if isinstance(symbol, str):
        checked = normalize_symbol(symbol)
        if isinstance(checked, Err):
            return checked
    updates: dict[str, str] = {}
    for name in _TEXT_FIELDS:
        text = getattr(inputs, name, None)
        if isinstance(text, str) and text.strip():
            guarded = guard_text(text, what=name)
            if isinstance(guarded, Err):
                return guarded
            updates[name] = guarded.value.text
    return Ok(inputs.model_copy(update=updates) if updates else inputs)
