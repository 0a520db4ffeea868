"""Fixtures for the limit tests: a fresh state database per test (``state_db``: SQLite, then
PostgreSQL), its key store and one key.

Rules: the store is closed when the test ends; the key may use the tiers ``free`` and ``pro``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from findesk.core.access.keys import ApiKey, KeyStore


@pytest.fixture
def store(state_db: str) -> Iterator[KeyStore]:
    opened = KeyStore.open(state_db).unwrap()
    yield opened
    opened.close()


@pytest.fixture
def key(store: KeyStore) -> ApiKey:
    return store.create("desk", "free", tiers=("free", "pro")).unwrap()[0]
