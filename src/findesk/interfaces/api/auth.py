"""Who is calling, and may they: API keys, tiers, requests per minute, daily cost caps.

Rules:
- A key comes as ``Authorization: Bearer fdk_…`` or ``X-API-Key: fdk_…``. A key that is sent is
  always checked, even where keys are optional: a wrong key is a 401, never silently ignored.
- Without a key: allowed only when the server does not require keys (bound to loopback), as the local
  caller, who has no limits. Otherwise 401 saying how to get a key.
- Two steps, in this order: ``authenticate`` (who: 401) runs first, before any byte of a body is
  read (the request gate in ``app.py`` calls it; the route finds its answer in the request's scope);
  ``admit`` (may they: 429) runs only once the request is known to be valid, so a request refused for
  its input neither counts against the key's limits nor leaves a row in ``api_requests``.
- Limits live in ``core.access`` (shared by all server processes through the database); a refusal is a
  429 with ``Retry-After``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime

from starlette.requests import HTTPConnection

from findesk.core.access import Admission, ApiKey, admit, retry_after_s, tier_of
from findesk.core.result import Err, ErrorCode
from findesk.interfaces.api.errors import ApiError
from findesk.interfaces.api.services import ApiServices

_HOW = "create one with `findesk keys create NAME` and send it as `Authorization: Bearer <key>`"
_SCOPE_KEY = "findesk.api_key"  # where a request's authenticated key (or None: local) is kept


@dataclass(frozen=True)
class Caller:
    key: ApiKey | None  # None: the local caller (no keys required on loopback)
    admission: Admission | None

    @property
    def label(self) -> str:
        return f"key {self.key.id}" if self.key else "local"


def presented_key(conn: HTTPConnection) -> str | None:
    header = conn.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if header and scheme.lower() == "bearer" and value.strip():
        return value.strip()
    if header:
        raise ApiError(
            ErrorCode.UNAUTHORIZED.value, f"the Authorization header must be 'Bearer <key>'; {_HOW}"
        )
    alt = conn.headers.get("x-api-key", "").strip()
    return alt or None


async def authenticate(conn: HTTPConnection, services: ApiServices) -> ApiKey | None:
    """The key of this request (None: the local caller), verified once per request; raises
    ``ApiError`` (401) for a missing key where keys are required, or a wrong one anywhere."""
    if _SCOPE_KEY in conn.scope:
        known: ApiKey | None = conn.scope[_SCOPE_KEY]
        return known
    secret = presented_key(conn)
    if secret is None:
        if services.require_keys:
            services.metrics.rejected.labels(ErrorCode.UNAUTHORIZED.value).inc()
            raise ApiError(ErrorCode.UNAUTHORIZED.value, f"this server requires an API key: {_HOW}")
        conn.scope[_SCOPE_KEY] = None
        return None
    key = await asyncio.to_thread(services.keys.verify, secret)
    if isinstance(key, Err):
        services.metrics.rejected.labels(key.code.value).inc()
        raise ApiError.of(key)
    conn.scope[_SCOPE_KEY] = key.value
    return key.value


async def admit_caller(
    services: ApiServices,
    key: ApiKey | None,
    *,
    costly: bool,
    run_id: str | None = None,
    reserve_usd: float = 0.0,
) -> Caller:
    """Admit an authenticated request against its key's limits (``core.access.admit``: a costly one
    reserves ``reserve_usd`` of the daily cap); raises ``ApiError`` (429, 503) otherwise."""
    if key is None:
        return Caller(None, None)
    tier = tier_of(key, services.settings.api.tiers)
    if isinstance(tier, Err):
        raise ApiError.of(tier)
    now = datetime.now(UTC)
    admitted = await asyncio.to_thread(
        admit,
        services.keys,
        key,
        tier.value,
        now=now,
        costly=costly,
        run_id=run_id,
        reserve_usd=reserve_usd,
    )
    if isinstance(admitted, Err):
        services.metrics.rejected.labels(admitted.code.value).inc()
        wait = retry_after_s(admitted)
        raise ApiError.of(admitted, headers={"Retry-After": str(wait)} if wait is not None else None)
    return Caller(key, admitted.value)


async def authorize(conn: HTTPConnection, services: ApiServices, *, costly: bool) -> Caller:
    """Both steps at once, for requests with nothing to check in between (reads)."""
    key = await authenticate(conn, services)
    return await admit_caller(services, key, costly=costly)
