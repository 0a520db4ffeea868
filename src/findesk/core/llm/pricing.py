"""Model prices and the dollar cost of one model call.

Rules:
- Prices are US dollars per million tokens. The built-in table is the providers' published list
  prices as read in November 2026 (check them before relying on a bill); ``[llm.prices]`` in the
  config overrides it (keys ``"provider:model"`` or ``"model"``).
- The most specific match wins: a dated id (``claude-sonnet-4-5-20250929``) matches its base name by
  longest prefix; at equal length an override beats the built-in table and ``"provider:model"``
  beats ``"model"``.
- Anthropic cache reads default to 0.1× the input price and cache writes to 1.25×; elsewhere a cache
  write costs the input price and an unpriced cache read is charged at the input price (no discount
  assumed).
- ``TokenUsage.input_tokens`` counts every input token; the uncached part is what remains after the
  cache reads and writes.
- An unknown model costs 0.0 and ``price`` returns ``None`` so the caller can warn. Models on
  user-declared compatible servers (any provider other than anthropic/openai) are free unless
  overridden. Never raises.
"""

from __future__ import annotations

from collections.abc import Mapping

from findesk.core.config import ModelPrice
from findesk.core.llm.types import TokenUsage

__all__ = ["BUILTIN_PRICES", "PriceTable"]

_PER = 1_000_000
_SEPARATORS = ("-", "@", ":")  # dated ids, Vertex-style "@date", Ollama-style ":tag"

BUILTIN_PRICES: dict[str, dict[str, ModelPrice]] = {
    "anthropic": {
        "claude-fable-5-1": ModelPrice(input=10.0, output=50.0),
        "claude-opus-5-5": ModelPrice(input=4.0, output=20.0),
        "claude-opus-5": ModelPrice(input=5.0, output=25.0),
        "claude-sonnet-5-5": ModelPrice(input=2.0, output=10.0),
        "claude-sonnet-5": ModelPrice(input=2.0, output=10.0),
        "claude-sonnet-4-6": ModelPrice(input=3.0, output=15.0),
        "claude-opus-4-1": ModelPrice(input=15.0, output=75.0),
        "claude-opus-4-5": ModelPrice(input=5.0, output=25.0),
        "claude-sonnet-4-5": ModelPrice(input=3.0, output=15.0),
        "claude-sonnet-4": ModelPrice(input=3.0, output=15.0),
        "claude-haiku-4-5": ModelPrice(input=1.0, output=5.0),
        "claude-3-5-haiku": ModelPrice(input=0.8, output=4.0),
    },
    "openai": {
        "gpt-5.4": ModelPrice(input=2.5, output=15.0, cache_read=0.25),
        "gpt-5.4-mini": ModelPrice(input=0.75, output=4.5, cache_read=0.075),
        "gpt-4.1": ModelPrice(input=2.0, output=8.0, cache_read=0.5),
        "gpt-4.1-mini": ModelPrice(input=0.4, output=1.6, cache_read=0.1),
        "gpt-4.1-nano": ModelPrice(input=0.1, output=0.4, cache_read=0.025),
        "gpt-4o": ModelPrice(input=2.5, output=10.0, cache_read=1.25),
        "gpt-4o-mini": ModelPrice(input=0.15, output=0.6, cache_read=0.075),
        "gpt-5": ModelPrice(input=1.25, output=10.0, cache_read=0.125),
        "gpt-5-mini": ModelPrice(input=0.25, output=2.0, cache_read=0.025),
    },
}


class PriceTable:
    def __init__(self, overrides: Mapping[str, ModelPrice] | None = None) -> None:
        self._overrides = dict(overrides or {})

    def price(self, provider: str, model: str) -> ModelPrice | None:
        """The price with cache rates filled in, or ``None`` when nothing matches."""
        found = self._lookup(provider, model)
        if found is None:
            return None
        if found.cache_read is not None and found.cache_write is not None:
            return found
        # Anthropic discounts cache reads and surcharges writes; others charge the input price.
        read_factor, write_factor = (0.1, 1.25) if provider == "anthropic" else (1.0, 1.0)
        return ModelPrice(
            input=found.input,
            output=found.output,
            cache_read=found.input * read_factor if found.cache_read is None else found.cache_read,
            cache_write=found.input * write_factor if found.cache_write is None else found.cache_write,
        )

    def cost(self, provider: str, model: str, usage: TokenUsage) -> float:
        price = self.price(provider, model)
        if price is None:
            return 0.0
        cache_read = max(0, usage.cache_read_tokens)
        cache_write = max(0, usage.cache_write_tokens)
        uncached = max(0, usage.input_tokens - cache_read - cache_write)
        dollars = (
            uncached * price.input
            + cache_read * (price.cache_read or 0.0)
            + cache_write * (price.cache_write or 0.0)
            + max(0, usage.output_tokens) * price.output
        )
        return dollars / _PER

    def _lookup(self, provider: str, model: str) -> ModelPrice | None:
        # Candidates rank by (match length, source): the most specific name wins, then the source.
        candidates: list[tuple[int, int, ModelPrice]] = []
        qualified = f"{provider}:"
        for key, price in self._overrides.items():
            if key.startswith(qualified) and _matches(model, key[len(qualified) :]):
                candidates.append((len(key) - len(qualified), 3, price))
            if _matches(model, key):
                candidates.append((len(key), 2, price))
        for name, price in BUILTIN_PRICES.get(provider, {}).items():
            if _matches(model, name):
                candidates.append((len(name), 1, price))
        if not candidates:
            return None
        return max(candidates, key=lambda c: (c[0], c[1]))[2]


def _matches(model: str, name: str) -> bool:
    if not name or model == name:
        return bool(name)
    return model.startswith(name) and model[len(name)] in _SEPARATORS
