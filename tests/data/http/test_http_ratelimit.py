"""Per-host rate limits (aiolimiter): lazy per host, evenly spaced, fractional rates allowed."""

from __future__ import annotations

import asyncio
import itertools
import time

import httpx

from findesk.core.config import HttpSettings
from findesk.data.http import HttpClient
from findesk.data.http.ratelimit import HostRateLimiter


def test_rates_come_from_settings() -> None:
    limits = HostRateLimiter(HttpSettings().rate_limits, default_rps=5.0)
    assert limits.rate_for("data.sec.gov") == 10.0
    assert limits.rate_for("WWW.SEC.GOV") == 10.0
    assert limits.rate_for("unknown.example.com") == 5.0


def test_limiters_are_lazy_per_host_and_fractional_rates_work() -> None:
    limits = HostRateLimiter({"api.coingecko.com": 0.5, "free.example.com": 0}, default_rps=4.0)
    assert limits._limiters == {}
    slow = limits.limiter_for("api.coingecko.com")
    assert slow is not None and slow.max_rate == 1 and slow.time_period == 2.0  # one request per 2 s
    assert limits.limiter_for("api.coingecko.com") is slow
    assert limits.limiter_for("free.example.com") is None  # 0 = unlimited
    assert limits.limiter_for("a.example.com") is not limits.limiter_for("b.example.com")


async def test_concurrent_calls_to_one_host_are_spaced() -> None:
    sent: list[tuple[str, float]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append((request.url.host, time.monotonic()))
        return httpx.Response(200, json={})

    settings = HttpSettings(rate_limits={"slow.example.com": 5.0}, default_rps=0.0)
    client = HttpClient(settings, transport=httpx.MockTransport(handler))
    start = time.monotonic()
    await asyncio.gather(
        *(client.get("https://slow.example.com/x", params={"i": i}) for i in range(3)),
        *(client.get("https://fast.example.com/x", params={"i": i}) for i in range(3)),
    )
    await client.aclose()
    slow = sorted(t for host, t in sent if host == "slow.example.com")
    fast = [t for host, t in sent if host == "fast.example.com"]
    assert len(slow) == 3
    gaps = [b - a for a, b in itertools.pairwise(slow)]
    assert all(gap >= 0.15 for gap in gaps), gaps  # 5 req/s -> 0.2 s apart (timer slack allowed)
    assert slow[-1] - start >= 0.35
    assert all(t - start < 0.15 for t in fast)  # another host is not held back
