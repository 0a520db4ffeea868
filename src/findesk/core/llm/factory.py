"""Build chat models and fallback chains from ``LlmSettings``.

Rules:
- A model spec is ``provider:model``, split on the first ``:`` so the model part may contain more
  (``ollama:llama3.1:8b``). ``anthropic`` and ``openai`` are built in; any other provider must be a
  server declared under ``[llm.servers]``. A malformed spec or an unknown provider is
  ``invalid_input``.
- A key comes from the settings first, then the provider's usual environment variable; a missing key
  is ``not_configured`` and says both ways to set it.
- ``model_chain`` skips models whose key is missing; when none is left the ``Err`` says the run falls
  back to deterministic mode. Nothing here touches the network or imports a provider SDK.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from typing import get_args

from pydantic import SecretStr

from findesk.core.config import LlmSettings, Tier
from findesk.core.llm.anthropic_provider import AnthropicModel
from findesk.core.llm.chain import ModelChain
from findesk.core.llm.openai_provider import OpenAIChatModel
from findesk.core.llm.pricing import PriceTable
from findesk.core.llm.types import ChatModel
from findesk.core.result import Err, ErrorCode, Ok, Result

__all__ = ["chat_model", "model_chain"]

_KEY_ENVS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
_KEY_HINTS = {
    "anthropic": "set FINDESK_LLM__ANTHROPIC_API_KEY or ANTHROPIC_API_KEY",
    "openai": "set FINDESK_LLM__OPENAI_API_KEY or OPENAI_API_KEY",
}


def chat_model(spec: str, llm: LlmSettings) -> Result[ChatModel]:
    provider, sep, model = spec.strip().partition(":")
    provider, model = provider.strip(), model.strip()
    if not sep or not provider or not model:
        return Err(
            ErrorCode.INVALID_INPUT,
            f"model spec {spec!r} is not 'provider:model' (e.g. 'anthropic:claude-sonnet-4-5')",
        )
    if provider == "anthropic":
        key = _key(llm.anthropic_api_key, "ANTHROPIC_API_KEY")
        if key is None:
            return _no_key(provider, spec)
        return Ok(AnthropicModel(model, key, base_url=llm.anthropic_base_url, timeout_s=llm.timeout_s))
    if provider == "openai":
        key = _key(llm.openai_api_key, "OPENAI_API_KEY")
        if key is None:
            return _no_key(provider, spec)
        return Ok(OpenAIChatModel(model, key, base_url=llm.openai_base_url, timeout_s=llm.timeout_s))
    server = llm.servers.get(provider)
    if server is None:
        known = ", ".join(["anthropic", "openai", *sorted(llm.servers)])
        return Err(
            ErrorCode.INVALID_INPUT,
            f"unknown model provider {provider!r} in {spec!r}; known providers: {known} "
            "(declare other OpenAI-compatible servers under [llm.servers])",
        )
    api_key = server.api_key.get_secret_value() if server.api_key is not None else None
    return Ok(
        OpenAIChatModel(model, api_key, base_url=server.base_url, provider=provider, timeout_s=llm.timeout_s)
    )


def model_chain(
    llm: LlmSettings,
    tier: Tier,
    role: str | None = None,
    *,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> Result[ModelChain]:
    if role is not None:
        tier = llm.role_tiers.get(role, tier)
    specs = llm.tiers.get(tier, [])
    models: list[ChatModel] = []
    missing: list[str] = []
    for spec in specs:
        built = chat_model(spec, llm)
        if isinstance(built, Ok):
            models.append(built.value)
        elif built.code is ErrorCode.NOT_CONFIGURED:
            missing.append(spec)
        else:
            return built
    if not models:
        envs = sorted({_KEY_ENVS[p] for p in (s.partition(":")[0] for s in missing) if p in _KEY_ENVS})
        how = f"set {' or '.join(envs)}" if envs else f"list model specs under [llm.tiers] {tier}"
        return Err(
            ErrorCode.NOT_CONFIGURED,
            f"no model key configured for the {tier} tier ({how}); deterministic mode",
            details={"tier": tier, "skipped": missing},
        )
    chain = ModelChain(
        models,
        PriceTable(llm.prices),
        max_retries=llm.max_retries,
        backoff_base_s=llm.backoff_base_s,
        backoff_max_s=llm.backoff_max_s,
        sleep=sleep,
    )
    return Ok(chain)


def _key(configured: SecretStr | None, env_name: str) -> str | None:
    if configured is not None and configured.get_secret_value():
        return configured.get_secret_value()
    return os.environ.get(env_name) or None


def _no_key(provider: str, spec: str) -> Err:
    return Err(
        ErrorCode.NOT_CONFIGURED,
        f"{spec} needs an API key: {_KEY_HINTS[provider]}",
        f"{provider}:{spec.partition(':')[2].strip()}",
    )


async def reservable_budget_usd(llm: LlmSettings, *, deterministic: bool) -> float:
    """What a run may spend on models, to reserve against a caller's daily cap before it starts: its
    budget, or nothing when it cannot reach a model (a deterministic run, or no model configured)."""
    if deterministic:
        return 0.0
    for tier in get_args(Tier):
        chain = model_chain(llm, tier)  # cheap: clients connect on first use
        if isinstance(chain, Ok):
            await chain.value.aclose()
            return llm.budget_usd
    return 0.0
