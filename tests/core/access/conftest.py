"""Fixtures for the limit tests: a fresh audit database per test, its key store and one key.

Rules: the store is closed when the test ends; the key may use the tiers ``free`` and ``pro``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from findesk.core.access.keys import ApiKey, KeyStore


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "audit.sqlite3"


@pytest.fixture
def store(db: Path) -> Iterator[KeyStore]:
    opened = KeyStore.open(f"sqlite:///{db}").unwrap()
    yield opened
    opened.close()


@pytest.fixture
def key(store: KeyStore) -> ApiKey:
    return store.create("desk", "free", tiers=("free", "pro")).unwrap()[0]
