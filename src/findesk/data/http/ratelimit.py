"""Per-host rate limits.

Rules this module keeps:
- One schedule per host, created on first use, with the rate from ``HttpSettings.rate_limits``
  (exact host match, case-insensitive) or ``default_rps``.
- Requests are spaced evenly: a limit of 10 req/s means one request every 0.1 s, in the order they
  asked (the first at once, each later one an interval after the one before), so no one-second window
  ever sees a burst above the limit (SEC's rule is "no more than 10 per second"). An idle host saves
  up no burst. Fractional rates work the same way (CoinGecko 0.5/s: one request every 2 s).
- A rate of 0 or below means "no limit" for that host.
- A request cancelled while it waits keeps its slot: the schedule may get a gap, never a burst.
- Time (``clock``, monotonic seconds) and waiting (``sleep``) are injectable so tests never sleep.
- Limits are per process; two processes share nothing (use one process for bulk SEC downloads).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable


class HostRateLimiter:
    def __init__(
        self,
        rate_limits: dict[str, float],
        default_rps: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._rates = {host.lower(): rps for host, rps in rate_limits.items()}
        self._default = default_rps
        self._clock = clock
        self._sleep = sleep
        self._next_slot: dict[str, float] = {}  # host -> the earliest time its next request may go

    def rate_for(self, host: str) -> float:
        return self._rates.get(host.lower(), self._default)

    def interval_for(self, host: str) -> float | None:
        """Seconds between two requests to ``host`` (``None`` = unlimited)."""
        rps = self.rate_for(host)
        return 1.0 / rps if rps > 0 else None

    async def acquire(self, host: str) -> None:
        """Take ``host``'s next free slot and wait until it comes."""
        interval = self.interval_for(host)
        if interval is None:
            return
        key = host.lower()
        now = self._clock()
        slot = max(now, self._next_slot.get(key, now))
        self._next_slot[key] = slot + interval  # taken before waiting: later callers queue behind it
        if slot > now:
            await self._sleep(slot - now)
