"""Fixtures for the shared HTTP client's tests.

Rules: no test sleeps for real (rate limits are off unless a test turns them on, retries wait on the
fake clock) and no test reaches the network (every client gets a ``MockTransport``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from http_fakes import FakeClock, Handler, Recorder, answer

from findesk.core.config import HttpSettings
from findesk.data.http import HttpClient


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def make_client(clock: FakeClock) -> Iterator[Callable[..., tuple[HttpClient, Recorder]]]:
    made: list[HttpClient] = []

    def make(
        *script: Handler, cache_dir: Path | None = None, **overrides: Any
    ) -> tuple[HttpClient, Recorder]:
        settings = HttpSettings(**{"default_rps": 0.0, "rate_limits": {}, **overrides})
        recorder = Recorder(list(script) or [answer()])
        client = HttpClient(
            settings,
            cache_dir=cache_dir,
            transport=httpx.MockTransport(recorder),
            clock=clock,
            sleep=clock.sleep,
        )
        made.append(client)
        return client, recorder

    yield make
    for client in made:
        if client._cache is not None:
            client._cache.close()
