"""Per-host rate limits: evenly spaced per host, other hosts never held back, fractional rates allowed.

Time is a ``VirtualClock``: requests wait on it, and the test moves it on, so nothing here sleeps or
depends on how busy the machine is.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest
from http_fakes import VirtualClock, settle

from findesk.core.config import HttpSettings
from findesk.data.http import HttpClient
from findesk.data.http.ratelimit import HostRateLimiter


def test_rates_come_from_settings() -> None:
    limits = HostRateLimiter(HttpSettings().rate_limits, default_rps=5.0)
    assert limits.rate_for("data.sec.gov") == 10.0
    assert limits.rate_for("WWW.SEC.GOV") == 10.0
    assert limits.rate_for("unknown.example.com") == 5.0
    assert limits.interval_for("data.sec.gov") == pytest.approx(0.1)


def _at(sent: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """Requests as (host, time) in order, times rounded off float noise (0.19 + 0.02 is not 0.21)."""
    return sorted((host, round(t, 6)) for host, t in sent)


async def test_concurrent_calls_to_one_host_are_spaced_and_other_hosts_are_not_held_back() -> None:
    clock = VirtualClock()
    sent: list[tuple[str, float]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append((request.url.host, clock()))
        return httpx.Response(200, json={})

    settings = HttpSettings(rate_limits={"a.example.com": 5.0, "b.example.com": 5.0}, default_rps=0.0)
    client = HttpClient(
        settings, transport=httpx.MockTransport(handler), clock=clock, monotonic=clock, sleep=clock.sleep
    )
    burst = asyncio.gather(
        *(client.get("https://a.example.com/x", params={"i": i}) for i in range(3)),
        *(client.get("https://b.example.com/x", params={"i": i}) for i in range(2)),
        *(client.get("https://free.example.com/x", params={"i": i}) for i in range(3)),
    )
    await settle()
    # at once: the first request to each limited host, and every request to the unlimited one
    assert _at(sent) == [("a.example.com", 0.0), ("b.example.com", 0.0)] + [("free.example.com", 0.0)] * 3
    await clock.advance(0.19)
    assert len(sent) == 5  # 5 req/s: nothing more to a host before 0.2 s
    await clock.advance(0.02)
    assert _at(sent[5:]) == [("a.example.com", 0.2), ("b.example.com", 0.2)]
    await clock.advance(0.17)
    assert len(sent) == 7  # nor before 0.4 s
    await clock.advance(0.04)
    assert _at(sent[7:]) == [("a.example.com", 0.4)]
    assert all(r.ok for r in await burst)
    await client.aclose()


async def test_a_fractional_rate_spaces_requests_seconds_apart_and_an_idle_host_saves_no_burst() -> None:
    clock = VirtualClock()
    limits = HostRateLimiter({"api.coingecko.com": 0.5}, default_rps=0.0, clock=clock, sleep=clock.sleep)
    went: list[float] = []

    async def request() -> None:
        await limits.acquire("API.CoinGecko.com")  # hosts match whatever their case
        went.append(clock())

    burst = asyncio.gather(*(request() for _ in range(3)))
    await clock.advance(10)
    await burst
    assert went == pytest.approx([0.0, 2.0, 4.0])  # one request every 2 s

    went.clear()
    await clock.advance(60)  # a minute idle earns no burst: the second request still waits 2 s
    again = asyncio.gather(request(), request())
    await clock.advance(10)
    await again
    assert went == pytest.approx([70.0, 72.0])


async def test_a_rate_of_zero_means_no_limit() -> None:
    clock = VirtualClock()
    limits = HostRateLimiter({"free.example.com": 0}, default_rps=4.0, clock=clock, sleep=clock.sleep)
    assert limits.interval_for("free.example.com") is None
    burst = asyncio.gather(*(limits.acquire("free.example.com") for _ in range(20)))
    await settle()
    assert burst.done() and clock.sleeps == []  # all twenty went without time moving


async def test_a_request_cancelled_while_it_waits_leaves_a_gap_not_a_burst() -> None:
    clock = VirtualClock()
    limits = HostRateLimiter({}, default_rps=10.0, clock=clock, sleep=clock.sleep)
    await limits.acquire("a.example.com")  # t=0
    waiting = asyncio.ensure_future(limits.acquire("a.example.com"))  # its slot: t=0.1
    await settle()
    waiting.cancel()
    later = asyncio.ensure_future(limits.acquire("a.example.com"))  # queues behind the cancelled slot
    await clock.advance(0.15)
    assert not later.done()
    await clock.advance(0.1)
    assert later.done() and clock() == pytest.approx(0.25)
    assert clock.sleeps == pytest.approx([0.1, 0.2])
