"""One dollar budget for a whole pipeline: every child run's model calls are charged to the pipeline
run's own ledger (its ``Budget``, from ``[llm] budget_usd`` and ``run_token_limit``).

Rules:
- A child run gets the parent's model resolver with each chain wrapped in ``LedgerChain``: before a
  call, a spent ledger refuses it (``limit_reached``: the child's model loop falls back to code with a
  warning); after each attempt, its cost and tokens are charged to the ledger as well as the child's.
- A child run's own budget starts at what the ledger has left (``child_settings``), so a child also
  stops on its own budget check when the pipeline's money is gone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from findesk.agents.role import Role
from findesk.agents.runtime import Budget, ModelResolver
from findesk.core.config import LlmSettings, Settings
from findesk.core.llm.chain import Attempt, ChainReply, ModelChain
from findesk.core.llm.types import ModelRequest
from findesk.core.result import Err, ErrorCode, Ok, Result

MIN_USD = 1e-6  # a settings budget must be positive; a spent ledger still stops every call
MIN_TOKENS = 1_000  # the settings' floor for a run's token cap
DEFAULT_TOKENS = 250_000  # a ledger without a token cap lends a child this many


class LedgerChain(ModelChain):
    """``inner`` (same models, prices, retries), charging every attempt to ``ledger`` as well."""

    def __init__(self, inner: ModelChain, ledger: Budget) -> None:
        self.__dict__.update(inner.__dict__)
        self.ledger = ledger

    async def complete(
        self, request: ModelRequest, on_attempt: Callable[[Attempt], None] | None = None
    ) -> Result[ChainReply]:
        if self.ledger.exhausted:
            return Err(
                ErrorCode.LIMIT_REACHED,
                f"the pipeline's shared budget is spent (${self.ledger.spent_usd:.4f} of "
                f"${self.ledger.limit_usd:.4f}, {self.ledger.used_tokens:,} tokens)",
            )

        def charged(attempt: Attempt) -> None:
            self.ledger.charge(attempt.cost_usd, attempt.usage.input_tokens + attempt.usage.output_tokens)
            if on_attempt is not None:
                on_attempt(attempt)

        return await super().complete(request, charged)


def shared_models(models: ModelResolver, ledger: Budget) -> ModelResolver:
    """``models`` with every chain charged to ``ledger``."""

    def resolve(role: Role[Any, Any]) -> Result[ModelChain]:
        found = models(role)
        return Ok(LedgerChain(found.value, ledger)) if isinstance(found, Ok) else found

    return resolve


def child_settings(ledger: Budget) -> Settings:
    """The settings a child run needs beside its open tools and models: its budget, the ledger's rest.
    Built without reading the environment (the child reuses the parent's tools, models and registry)."""
    left_usd = max(ledger.limit_usd - ledger.spent_usd, MIN_USD)
    limit = ledger.limit_tokens
    left_tokens = max((limit - ledger.used_tokens) if limit is not None else DEFAULT_TOKENS, MIN_TOKENS)
    return Settings.model_construct(llm=LlmSettings(budget_usd=left_usd, run_token_limit=left_tokens))
