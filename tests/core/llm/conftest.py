"""Fixtures for the model-provider tests.

Rules: every model call goes through the real SDK clients to ``FakeProviderServer`` on 127.0.0.1,
started fresh for each test so scripts and recorded requests never leak between tests.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from findesk.testing.fake_provider_server import FakeProviderServer


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    with FakeProviderServer() as running:
        yield running
