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
- The SDK never retries (``max_retries=0``) and is imported on first use (importing it is slow).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from findesk.core.llm.openai_provider import direct_http_client, status_error
from findesk.core.llm.types import (
    AssistantTurn,
    ModelRequest,
    ModelResponse,
    TokenUsage,
    ToolCall,
    ToolResults,
    UserText,
)
from findesk.core.result import ErrorCode, Ok, Result, err

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

__all__ = ["AnthropicModel", "to_anthropic_params"]

_CACHE = {"type": "ephemeral"}


class AnthropicModel:
    provider = "anthropic"

    def __init__(
        self, model: str, api_key: str, base_url: str | None = None, timeout_s: float = 120.0
    ) -> None:
        self.model = model
        self._api_key = api_key
        self._base_url = base_url
        self._timeout_s = timeout_s
        self._client: AsyncAnthropic | None = None
        self._source = f"anthropic:{model}"

    def _get_client(self) -> AsyncAnthropic:
        if self._client is None:
            from anthropic import AsyncAnthropic

            self._client = AsyncAnthropic(
                api_key=self._api_key,
                base_url=self._base_url,
                timeout=self._timeout_s,
                max_retries=0,
                http_client=direct_http_client(self._base_url, self._timeout_s),
            )
        return self._client

    async def complete(self, request: ModelRequest) -> Result[ModelResponse]:
        import anthropic

        try:
            client = self._get_client()
        except (anthropic.AnthropicError, ValueError) as exc:
            return err(ErrorCode.NOT_CONFIGURED, f"the Anthropic client could not start: {exc}", self._source)
        started = time.perf_counter()
        try:
            message = await client.messages.create(**to_anthropic_params(self.model, request))
        except anthropic.APITimeoutError:
            return err(ErrorCode.TIMEOUT, f"no answer within {self._timeout_s:g}s", self._source)
        except anthropic.APIConnectionError as exc:
            cause = exc.__cause__
            reason = f"{type(cause).__name__}: {cause}" if cause is not None else str(exc)
            return err(ErrorCode.UNAVAILABLE, f"could not reach Anthropic: {reason}", self._source)
        except anthropic.APIStatusError as exc:
            return status_error(
                self._source,
                "Anthropic",
                exc.status_code,
                exc.api_message or exc.message,
                exc.response.headers,
                overloaded=exc.type == "overloaded_error",
            )
        except anthropic.APIResponseValidationError as exc:
            return err(ErrorCode.BAD_RESPONSE, f"unexpected response shape: {exc.message}", self._source)
        except ValueError as exc:  # the SDK's JSON decoding of a non-JSON body
            return err(ErrorCode.BAD_RESPONSE, f"the response body is not JSON: {exc}", self._source)
        except anthropic.AnthropicError as exc:
            return err(ErrorCode.UNAVAILABLE, f"{type(exc).__name__}: {exc}", self._source)
        latency_ms = (time.perf_counter() - started) * 1000
        try:
            return Ok(self._response(message, latency_ms))
        except (AttributeError, TypeError, ValueError) as exc:
            return err(ErrorCode.BAD_RESPONSE, f"could not read the message: {exc}", self._source)

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.close()

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
