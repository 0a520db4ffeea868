"""Anthropic Messages API adapter.

Rules:
- ``complete`` never raises for provider trouble; it returns ``Err``: 429, 529 and an
  ``overloaded_error`` body → ``rate_limited`` (``details`` carry ``status`` and ``retry_after``),
  other 5xx and connection errors → ``unavailable``, 401/403 → ``not_configured``, other 4xx →
  ``invalid_input`` with Anthropic's message, timeouts → ``timeout``, a body we cannot read →
  ``bad_response``. ``Err.source`` is ``"anthropic:<model>"``.
- Prompt caching: the system prompt and the last tool definition carry an ephemeral
  ``cache_control`` breakpoint, so the stable prefix (tools + system) is cached across turns.
- All tool results of one assistant turn go back in ONE user message, as the API requires.
- Usage: ``input_tokens`` is reported as the total (uncached + cache writes + cache reads), matching
  ``TokenUsage``; Anthropic itself reports only the uncached part there.
- ``ModelRequest.temperature`` is not sent: the API version this SDK speaks (2026-10-21) answers 400
  to any sampling parameter, even the default value.
- The call itself (no SDK retries, the SDK imported on first use, every failure an ``Err``) is
  ``SdkModel``'s (``core.llm.sdk``); this module says how to build, send, and read Anthropic's side.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from findesk.core.llm.sdk import SdkErrors, SdkModel, status_error
from findesk.core.llm.types import (
    AssistantTurn,
    ModelRequest,
    ModelResponse,
    TokenUsage,
    ToolCall,
    ToolResults,
    UserText,
)
from findesk.core.result import Err

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

__all__ = ["AnthropicModel", "to_anthropic_params"]

_CACHE = {"type": "ephemeral"}


class AnthropicModel(SdkModel["AsyncAnthropic"]):
    provider = "anthropic"
    _reply = "message"

    def __init__(
        self, model: str, api_key: str, base_url: str | None = None, timeout_s: float = 120.0
    ) -> None:
        super().__init__(model, api_key, base_url, timeout_s)

    @property
    def _label(self) -> str:
        return "Anthropic"

    def _errors(self) -> SdkErrors:
        import anthropic

        return SdkErrors.of(anthropic, anthropic.AnthropicError)

    def _new_client(self) -> AsyncAnthropic:
        from anthropic import AsyncAnthropic

        return AsyncAnthropic(**self._client_options(self._api_key))

    async def _send(self, client: AsyncAnthropic, request: ModelRequest) -> Any:
        return await client.messages.create(**to_anthropic_params(self.model, request))

    def _status_error(self, exc: Any) -> Err:
        return status_error(
            self._source,
            self._label,
            exc.status_code,
            exc.api_message or exc.message,
            exc.response.headers,
            overloaded=exc.type == "overloaded_error",
        )

    def _response(self, message: Any, latency_ms: float) -> ModelResponse:
        content = message.content
        usage = message.usage
        if not isinstance(content, list) or usage is None:
            raise ValueError("the message has no content list or no usage")
        texts: list[str] = []
        calls: list[ToolCall] = []
        native: list[dict[str, Any]] = []
        for block in content:
            kind = getattr(block, "type", None)
            if kind in _REPLAYED and hasattr(block, "model_dump"):
                native.append(block.model_dump(mode="json", exclude_none=True))
            if kind == "text":
                texts.append(block.text)
            elif kind == "tool_use":
                arguments = (
                    block.input if isinstance(block.input, dict) else {"_unparsed_arguments": block.input}
                )
                calls.append(ToolCall(id=block.id, name=block.name, arguments=arguments))
        cache_read = usage.cache_read_input_tokens or 0
        cache_write = usage.cache_creation_input_tokens or 0
        return ModelResponse(
            provider=self.provider,
            model=self.model,
            text="".join(texts),
            tool_calls=tuple(calls),
            usage=TokenUsage(
                input_tokens=(usage.input_tokens or 0) + cache_read + cache_write,
                output_tokens=usage.output_tokens or 0,
                cache_read_tokens=cache_read,
                cache_write_tokens=cache_write,
            ),
            stop_reason=message.stop_reason,
            latency_ms=latency_ms,
            native=tuple(native) if any(b.get("type") not in ("text", "tool_use") for b in native) else (),
        )


# content blocks kept verbatim when a reply has thinking in it, so the next turn can replay them
_REPLAYED = ("text", "tool_use", "thinking", "redacted_thinking")


def to_anthropic_params(model: str, request: ModelRequest) -> dict[str, Any]:
    """The keyword arguments of ``messages.create`` for ``request`` (wire format, cache breakpoints)."""
    params: dict[str, Any] = {
        "model": model,
        "max_tokens": request.max_tokens,
        "messages": [_message(m) for m in request.messages],
    }
    if request.system:  # the API rejects an empty text block
        params["system"] = [{"type": "text", "text": request.system, "cache_control": dict(_CACHE)}]
    if request.tools:
        tools: list[dict[str, Any]] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in request.tools
        ]
        tools[-1]["cache_control"] = dict(_CACHE)
        params["tools"] = tools
    return params


def _message(message: UserText | AssistantTurn | ToolResults) -> dict[str, Any]:
    if isinstance(message, UserText):
        return {"role": "user", "content": message.text}
    if isinstance(message, AssistantTurn):
        if message.native and message.native_provider == "anthropic":
            # thinking blocks must go back exactly as received, in their original order
            return {"role": "assistant", "content": [dict(b) for b in message.native]}
        blocks: list[dict[str, Any]] = []
        if message.text:
            blocks.append({"type": "text", "text": message.text})
        blocks.extend(
            {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in message.tool_calls
        )
        return {"role": "assistant", "content": blocks}
    return {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": p.call_id, "content": p.content, "is_error": p.is_error}
            for p in message.results
        ],
    }
