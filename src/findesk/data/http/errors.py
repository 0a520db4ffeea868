"""Turning HTTP outcomes into typed ``Err`` values with one clear sentence each.

Rules: timeout -> ``timeout``; 429 -> ``rate_limited``; 5xx, connection errors and an open circuit ->
``unavailable``; 404 -> ``not_found``; other 4xx -> ``unavailable`` with the status in ``details``;
a body we cannot decode -> ``bad_response``. Reasons name the host, never a full URL (query strings can
hold API keys).
"""

from __future__ import annotations

import httpx

from findesk.core.result import Err, ErrorCode


def _tries(attempts: int) -> str:
    return "1 attempt" if attempts == 1 else f"{attempts} attempts"


def status_error(host: str, path: str, status: int, source: str, attempts: int = 1) -> Err:
    phrase = httpx.codes.get_reason_phrase(status) or "error"
    details = {"host": host, "status": status, "attempts": attempts}
    if status == 429:
        return Err(
            ErrorCode.RATE_LIMITED,
            f"{host} answered 429 Too Many Requests after {_tries(attempts)}; "
            f"wait before calling it again or lower its rate limit",
            source,
            details,
        )
    if status >= 500:
        return Err(
            ErrorCode.UNAVAILABLE,
            f"{host} answered {status} {phrase} after {_tries(attempts)}; "
            f"the source is having problems, try again later or use another source",
            source,
            details,
        )
    if status == 404:
        return Err(
            ErrorCode.NOT_FOUND,
            f"{host} answered 404 Not Found for {path}; the requested item does not exist at this source",
            source,
            details,
        )
    return Err(
        ErrorCode.UNAVAILABLE,
        f"{host} refused the request with {status} {phrase}; check the request, API key or User-Agent",
        source,
        details,
    )


def timeout_error(host: str, timeout_s: float, source: str, attempts: int) -> Err:
    return Err(
        ErrorCode.TIMEOUT,
        f"{host} did not answer within {timeout_s:g} s ({_tries(attempts)}); "
        f"the source is slow or down, try again later",
        source,
        {"host": host, "attempts": attempts},
    )


def connection_error(host: str, exc: Exception, source: str, attempts: int) -> Err:
    return Err(
        ErrorCode.UNAVAILABLE,
        f"could not reach {host} ({type(exc).__name__}) after {_tries(attempts)}; "
        f"check the network connection or try again later",
        source,
        {"host": host, "attempts": attempts, "error": str(exc)},
    )
