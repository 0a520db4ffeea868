"""Fakes for the shared HTTP client's tests: a clock whose ``sleep`` advances time instantly, and a
scripted transport handler that records every request it receives.

(A uniquely named module rather than ``conftest`` so that tests can import it unambiguously.)
"""

from __future__ import annotations

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
