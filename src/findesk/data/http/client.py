"""The shared HTTP client (stub: the full version adds cache, breaker, retries and rate limits).

Rules: never raises for network or HTTP problems; returns ``Err`` with a typed code:
timeout -> ``timeout``; 429 -> ``rate_limited``; 5xx / connection error / open circuit ->
``unavailable``; 404 -> ``not_found``; other 4xx -> ``unavailable`` with the status;
an unparseable body -> ``bad_response``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from findesk.core.config import HttpSettings
from findesk.core.result import Err, ErrorCode, Ok, Result


@dataclass(frozen=True, slots=True)
class HttpResponse:
    url: str
    status: int
    headers: dict[str, str]
    content: bytes
    from_cache: bool = False
    elapsed_s: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")


class HttpClient:
    def __init__(
        self,
        settings: HttpSettings | None = None,
        *,
        user_agent: str = "findesk/0.1",
        cache_dir: Path | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.settings = settings or HttpSettings()  # type: ignore[call-arg]
        self.user_agent = user_agent
        self.cache_dir = cache_dir
        self._client = httpx.AsyncClient(
            transport=transport,
            timeout=self.settings.timeout_s,
            headers={"User-Agent": user_agent},
            follow_redirects=True,
        )

    async def get(
        self,
        url: str,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        freshness: str = "default",
        source: str = "http",
    ) -> Result[HttpResponse]:
        """GET ``url``. ``freshness`` names the cache class (``HttpSettings.freshness``)."""
        try:
            resp = await self._client.get(url, params=params, headers=headers)
        except httpx.TimeoutException:
            return Err(ErrorCode.TIMEOUT, f"{url} did not answer within {self.settings.timeout_s:g} s", source)
        except httpx.HTTPError as exc:
            return Err(ErrorCode.UNAVAILABLE, f"{url}: {type(exc).__name__}: {exc}", source)
        return _classify(resp, source)

    async def get_json(
        self,
        url: str,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        freshness: str = "default",
        source: str = "http",
    ) -> Result[Any]:
        got = await self.get(url, params=params, headers=headers, freshness=freshness, source=source)
        if isinstance(got, Err):
            return got
        try:
            return Ok(json.loads(got.value.content))
        except (ValueError, UnicodeDecodeError) as exc:
            return Err(ErrorCode.BAD_RESPONSE, f"{url} answered with a body that is not JSON: {exc}", source)

    async def aclose(self) -> None:
        await self._client.aclose()


def _classify(resp: httpx.Response, source: str) -> Result[HttpResponse]:
    url = str(resp.request.url)
    status = resp.status_code
    if status == 429:
        return Err(ErrorCode.RATE_LIMITED, f"{url} answered 429 Too Many Requests", source)
    if status >= 500:
        return Err(ErrorCode.UNAVAILABLE, f"{url} answered {status}", source)
    if status == 404:
        return Err(ErrorCode.NOT_FOUND, f"{url} answered 404 Not Found", source)
    if status >= 400:
        return Err(ErrorCode.UNAVAILABLE, f"{url} answered {status}", source, status=status)
    return Ok(HttpResponse(url=url, status=status, headers=dict(resp.headers), content=resp.content))
