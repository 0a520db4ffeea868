"""Circuit breaker per host: opens after 3 failed requests, half-open trial after the cool-down."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from http_fakes import FakeClock, Handler, Recorder, answer, fail

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.http import HttpClient
from findesk.data.http.breaker import CircuitBreaker

Make = Callable[..., tuple[HttpClient, Recorder]]
URL = "https://flaky.example.com/quote"


async def _open_circuit(client: HttpClient) -> None:
    for _ in range(3):
        got = await client.get(URL)
        assert isinstance(got, Err) and got.code is ErrorCode.UNAVAILABLE


async def test_opens_after_three_failures_and_makes_no_request(make_client: Make) -> None:
    client, rec = make_client(answer(503), retries=0)
    await _open_circuit(client)
    assert rec.calls == 3
    got = await client.get(URL)
    assert isinstance(got, Err) and got.code is ErrorCode.UNAVAILABLE
    assert rec.calls == 3  # the transport was not called
    # T0 + 60 s = 22:14:20 UTC
    assert got.reason.startswith(
        "circuit open for flaky.example.com until 22:14:20 UTC after 3 consecutive failures"
    )


@pytest.mark.parametrize(
    "failure",
    [fail(httpx.ReadTimeout), fail(httpx.ConnectError), answer(429), answer(500)],
    ids=["timeout", "connection", "429", "500"],
)
async def test_every_transient_failure_counts(make_client: Make, failure: Handler) -> None:
    client, rec = make_client(failure, retries=0)
    for _ in range(3):
        await client.get(URL)
    got = await client.get(URL)
    assert isinstance(got, Err) and got.code is ErrorCode.UNAVAILABLE and "circuit open" in got.reason
    assert rec.calls == 3


async def test_failures_are_counted_per_request_after_retries(make_client: Make) -> None:
    client, rec = make_client(answer(500), retries=2)
    await client.get(URL)
    await client.get(URL)
    assert rec.calls == 6
    assert not client._breaker.is_open("flaky.example.com")  # 2 failed requests, not 6
    await client.get(URL)
    assert client._breaker.is_open("flaky.example.com")


async def test_success_resets_the_count(make_client: Make) -> None:
    client, _ = make_client(answer(503), answer(503), answer(200), answer(503), answer(503), retries=0)
    for _ in range(5):
        await client.get(URL)
    assert not client._breaker.is_open("flaky.example.com")


async def test_other_hosts_are_not_affected(make_client: Make) -> None:
    client, rec = make_client(answer(503), retries=0)
    await _open_circuit(client)
    rec.then(answer(200))
    assert isinstance(await client.get("https://other.example.com/x"), Ok)


@pytest.mark.parametrize("status", [400, 401, 403, 404])
async def test_4xx_does_not_open_the_circuit(make_client: Make, status: int) -> None:
    client, rec = make_client(answer(status), retries=0)
    for _ in range(5):
        await client.get(URL)
    assert rec.calls == 5


async def test_stays_open_until_cooldown_then_trial_success_closes(
    make_client: Make, clock: FakeClock
) -> None:
    client, rec = make_client(answer(503), retries=0, breaker_cooldown_s=60)
    await _open_circuit(client)
    rec.then(answer(200))
    clock.advance(59)
    assert isinstance(await client.get(URL), Err)
    assert rec.calls == 3
    clock.advance(2)
    assert isinstance(await client.get(URL), Ok)  # the half-open trial
    assert rec.calls == 4
    assert isinstance(await client.get(URL), Ok)  # closed again
    assert rec.calls == 5


async def test_trial_failure_reopens_for_another_cooldown(make_client: Make, clock: FakeClock) -> None:
    client, rec = make_client(answer(503), retries=2, breaker_cooldown_s=60)
    await _open_circuit(client)
    calls = rec.calls
    clock.advance(61)
    got = await client.get(URL)  # the trial: retried as usual, then fails
    assert isinstance(got, Err) and rec.calls == calls + 3
    got = await client.get(URL)
    assert isinstance(got, Err) and got.reason.startswith("circuit open for flaky.example.com")
    assert rec.calls == calls + 3
    clock.advance(30)
    assert isinstance(await client.get(URL), Err) and rec.calls == calls + 3
    rec.then(answer(200))
    clock.advance(40)
    assert isinstance(await client.get(URL), Ok)
    assert rec.calls == calls + 4


def test_half_open_lets_one_trial_through_at_a_time(clock: FakeClock) -> None:
    breaker = CircuitBreaker(failures=2, cooldown_s=10, clock=clock)
    for _ in range(2):
        assert breaker.before("h") is None
        breaker.after("h", failed=True)
    assert breaker.before("h") is not None
    clock.advance(10)
    assert breaker.before("h") is None  # trial
    reason = breaker.before("h")
    assert reason is not None and "half-open" in reason
    breaker.abandon("h")  # the trial was cancelled: the next caller may try
    assert breaker.before("h") is None
    breaker.after("h", failed=False)
    assert breaker.before("h") is None and not breaker.is_open("h")
