"""A fallback chain of chat models with retries, backoff and per-attempt accounting.

Rules:
- Transient errors (``rate_limited``, ``unavailable``, ``timeout``) retry the same model up to
  ``max_retries`` times, waiting ``backoff_base_s * 2**(n-1)`` before retry ``n``; a provider's
  ``retry_after`` replaces that wait. Every wait is capped at ``backoff_max_s`` so one slow provider
  cannot stall an agent's turn. After the last retry the next model in the chain is tried at once.
- Other errors (``not_configured``, ``invalid_input``, ``bad_response``, …) move to the next model
  without retrying: asking the same model again would get the same answer.
- Every attempt, failed or not, is reported to ``on_attempt`` before the next step, so cost and
  events are recorded even when the chain ends in an error.
- ``complete`` never raises for model trouble: a model that raises counts as ``unavailable``. When
  every model fails, the ``Err`` carries the last error's code and each model's last error.
  Exceptions raised by ``on_attempt`` itself propagate (they are the caller's bug).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from findesk.core.llm.pricing import PriceTable
from findesk.core.llm.types import ChatModel, ModelRequest, ModelResponse, TokenUsage
from findesk.core.result import Err, ErrorCode, Ok, Result

__all__ = ["Attempt", "ChainReply", "ModelChain"]

_RETRYABLE = frozenset({ErrorCode.RATE_LIMITED, ErrorCode.UNAVAILABLE, ErrorCode.TIMEOUT})


@dataclass(frozen=True)
class Attempt:
    """One HTTP call to one model, reported to the caller for the ``llm_call`` event."""

    provider: str
    model: str
    attempt: int  # 1 = first try of this model
    ok: bool
    usage: TokenUsage
    cost_usd: float
    latency_ms: float
    error_code: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class ChainReply:
    response: ModelResponse
    cost_usd: float
    attempts: tuple[Attempt, ...]


class ModelChain:
    def __init__(
        self,
        models: Sequence[ChatModel],
        prices: PriceTable,
        *,
        max_retries: int = 3,
        backoff_base_s: float = 1.0,
        backoff_max_s: float = 20.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.models: list[ChatModel] = list(models)
        self.prices = prices
        self.max_retries = max(0, max_retries)
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self._sleep = sleep

    @property
    def label(self) -> str:
        return " → ".join(f"{m.provider}:{m.model}" for m in self.models)

    async def complete(
        self, request: ModelRequest, on_attempt: Callable[[Attempt], None] | None = None
    ) -> Result[ChainReply]:
        attempts: list[Attempt] = []
        failures: list[tuple[ChatModel, Err]] = []
        for model in self.models:
            for number in range(1, self.max_retries + 2):
                result, latency_ms = await self._call(model, request)
                attempt = self._record(model, number, result, latency_ms)
                attempts.append(attempt)
                if on_attempt is not None:
                    on_attempt(attempt)
                if isinstance(result, Ok):
                    return Ok(ChainReply(result.value, attempt.cost_usd, tuple(attempts)))
                if result.code not in _RETRYABLE or number > self.max_retries:
                    failures.append((model, result))
                    break
                await self._sleep(self._delay(number, result))
        return self._exhausted(failures, len(attempts))

    async def aclose(self) -> None:
        for model in self.models:
            try:
                await model.aclose()
            except Exception:  # closing is best effort; one model must not keep others open
                continue

    def _delay(self, retry: int, error: Err) -> float:
        retry_after = error.details.get("retry_after")
        if isinstance(retry_after, int | float) and retry_after >= 0:
            return min(float(retry_after), self.backoff_max_s)
        return min(self.backoff_base_s * 2.0 ** (retry - 1), self.backoff_max_s)

    async def _call(self, model: ChatModel, request: ModelRequest) -> tuple[Result[ModelResponse], float]:
        started = time.perf_counter()
        try:
            result = await model.complete(request)
        except Exception as exc:  # a crashing adapter is treated like an unreachable provider
            result = Err(
                ErrorCode.UNAVAILABLE,
                f"the model adapter crashed: {type(exc).__name__}: {exc}",
                f"{model.provider}:{model.model}",
            )
        return result, (time.perf_counter() - started) * 1000

    def _record(
        self, model: ChatModel, number: int, result: Result[ModelResponse], latency_ms: float
    ) -> Attempt:
        if isinstance(result, Ok):
            response = result.value
            return Attempt(
                provider=model.provider,
                model=model.model,
                attempt=number,
                ok=True,
                usage=response.usage,
                cost_usd=self.prices.cost(model.provider, model.model, response.usage),
                latency_ms=response.latency_ms or latency_ms,
            )
        return Attempt(
            provider=model.provider,
            model=model.model,
            attempt=number,
            ok=False,
            usage=TokenUsage(),
            cost_usd=0.0,
            latency_ms=latency_ms,
            error_code=result.code.value,
            error=result.reason,
        )

    def _exhausted(self, failures: list[tuple[ChatModel, Err]], attempts: int) -> Err:
        if not failures:
            return Err(ErrorCode.NOT_CONFIGURED, "the model chain is empty", "model chain")
        parts = "; ".join(f"{m.provider}:{m.model} → {e.code.value}: {e.reason}" for m, e in failures)
        details: dict[str, Any] = {
            "attempts": attempts,
            "errors": [{"model": f"{m.provider}:{m.model}", **e.to_dict()} for m, e in failures],
        }
        last = failures[-1][1]
        return Err(last.code, f"every model in the chain failed: {parts}", self.label, details)
