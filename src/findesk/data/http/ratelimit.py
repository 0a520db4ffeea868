"""Per-host rate limits.

Rules this module keeps:
- One ``aiolimiter.AsyncLimiter`` per host, created on first use, with the rate from
  ``HttpSettings.rate_limits`` (exact host match) or ``default_rps``.
- Requests are spaced evenly (a bucket of one): a limit of 10 req/s means one request every 0.1 s, so
  no one-second window ever sees a burst above the limit (SEC's rule is "no more than 10 per second").
  This also makes fractional rates (CoinGecko 0.5/s) work: ``AsyncLimiter`` cannot hold less than one.
- A rate of 0 or below means "no limit" for that host.
- Limits are per process and per event loop; two processes share nothing (use one process for bulk
  SEC downloads).
"""

from __future__ import annotations

from aiolimiter import AsyncLimiter


class HostRateLimiter:
    def __init__(self, rate_limits: dict[str, float], default_rps: float) -> None:
        self._rates = {host.lower(): rps for host, rps in rate_limits.items()}
        self._default = default_rps
        self._limiters: dict[str, AsyncLimiter | None] = {}

    def rate_for(self, host: str) -> float:
        return self._rates.get(host.lower(), self._default)

    def limiter_for(self, host: str) -> AsyncLimiter | None:
        """The host's limiter (``None`` = unlimited), created lazily."""
        key = host.lower()
        if key not in self._limiters:
            rps = self.rate_for(key)
            self._limiters[key] = AsyncLimiter(1, 1.0 / rps) if rps > 0 else None
        return self._limiters[key]

    async def acquire(self, host: str) -> None:
        limiter = self.limiter_for(host)
        if limiter is not None:
            await limiter.acquire()
