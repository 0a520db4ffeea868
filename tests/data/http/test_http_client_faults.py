"""Fault handling of the shared HTTP client: typed errors, retries, backoff and Retry-After."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import httpx
from http_fakes import FakeClock, Recorder, answer, fail

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.http import HttpClient

Make = Callable[..., tuple[HttpClient, Recorder]]
URL = "https://api.example.com/v1/thing"


async def test_default_user_agent_and_per_request_override(make_client: Make) -> None:
    client, rec = make_client()
    assert isinstance(await client.get(URL), Ok)
    assert isinstance(await client.get(URL, headers={"User-Agent": "Jane Doe jane@example.com"}), Ok)
    assert rec.requests[0].headers["user-agent"] == "findesk/0.1"
    assert rec.requests[1].headers["user-agent"] == "Jane Doe jane@example.com"


async def test_timeout_is_retried_then_typed_timeout(make_client: Make, clock: FakeClock) -> None:
    client, rec = make_client(fail(httpx.ReadTimeout), retries=2, backoff_base_s=0.5, backoff_max_s=8)
    client._rng = random.Random(7)
    got = await client.get(URL, source="example")
    assert isinstance(got, Err)
    assert got.code is ErrorCode.TIMEOUT
    assert got.source == "example"
    assert rec.calls == 3  # first attempt + 2 retries
    assert "api.example.com" in got.reason and "3 attempts" in got.reason
    # exponential with equal jitter: retry 1 waits in [0.25, 0.5], retry 2 in [0.5, 1.0]
    assert len(clock.sleeps) == 2
    assert 0.25 <= clock.sleeps[0] <= 0.5
    assert 0.5 <= clock.sleeps[1] <= 1.0


async def test_backoff_is_capped(make_client: Make, clock: FakeClock) -> None:
    client, rec = make_client(fail(httpx.ConnectTimeout), retries=5, backoff_base_s=1.0, backoff_max_s=2.0)
    await client.get(URL)
    assert rec.calls == 6
    assert all(s <= 2.0 for s in clock.sleeps)
    assert clock.sleeps[-1] >= 1.0  # ceiling is the cap, equal jitter keeps at least half


async def test_connection_error_is_unavailable_after_retries(make_client: Make) -> None:
    client, rec = make_client(fail(httpx.ConnectError), retries=1)
    got = await client.get(URL)
    assert isinstance(got, Err) and got.code is ErrorCode.UNAVAILABLE
    assert rec.calls == 2
    assert "could not reach api.example.com" in got.reason


async def test_retries_zero_means_one_attempt(make_client: Make, clock: FakeClock) -> None:
    client, rec = make_client(answer(503), retries=0)
    got = await client.get(URL)
    assert isinstance(got, Err) and got.code is ErrorCode.UNAVAILABLE
    assert rec.calls == 1 and clock.sleeps == []


async def test_429_with_retry_after_is_honoured_then_succeeds(make_client: Make, clock: FakeClock) -> None:
    client, rec = make_client(
        answer(429, headers={"Retry-After": "2"}),
        answer(429, headers={"Retry-After": "3"}),
        answer(200, {"price": 1}),
        retries=2,
    )
    got = await client.get_json(URL)
    assert got == Ok({"price": 1})
    assert rec.calls == 3
    assert clock.sleeps == [2.0, 3.0]


async def test_retry_after_is_capped_at_backoff_max(make_client: Make, clock: FakeClock) -> None:
    client, _ = make_client(
        answer(503, headers={"Retry-After": "600"}), answer(200), retries=1, backoff_max_s=8.0
    )
    assert isinstance(await client.get(URL), Ok)
    assert clock.sleeps == [8.0]


async def test_persistent_429_is_rate_limited(make_client: Make) -> None:
    client, rec = make_client(answer(429, headers={"Retry-After": "1"}), retries=2)
    got = await client.get(URL)
    assert isinstance(got, Err) and got.code is ErrorCode.RATE_LIMITED
    assert rec.calls == 3
    assert got.details["status"] == 429


async def test_5xx_is_retried_then_unavailable(make_client: Make) -> None:
    client, rec = make_client(answer(500), answer(503), answer(503), retries=2)
    got = await client.get(URL)
    assert isinstance(got, Err) and got.code is ErrorCode.UNAVAILABLE
    assert rec.calls == 3
    assert "503" in got.reason


async def test_5xx_then_success(make_client: Make) -> None:
    client, rec = make_client(answer(502), answer(200, {"a": 1}), retries=2)
    assert await client.get_json(URL) == Ok({"a": 1})
    assert rec.calls == 2


async def test_404_is_not_found_without_retry(make_client: Make, clock: FakeClock) -> None:
    client, rec = make_client(answer(404), retries=3)
    got = await client.get(URL)
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_FOUND
    assert rec.calls == 1 and clock.sleeps == []


async def test_other_4xx_is_unavailable_with_status_without_retry(make_client: Make) -> None:
    client, rec = make_client(answer(403), retries=3)
    got = await client.get(URL)
    assert isinstance(got, Err) and got.code is ErrorCode.UNAVAILABLE
    assert got.details["status"] == 403
    assert "403 Forbidden" in got.reason
    assert rec.calls == 1


async def test_malformed_json_is_bad_response(make_client: Make) -> None:
    client, _ = make_client(answer(200, b"<html>oops</html>"))
    got = await client.get_json(URL)
    assert isinstance(got, Err) and got.code is ErrorCode.BAD_RESPONSE
    assert "not valid JSON" in got.reason


async def test_get_text_uses_declared_charset(make_client: Make) -> None:
    body = "café".encode("latin-1")
    client, _ = make_client(answer(200, body, headers={"Content-Type": "text/html; charset=ISO-8859-1"}))
    assert await client.get_text(URL) == Ok("café")


async def test_invalid_url_is_invalid_input_not_an_exception(make_client: Make) -> None:
    client, rec = make_client()
    for bad in ("not a url", "ftp://example.com/x"):
        got = await client.get(bad)
        assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT, bad
    assert rec.calls == 0


async def test_api_key_in_query_does_not_leak_into_reason_or_url(make_client: Make) -> None:
    client, _ = make_client(answer(500), retries=0)
    got = await client.get(URL, params={"api_key": "SEKRIT-KEY-1234"})
    assert isinstance(got, Err)
    assert "SEKRIT" not in got.message() and "SEKRIT" not in str(got.details)
    client2, _ = make_client(answer(200))
    ok: Any = await client2.get(URL, params={"api_key": "SEKRIT-KEY-1234", "q": "x"})
    assert isinstance(ok, Ok)
    assert "SEKRIT" not in ok.value.url and "q=x" in ok.value.url
