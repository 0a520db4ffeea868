"""What the provider adapters share: one SDK call with every failure mapped to an ``Err``, the SDK
client's life cycle, and the wire helpers (HTTP status → ``Err``, Retry-After, a proxy-free client).

Rules:
- ``SdkModel.complete`` never raises for provider trouble; it returns ``Err``: a client that cannot
  start → ``not_configured``; timeouts → ``timeout``; connection errors → ``unavailable``; an HTTP
  error status → the adapter's ``_status_error`` (by default ``status_error``: 429 → ``rate_limited``
  with ``retry_after``, 5xx → ``unavailable``, 401/403 → ``not_configured``, 408 → ``timeout``, other
  4xx → ``invalid_input``); a body we cannot read → ``bad_response``; any other SDK error →
  ``unavailable``. ``Err.source`` is ``"<provider>:<model>"``.
- The SDK never retries (``max_retries=0``): retries and fallbacks belong to ``ModelChain``.
- The SDK is imported on first use (in the adapter's ``_errors`` and ``_new_client``), because
  importing it is slow and most runs use no model.
- Loopback base URLs get an HTTP client that ignores proxy environment variables; the SDK's default
  client would otherwise send ``127.0.0.1`` traffic to ``HTTP_PROXY``.
"""

from __future__ import annotations

import ipaddress
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from types import ModuleType
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar
from urllib.parse import urlsplit

from findesk.core.llm.types import ModelRequest, ModelResponse
from findesk.core.result import Err, ErrorCode, Ok, Result, err

if TYPE_CHECKING:
    import httpx2

__all__ = ["SdkErrors", "SdkModel", "direct_http_client", "retry_after_s", "status_error"]


class _Client(Protocol):
    async def close(self) -> None: ...


C = TypeVar("C", bound=_Client)  # the SDK's async client


@dataclass(frozen=True)
class SdkErrors:
    """The exception classes of one SDK. Both official SDKs share this hierarchy (the timeout is a
    connection error, so it is caught first)."""

    base: type[Exception]
    timeout: type[Exception]
    connection: type[Exception]
    status: type[Exception]
    validation: type[Exception]

    @classmethod
    def of(cls, sdk: ModuleType, base: type[Exception]) -> SdkErrors:
        """The classes of ``sdk``, which names them alike in both SDKs; only the ``base`` differs."""
        return cls(
            base,
            sdk.APITimeoutError,
            sdk.APIConnectionError,
            sdk.APIStatusError,
            sdk.APIResponseValidationError,
        )


class SdkModel(ABC, Generic[C]):
    """A ``ChatModel`` over an official SDK: subclasses say how to build the client, send one request,
    map an HTTP error status and read the reply; the calling, timing and error mapping are here."""

    provider: str
    _reply: str  # what the provider calls its answer ("message"), for "could not read the …"

    def __init__(self, model: str, api_key: str | None, base_url: str | None, timeout_s: float) -> None:
        self.model = model
        self._api_key = api_key
        self._base_url = base_url
        self._timeout_s = timeout_s
        self._client: C | None = None
        self._source = f"{self.provider}:{model}"

    @property
    @abstractmethod
    def _label(self) -> str:
        """The provider as reasons name it ("Anthropic", "OpenAI", "ollama server")."""

    @abstractmethod
    def _errors(self) -> SdkErrors: ...

    @abstractmethod
    def _new_client(self) -> C: ...

    @abstractmethod
    async def _send(self, client: C, request: ModelRequest) -> Any: ...

    @abstractmethod
    def _response(self, reply: Any, latency_ms: float) -> ModelResponse:
        """The reply as a ``ModelResponse``; raises AttributeError/IndexError/TypeError/ValueError on
        a shape it cannot read (reported as ``bad_response``)."""

    @abstractmethod
    def _status_error(self, exc: Any) -> Err:
        """The SDK's HTTP status error as an ``Err`` (most adapters pass it on to ``status_error``)."""

    def _client_options(self, api_key: str | None) -> dict[str, Any]:
        """The SDK client's keyword arguments: no SDK retries, and no proxy for a loopback server."""
        return {
            "api_key": api_key,
            "base_url": self._base_url,
            "timeout": self._timeout_s,
            "max_retries": 0,
            "http_client": direct_http_client(self._base_url, self._timeout_s),
        }

    def _get_client(self) -> C:
        if self._client is None:
            self._client = self._new_client()
        return self._client

    async def complete(self, request: ModelRequest) -> Result[ModelResponse]:
        errors = self._errors()
        try:
            client = self._get_client()
        except (errors.base, ValueError) as exc:
            return err(
                ErrorCode.NOT_CONFIGURED, f"the {self._label} client could not start: {exc}", self._source
            )
        started = time.perf_counter()
        try:
            reply = await self._send(client, request)
        except errors.timeout:
            return err(ErrorCode.TIMEOUT, f"no answer within {self._timeout_s:g}s", self._source)
        except errors.connection as exc:
            return err(ErrorCode.UNAVAILABLE, f"could not reach {self._label}: {_cause(exc)}", self._source)
        except errors.status as exc:
            return self._status_error(exc)
        except errors.validation as exc:
            shape = getattr(exc, "message", exc)
            return err(ErrorCode.BAD_RESPONSE, f"unexpected response shape: {shape}", self._source)
        except ValueError as exc:  # the SDK's JSON decoding of a non-JSON body
            return err(ErrorCode.BAD_RESPONSE, f"the response body is not JSON: {exc}", self._source)
        except errors.base as exc:
            return err(ErrorCode.UNAVAILABLE, f"{type(exc).__name__}: {exc}", self._source)
        latency_ms = (time.perf_counter() - started) * 1000
        try:
            return Ok(self._response(reply, latency_ms))
        except (AttributeError, IndexError, TypeError, ValueError) as exc:
            return err(ErrorCode.BAD_RESPONSE, f"could not read the {self._reply}: {exc}", self._source)

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.close()


# -- wire helpers ---------------------------------------------------------------------------------


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


def _cause(exc: BaseException) -> str:
    cause = exc.__cause__
    return f"{type(cause).__name__}: {cause}" if cause is not None else str(exc)
