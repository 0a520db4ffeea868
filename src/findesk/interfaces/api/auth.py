"""Who is calling, and may they: API keys, tiers, requests per minute, daily cost caps.

Rules:
- A key comes as ``Authorization: Bearer fdk_…`` or ``X-API-Key: fdk_…``. A key that is sent is
  always checked, even where keys are optional: a wrong key is a 401, never silently ignored.
- Without a key: allowed only when the server does not require keys (bound to loopback), as the local
  caller, who has no limits. Otherwise 401 saying how to get a key.
- Limits live in ``core.access`` (shared by all server processes through the database); a refusal is a
  429 with ``Retry-After``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime

from fastapi import Request

from findesk.core.access import Admission, ApiKey, admit, retry_after_s, tier_of
from findesk.core.result import Err, ErrorCode
from findesk.interfaces.api.errors import ApiError
from findesk.interfaces.api.services import ApiServices

_HOW = "create one with `findesk keys create NAME` and send it as `Authorization: Bearer <key>`"


@dataclass(frozen=True)
class Caller:
    key: ApiKey | None  # None: the local caller (no keys required on loopback)
    admission: Admission | None

    @property
    def label(self) -> str:
        return f"key {self.key.id}" if self.key else "local"


def presented_key(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if header and scheme.lower() == "bearer" and value.strip():
        return value.strip()
    if header:
        raise ApiError(
            ErrorCode.UNAUTHORIZED.value, f"the Authorization header must be 'Bearer <key>'; {_HOW}"
        )
    alt = request.headers.get("x-api-key", "").strip()
    return alt or None


async def authorize(
    request: Request, services: ApiServices, *, costly: bool, run_id: str | None = None
) -> Caller:
    """The caller of this request, admitted against its tier's limits; raises ``ApiError`` otherwise."""
    secret = presented_key(request)
    if secret is None:
        if services.require_keys:
            raise ApiError(ErrorCode.UNAUTHORIZED.value, f"this server requires an API key: {_HOW}")
        return Caller(None, None)
    key = await asyncio.to_thread(services.keys.verify, secret)
    if isinstance(key, Err):
        services.metrics.rejected.labels(key.code.value).inc()
        raise ApiError.of(key)
    tier = tier_of(key.value, services.settings.api.tiers)
    if isinstance(tier, Err):
        raise ApiError.of(tier)
    now = datetime.now(UTC)
    admitted = await asyncio.to_thread(
        admit, services.keys, key.value, tier.value, now=now, costly=costly, run_id=run_id
    )
    if isinstance(admitted, Err):
        services.metrics.rejected.labels(admitted.code.value).inc()
        wait = retry_after_s(admitted)
        raise ApiError.of(admitted, headers={"Retry-After": str(wait)} if wait is not None else None)
    return Caller(key.value, admitted.value)
