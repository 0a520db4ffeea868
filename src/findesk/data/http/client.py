"""The one shared HTTP client for every live vendor.

Rules this module keeps:
- Never raises for network or HTTP problems; returns ``Err`` with a typed code (see ``errors.py``):
  timeout -> ``timeout``; 429 -> ``rate_limited``; 5xx / connection error / open circuit ->
  ``unavailable``; 404 -> ``not_found``; other 4xx -> ``unavailable``; unparseable JSON -> ``bad_response``.
- Every request carries a User-Agent (the client default, or the caller's own ``User-Agent`` header).
- Order of a GET: cache (fresh copy -> answer, no network) -> circuit breaker (open -> stale copy or
  ``unavailable``, no network) -> per-host rate limit -> request, retried with backoff on timeouts,
  connection errors, 429 and 5xx (``retries`` = retries after the first attempt) -> the final outcome
  feeds the breaker -> a 2xx is stored in the cache.
- When the request fails transiently (timeout, connection error, 429, 5xx, open circuit) and a stale
  copy exists, the stale copy is served with ``extra={"stale": True, "age_s": ..., "stale_reason": ...}``:
  a source being down degrades answers, it does not break them. Other 4xx are not papered over.
- A JSON body that does not parse is evicted from the cache so the next call asks again.
- Time (``clock``: epoch seconds for cache ages, Retry-After dates and the breaker; ``monotonic``: the
  per-host request spacing), waiting (``sleep``) and jitter (``rng``) are injectable so tests never sleep.
- Limits that hold against a hostile or broken server:
  - ``timeout_s`` is one deadline for a whole attempt (connect, redirects, headers and every byte of
    the body), not a per-read timeout that a server trickling a byte at a time never trips. A call
    takes at most ``(retries + 1) * timeout_s`` plus the backoff waits.
  - The body is streamed and counted: over ``max_response_bytes`` (declared by ``Content-Length``
    or counted after decompression) the request stops and is ``bad_response``, not retried, so
    memory holds at most the cap (plus one network chunk).
  - Redirects are followed here (at most ``max_redirects``), and one that leaves the first URL's
    origin (scheme, host, port) drops every credential header (``Authorization``, ``Cookie``,
    ``X-Api-Key`` and anything named like a key or token): another host never sees a vendor's key.
    Query-string keys are never carried over: the next URL is the server's ``Location`` as given.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import TracebackType
from typing import Any, TypedDict, Unpack

import httpx

from findesk.core.config import SECRET_NAME, HttpSettings
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.http.breaker import CircuitBreaker
from findesk.data.http.cache import CachedResponse, HttpCache, cache_key, redact_url
from findesk.data.http.errors import connection_error, status_error, timeout_error
from findesk.data.http.ratelimit import HostRateLimiter
from findesk.data.http.response import HttpResponse
from findesk.data.http.retry import backoff_delay, is_retryable_status, parse_retry_after

__all__ = ["GetOptions", "HttpClient", "HttpResponse"]

log = logging.getLogger(__name__)

DEFAULT_SOURCE = "http"  # who an error is attributed to when the caller does not say
_CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie"})


def _is_credential(header: str) -> bool:
    return header.lower() in _CREDENTIAL_HEADERS or SECRET_NAME.search(header) is not None


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):g} MiB"


class _TooLargeError(Exception):
    """The body passed ``max_response_bytes``; ``declared``: the size the server announced."""

    def __init__(self, declared: int | None) -> None:
        super().__init__(declared)
        self.declared = declared


class GetOptions(TypedDict, total=False):
    """What a caller may add to a GET (``get``, ``get_json``, ``get_text``); ``_get`` holds the defaults."""

    params: dict[str, Any] | None  # query parameters
    headers: dict[str, str] | None  # request headers; a User-Agent here replaces the client's
    freshness: str  # the cache class (``HttpSettings.freshness``), default "default"
    source: str  # the vendor named in errors, default ``DEFAULT_SOURCE``


class HttpClient:
    def __init__(
        self,
        settings: HttpSettings | None = None,
        *,
        user_agent: str = "findesk/0.1",
        cache_dir: Path | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self.settings = settings or HttpSettings()
        self.user_agent = user_agent
        self.cache_dir = cache_dir
        self._clock = clock
        self._sleep = sleep
        self._rng = rng
        self._client = httpx.AsyncClient(
            transport=transport,
            timeout=self.settings.timeout_s,
            headers={"User-Agent": user_agent},
            follow_redirects=False,  # followed by ``_fetch``, which drops credentials across origins
        )
        self._cache = HttpCache(cache_dir) if cache_dir is not None else None
        self._breaker = CircuitBreaker(
            self.settings.breaker_failures, self.settings.breaker_cooldown_s, clock=clock
        )
        self._limits = HostRateLimiter(
            self.settings.rate_limits, self.settings.default_rps, clock=monotonic, sleep=sleep
        )

    async def get(self, url: str, **options: Unpack[GetOptions]) -> Result[HttpResponse]:
        """GET ``url``. ``freshness`` names the cache class (``HttpSettings.freshness``)."""
        result, _ = await self._get(url, **options)
        return result

    async def get_json(self, url: str, **options: Unpack[GetOptions]) -> Result[Any]:
        """GET ``url`` and parse the body as JSON; a body that does not parse is ``bad_response``."""
        result, key = await self._get(url, **options)
        if isinstance(result, Err):
            return result
        resp = result.value
        try:
            return Ok(json.loads(resp.content))
        except (ValueError, UnicodeDecodeError) as exc:
            if key is not None and self._cache is not None:
                await self._cache.delete(key)
            host = httpx.URL(resp.url).host
            return Err(
                ErrorCode.BAD_RESPONSE,
                f"{host} answered {resp.status} with a body that is not valid JSON ({exc}); "
                f"the source may have changed its format or sent an error page",
                options.get("source", DEFAULT_SOURCE),
                {"host": host, "status": resp.status},
            )

    async def get_text(self, url: str, **options: Unpack[GetOptions]) -> Result[str]:
        """GET ``url`` and decode the body (declared charset, else UTF-8 with bad bytes replaced)."""
        result = await self.get(url, **options)
        return result if isinstance(result, Err) else Ok(result.value.text())

    async def aclose(self) -> None:
        await self._client.aclose()
        if self._cache is not None:
            self._cache.close()

    async def __aenter__(self) -> HttpClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    # -- internals -----------------------------------------------------------------------------------

    def _freshness_s(self, name: str) -> float | None:
        table = self.settings.freshness
        if name not in table:
            log.warning("unknown HTTP freshness class %r; using 'default'", name)
            return table.get("default", 300.0)
        return table[name]

    async def _get(
        self,
        url: str,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        freshness: str = "default",
        source: str = DEFAULT_SOURCE,
    ) -> tuple[Result[HttpResponse], str | None]:
        try:
            request = self._client.build_request("GET", url, params=params, headers=headers)
        except (httpx.InvalidURL, TypeError, ValueError) as exc:
            return Err(ErrorCode.INVALID_INPUT, f"cannot request {url!r}: {exc}", source), None
        host = request.url.host
        if request.url.scheme not in ("http", "https") or not host:
            reason = (
                f"cannot request {redact_url(request.url)!r}: only http(s) URLs with a host are supported"
            )
            return Err(ErrorCode.INVALID_INPUT, reason, source), None

        key = cache_key("GET", request.url, headers) if self._cache is not None else None
        cached = await self._cache.get(key) if self._cache is not None and key is not None else None
        if cached is not None:
            max_age = self._freshness_s(freshness)
            age = self._clock() - cached.stored_at
            if max_age is None or age < max_age:
                return Ok(_from_cache(cached, age)), key

        blocked = self._breaker.before(host)
        if blocked is not None:
            return self._stale_or(Err(ErrorCode.UNAVAILABLE, blocked, source, {"host": host}), cached), key

        try:
            result, failed = await self._send_with_retries(request, host, source)
        except BaseException:
            self._breaker.abandon(host)  # cancelled mid-flight: free a half-open trial slot
            raise
        self._breaker.after(host, failed=failed)

        if isinstance(result, Err):
            return (self._stale_or(result, cached) if failed else result), key
        resp = result.value
        if self._cache is not None and key is not None and 200 <= resp.status < 300:
            stored = CachedResponse(self._clock(), resp.status, resp.url, resp.headers, resp.content)
            await self._cache.put(key, stored)
        return result, key

    async def _send_with_retries(
        self, request: httpx.Request, host: str, source: str
    ) -> tuple[Result[HttpResponse], bool]:
        """The final outcome, and whether it was a transient failure (retries exhausted)."""
        started = time.perf_counter()
        last: Err | None = None
        retry_after: float | None = None
        for attempt in range(1, self.settings.retries + 2):
            if attempt > 1:  # wait before a retry, never after the last attempt
                delay = backoff_delay(
                    attempt - 2,
                    base=self.settings.backoff_base_s,
                    cap=self.settings.backoff_max_s,
                    retry_after=retry_after,
                    rng=self._rng,
                )
                await self._sleep(delay)
            retry_after = None
            await self._limits.acquire(host)
            try:
                resp, content = await self._fetch(request)
            except (TimeoutError, httpx.TimeoutException):
                last = timeout_error(host, self.settings.timeout_s, source, attempt)
                continue
            except _TooLargeError as exc:
                cap = self.settings.max_response_bytes
                announced = f" (it announced {_mib(exc.declared)})" if exc.declared is not None else ""
                reason = (
                    f"{host} sent a response over {_mib(cap)}{announced}; findesk stopped reading it "
                    f"(http.max_response_bytes = {cap})"
                )
                details = {"host": host, "limit_bytes": cap}
                return Err(ErrorCode.BAD_RESPONSE, reason, source, details), False
            except httpx.InvalidURL as exc:  # a redirect to a Location that is no URL
                reason = f"{host} redirected to an invalid URL ({exc})"
                return Err(ErrorCode.BAD_RESPONSE, reason, source, {"host": host}), False
            except httpx.UnsupportedProtocol as exc:
                return Err(ErrorCode.INVALID_INPUT, f"cannot request {host}: {exc}", source), False
            except httpx.TransportError as exc:
                last = connection_error(host, exc, source, attempt)
                continue
            except httpx.DecodingError as exc:
                reason = f"{host} sent a body that could not be decoded ({exc})"
                return Err(ErrorCode.BAD_RESPONSE, reason, source, {"host": host}), False
            except httpx.HTTPError as exc:  # e.g. too many redirects: asking again will not help
                reason = f"{host}: {type(exc).__name__}: {exc}"
                return Err(ErrorCode.UNAVAILABLE, reason, source, {"host": host}), False

            status = resp.status_code
            if status < 400:
                return Ok(
                    HttpResponse(
                        url=redact_url(resp.url),
                        status=status,
                        headers=dict(resp.headers),
                        content=content,
                        elapsed_s=time.perf_counter() - started,
                    )
                ), False
            last = status_error(host, resp.url.path, status, source, attempt)
            if not is_retryable_status(status):
                return last, False
            retry_after = parse_retry_after(resp.headers.get("retry-after"), self._clock())
        assert last is not None  # the loop runs at least once and only falls through on a failure
        return last, True

    async def _fetch(self, request: httpx.Request) -> tuple[httpx.Response, bytes]:
        """One attempt: the final response (redirects followed) and its body, within one deadline."""
        async with asyncio.timeout(self.settings.timeout_s):
            current = request
            for _ in range(self.settings.max_redirects + 1):
                resp = await self._client.send(current, stream=True)
                try:
                    if not resp.has_redirect_location:
                        return resp, await self._read_capped(resp)
                finally:
                    await resp.aclose()
                current = self._redirected(request, current, resp)
            raise httpx.TooManyRedirects(
                f"more than {self.settings.max_redirects} redirects (http.max_redirects)", request=current
            )

    def _redirected(
        self, first: httpx.Request, current: httpx.Request, resp: httpx.Response
    ) -> httpx.Request:
        """The GET a redirect asks for; credential headers stay behind when it leaves ``first``'s origin."""
        url = current.url.join(resp.headers["location"])
        headers = httpx.Headers(current.headers)
        del headers["host"]  # set from the new URL
        origin = (first.url.scheme, first.url.host, first.url.port)
        if (url.scheme, url.host, url.port) != origin:
            for name in [n for n in headers if _is_credential(n)]:
                del headers[name]
        return self._client.build_request("GET", url, headers=headers)

    async def _read_capped(self, resp: httpx.Response) -> bytes:
        cap = self.settings.max_response_bytes
        declared = resp.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            raise _TooLargeError(int(declared))
        chunks: list[bytes] = []
        size = 0
        async for chunk in resp.aiter_bytes():
            size += len(chunk)
            if size > cap:
                raise _TooLargeError(None)
            chunks.append(chunk)
        return b"".join(chunks)

    def _stale_or(self, error: Err, cached: CachedResponse | None) -> Result[HttpResponse]:
        if cached is None:
            return error
        age = self._clock() - cached.stored_at
        log.info("serving a stale copy (%.0f s old) because: %s", age, error.reason)
        return Ok(_from_cache(cached, age, stale_reason=error.reason))


def _from_cache(cached: CachedResponse, age: float, stale_reason: str | None = None) -> HttpResponse:
    extra: dict[str, Any] = {"age_s": round(max(age, 0.0), 3)}
    if stale_reason is not None:
        extra.update(stale=True, stale_reason=stale_reason)
    return HttpResponse(
        url=cached.url,
        status=cached.status,
        headers=dict(cached.headers),
        content=cached.content,
        from_cache=True,
        extra=extra,
    )
