"""OpenAI Chat Completions adapter, for OpenAI itself and any OpenAI-compatible server by base URL.

Rules:
- ``complete`` never raises for provider trouble; it returns ``Err`` (see ``status_error`` for the
  HTTP mapping): 429 → ``rate_limited`` (with ``retry_after``), 5xx and connection errors →
  ``unavailable``, 401/403 → ``not_configured``, other 4xx → ``invalid_input``, timeouts →
  ``timeout``, a body we cannot read → ``bad_response``. ``Err.source`` is ``"<provider>:<model>"``.
- The SDK never retries (``max_retries=0``): retries and fallbacks belong to ``ModelChain``.
- The SDK is imported on first use, because importing it is slow and most runs use no model.
- Loopback base URLs get an HTTP client that ignores proxy environment variables; the SDK's default
  client would otherwise send ``127.0.0.1`` traffic to ``HTTP_PROXY``.
- Tool-call arguments that are not a JSON object become ``{"_unparsed_arguments": raw}``: the tool
  layer rejects the unknown field, so the model sees an ``invalid_input`` and can try again.
- This module also holds the wire helpers shared with the Anthropic adapter (``status_error``,
  ``retry_after_s``, ``direct_http_client``).
"""

from __future__ import annotations

import ipaddress
import json
import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from findesk.core.llm.types import (
    AssistantTurn,
    ModelRequest,
    ModelResponse,
    TokenUsage,
    ToolCall,
    ToolResults,
    UserText,
)
from findesk.core.result import Err, ErrorCode, Ok, Result, err

if TYPE_CHECKING:
    import httpx2
    from openai import AsyncOpenAI

__all__ = ["OpenAIChatModel", "direct_http_client", "retry_after_s", "status_error"]

NO_KEY_PLACEHOLDER = "not-needed"  # the SDK insists on a key; local servers ignore it


class OpenAIChatModel:
    def __init__(
        self,
        model: str,
        api_key: str | None,
        base_url: str | None = None,
        provider: str = "openai",
        timeout_s: float = 120.0,
    ) -> None:
        self.model = model
        self.provider = provider
        self._api_key = api_key
        self._base_url = base_url
        self._timeout_s = timeout_s
        self._client: AsyncOpenAI | None = None
        self._source = f"{provider}:{model}"

    def _get_client(self) -> AsyncOpenAI:
        if self._client is None:
            from openai import AsyncOpenAI

            key = self._api_key
            if not key and self.provider != "openai":
                key = NO_KEY_PLACEHOLDER
            self._client = AsyncOpenAI(
                api_key=key,
                base_url=self._base_url,
                timeout=self._timeout_s,
                max_retries=0,
                http_client=direct_http_client(self._base_url, self._timeout_s),
            )
        return self._client

    async def complete(self, request: ModelRequest) -> Result[ModelResponse]:
        import openai

        try:
            client = self._get_client()
        except openai.OpenAIError as exc:
            return err(
                ErrorCode.NOT_CONFIGURED, f"the {self._label} client could not start: {exc}", self._source
            )
        started = time.perf_counter()
        try:
            completion = await client.chat.completions.create(**self._params(request))
        except openai.APITimeoutError:
            return err(ErrorCode.TIMEOUT, f"no answer within {self._timeout_s:g}s", self._source)
        except openai.APIConnectionError as exc:
            return err(ErrorCode.UNAVAILABLE, f"could not reach {self._label}: {_cause(exc)}", self._source)
        except openai.APIStatusError as exc:
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
        except openai.APIResponseValidationError as exc:
            return err(ErrorCode.BAD_RESPONSE, f"unexpected response shape: {exc.message}", self._source)
        except ValueError as exc:  # the SDK's JSON decoding of a non-JSON body
            return err(ErrorCode.BAD_RESPONSE, f"the response body is not JSON: {exc}", self._source)
        except openai.OpenAIError as exc:
            return err(ErrorCode.UNAVAILABLE, f"{type(exc).__name__}: {exc}", self._source)
        latency_ms = (time.perf_counter() - started) * 1000
        try:
            return Ok(self._response(completion, latency_ms))
        except (AttributeError, IndexError, TypeError, ValueError) as exc:
            return err(ErrorCode.BAD_RESPONSE, f"could not read the completion: {exc}", self._source)

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.close()

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


# -- shared wire helpers --------------------------------------------------------------------------


def status_error(
    source: str,
    label: str,
    status: int,
    message: str,
    headers: Mapping[str, str],
    *,
    overloaded: bool = False,
) -> Err:
    """Map an HTTP error status from a model provider to an ``Err`` (``label`` names the provider)."""
    details: dict[str, Any] = {"status": status}
    if status == 429 or status == 529 or overloaded:
        retry_after = retry_after_s(headers)
        if retry_after is not None:
            details["retry_after"] = retry_after
        what = "is rate limiting us" if status == 429 else "is overloaded"
        return Err(ErrorCode.RATE_LIMITED, f"{label} {what} (HTTP {status}): {message}", source, details)
    if status in (401, 403):
        return Err(
            ErrorCode.NOT_CONFIGURED,
            f"the {label} API key was rejected (HTTP {status}: {message})",
            source,
            details,
        )
    if status == 408:
        return Err(ErrorCode.TIMEOUT, f"{label} timed out the request (HTTP 408)", source, details)
    if status >= 500:
        return Err(ErrorCode.UNAVAILABLE, f"{label} answered HTTP {status}: {message}", source, details)
    return Err(
        ErrorCode.INVALID_INPUT, f"{label} rejected the request (HTTP {status}): {message}", source, details
    )


def retry_after_s(headers: Mapping[str, str]) -> float | None:
    """Seconds the provider asked us to wait (``retry-after-ms`` or ``retry-after``), if it said."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = (headers.get("retry-after") or "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:  # the HTTP-date form
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - time.time()) if when.tzinfo is not None else None


def direct_http_client(base_url: str | None, timeout_s: float) -> httpx2.AsyncClient | None:
    """For a loopback base URL, an HTTP client that ignores proxy settings; else ``None`` (SDK default)."""
    if not base_url or not _is_loopback(base_url):
        return None
    import httpx2

    return httpx2.AsyncClient(trust_env=False, timeout=timeout_s)


def _is_loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _openai_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        if isinstance(body.get("message"), str):
            return str(body["message"])
    return str(getattr(exc, "message", exc))


def _cause(exc: BaseException) -> str:
    cause = exc.__cause__
    return f"{type(cause).__name__}: {cause}" if cause is not None else str(exc)
