"""OpenAI Chat Completions adapter, for OpenAI itself and any OpenAI-compatible server by base URL.

Rules:
- ``complete`` never raises for provider trouble (``SdkModel`` in ``core.llm.sdk`` makes the call and
  maps every failure; ``status_error`` maps HTTP statuses): 429 → ``rate_limited`` (with
  ``retry_after``), except an ``insufficient_quota`` 429 → ``not_configured`` (waiting will not fix
  it); 5xx and connection errors → ``unavailable``, 401/403 → ``not_configured``, other 4xx →
  ``invalid_input``, timeouts → ``timeout``, a body we cannot read → ``bad_response``.
  ``Err.source`` is ``"<provider>:<model>"``.
- The SDK never retries and is imported on first use; loopback servers get a proxy-free client
  (both ``SdkModel``'s). Compatible servers that need no key get a placeholder the SDK insists on.
- Tool-call arguments that are not a JSON object become ``{"_unparsed_arguments": raw}``: the tool
  layer rejects the unknown field, so the model sees an ``invalid_input`` and can try again.
"""

from __future__ import annotations

import json
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
from findesk.core.result import Err, ErrorCode, err

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["OpenAIChatModel"]

NO_KEY_PLACEHOLDER = "not-needed"  # the SDK insists on a key; local servers ignore it


class OpenAIChatModel(SdkModel["AsyncOpenAI"]):
    _reply = "completion"

    def __init__(
        self,
        model: str,
        api_key: str | None,
        base_url: str | None = None,
        provider: str = "openai",
        timeout_s: float = 120.0,
    ) -> None:
        self.provider = provider
        super().__init__(model, api_key, base_url, timeout_s)

    def _errors(self) -> SdkErrors:
        import openai

        return SdkErrors.of(openai, openai.OpenAIError)

    def _new_client(self) -> AsyncOpenAI:
        from openai import AsyncOpenAI

        key = self._api_key
        if not key and self.provider != "openai":
            key = NO_KEY_PLACEHOLDER
        return AsyncOpenAI(**self._client_options(key))

    async def _send(self, client: AsyncOpenAI, request: ModelRequest) -> Any:
        return await client.chat.completions.create(**self._params(request))

    def _status_error(self, exc: Any) -> Err:
        if exc.code == "insufficient_quota":  # a 429 that no amount of waiting fixes
            return err(
                ErrorCode.NOT_CONFIGURED,
                f"the {self._label} account has no quota left: {_openai_message(exc)}",
                self._source,
                status=exc.status_code,
            )
        return status_error(
            self._source, self._label, exc.status_code, _openai_message(exc), exc.response.headers
        )

    @property
    def _label(self) -> str:
        return "OpenAI" if self.provider == "openai" else f"{self.provider} server"

    def _params(self, request: ModelRequest) -> dict[str, Any]:
        params: dict[str, Any] = {"model": self.model, "messages": to_openai_messages(request)}
        # OpenAI's newer models reject max_tokens; most compatible servers only know max_tokens.
        params["max_completion_tokens" if self.provider == "openai" else "max_tokens"] = request.max_tokens
        if request.temperature is not None:
            params["temperature"] = request.temperature
        if request.tools:
            params["tools"] = [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
                }
                for t in request.tools
            ]
            if self.provider == "openai":  # compatible servers often reject the flag
                params["parallel_tool_calls"] = True
        return params

    def _response(self, completion: Any, latency_ms: float) -> ModelResponse:
        choices = completion.choices
        if not choices:
            raise ValueError("the completion has no choices")
        message = choices[0].message
        calls = tuple(
            ToolCall(id=c.id, name=c.function.name, arguments=parse_arguments(c.function.arguments))
            for c in message.tool_calls or ()
            if getattr(c, "type", "function") == "function"
        )
        usage = completion.usage
        details = getattr(usage, "prompt_tokens_details", None) if usage is not None else None
        return ModelResponse(
            provider=self.provider,
            model=self.model,
            text=message.content or "",
            tool_calls=calls,
            usage=TokenUsage(
                input_tokens=(usage.prompt_tokens or 0) if usage is not None else 0,
                output_tokens=(usage.completion_tokens or 0) if usage is not None else 0,
                cache_read_tokens=(getattr(details, "cached_tokens", None) or 0),
            ),
            stop_reason=choices[0].finish_reason,
            latency_ms=latency_ms,
        )


def to_openai_messages(request: ModelRequest) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    for message in request.messages:
        if isinstance(message, UserText):
            messages.append({"role": "user", "content": message.text})
        elif isinstance(message, AssistantTurn):
            entry: dict[str, Any] = {"role": "assistant", "content": message.text or None}
            if message.tool_calls:
                entry["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                    }
                    for c in message.tool_calls
                ]
            messages.append(entry)
        elif isinstance(message, ToolResults):
            for part in message.results:
                content = f"ERROR: {part.content}" if part.is_error else part.content
                messages.append({"role": "tool", "tool_call_id": part.call_id, "content": content})
    return messages


def parse_arguments(raw: str | None) -> dict[str, Any]:
    if not raw:
        return {}
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError:
        return {"_unparsed_arguments": raw}
    return parsed if isinstance(parsed, dict) else {"_unparsed_arguments": raw}


def _openai_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        if isinstance(body.get("message"), str):
            return str(body["message"])
    return str(getattr(exc, "message", exc))
