"""Fakes for the shared HTTP client's tests: a clock whose ``sleep`` advances time instantly, a clock
whose sleepers wait until the test moves time on (for concurrent waits), and a scripted transport
handler that records every request it receives.

(A uniquely named module rather than ``conftest`` so that tests can import it unambiguously.)
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

Handler = Callable[[httpx.Request], httpx.Response]
T0 = 1_700_000_000.0  # 2023-11-14 22:13:20 UTC


@dataclass
class FakeClock:
    now: float = T0
    sleeps: list[float] = field(default_factory=list)

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@dataclass
class VirtualClock:
    """Time that moves only when the test calls ``advance``. ``sleep`` parks the caller until time
    reaches its deadline, so concurrent sleeps overlap as they would on a real clock (``FakeClock``'s
    sleeps run back to back instead)."""

    now: float = 0.0
    sleeps: list[float] = field(default_factory=list)
    _sleepers: list[tuple[float, int, asyncio.Future[None]]] = field(default_factory=list)
    _order: itertools.count[int] = field(default_factory=itertools.count)

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.now + max(seconds, 0.0), next(self._order), woken))
        await woken

    async def advance(self, seconds: float) -> None:
        """Move time on by ``seconds``, waking each sleeper whose deadline comes (earliest first, at
        its deadline) and letting whatever it sets off run before time moves further."""
        target = self.now + seconds
        await settle()
        while self._sleepers and self._sleepers[0][0] <= target:
            deadline, _, woken = heapq.heappop(self._sleepers)
            self.now = deadline
            if not woken.done():  # a cancelled sleeper is simply dropped
                woken.set_result(None)
            await settle()
        self.now = target
        await settle()


async def settle(rounds: int = 50) -> None:
    """Let every task that can run without real waiting run (``MockTransport`` requests never wait on
    I/O, so a few dozen turns of the event loop are plenty)."""
    for _ in range(rounds):
        await asyncio.sleep(0)


@dataclass
class Recorder:
    """A transport that answers from a script (one handler per call, the last one repeats)."""

    script: list[Handler]
    requests: list[httpx.Request] = field(default_factory=list)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        handler = self.script[min(len(self.requests), len(self.script)) - 1]
        return handler(request)

    @property
    def calls(self) -> int:
        return len(self.requests)

    def then(self, *handlers: Handler) -> None:
        """Replace what later calls answer."""
        self.script = [*self.script[: self.calls], *handlers]


def answer(status: int = 200, body: Any = None, headers: dict[str, str] | None = None) -> Handler:
    def handler(request: httpx.Request) -> httpx.Response:
        if isinstance(body, bytes | str):
            return httpx.Response(status, content=body, headers=headers)
        return httpx.Response(status, json=body if body is not None else {"ok": True}, headers=headers)

    return handler


def fail(exc_type: type[httpx.TransportError]) -> Handler:
    def handler(request: httpx.Request) -> httpx.Response:
        raise exc_type("simulated", request=request)

    return handler
