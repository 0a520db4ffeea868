"""Shared test fixtures.

Rules: no test reaches the network (non-loopback sockets are refused for the whole session); tests
that need the recorded snapshot use the ``snapshot_dir`` fixture and are skipped with a clear reason
when it is absent, except under ``CI`` (set by CI), where they fail: a CI run that skipped 43 % of the
suite would still pass.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from findesk.core.config import Settings
from findesk.core.result import Err
from findesk.core.sandbox import sandbox_status
from pg_kit import new_database, start_pgserver
from snapshot_kit import SHARED_INDEXES, require_snapshot

FIXTURES = Path(__file__).parent / "fixtures"
_real_connect = socket.socket.connect


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, str) and (host.startswith("127.") or host in ("::1", "localhost")):
        return _real_connect(self, address)
    if self.family == socket.AF_UNIX:
        return _real_connect(self, address)
    raise OSError(f"network access is blocked in tests (tried to reach {address!r})")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A bare ``pytest`` runs the default suite: the ``system`` tests (the product started in other
    processes) only with ``-m system`` or when named (``pytest tests``, a file, a node id)."""
    if config.option.markexpr or config.args_source is not pytest.Config.ArgsSource.TESTPATHS:
        return
    system = {item for item in items if item.get_closest_marker("system") is not None}
    if system:
        config.hook.pytest_deselected(items=[item for item in items if item in system])
        items[:] = [item for item in items if item not in system]


@pytest.fixture(autouse=True, scope="session")
def _block_network() -> Iterator[None]:
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    yield
    socket.socket.connect = _real_connect  # type: ignore[method-assign]


@pytest.fixture(autouse=True, scope="session")
def _shared_snapshot_indexes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """One folder of snapshot price and listing indexes for the whole session, as servers may share
    one (``snapshot_index_dir``): built once instead of ~250 MB in each of the suite's cache folders,
    which filled the disk. Session-wide (not per test) so that module fixtures' settings see it too;
    tests of the per-cache default set their own."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(SHARED_INDEXES, str(tmp_path_factory.mktemp("snapshot-index")))
        yield


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Tests never read the developer's own config file, keys, cache or audit log."""
    for key in list(os.environ):
        if key.startswith("FINDESK_") and key not in ("FINDESK_SNAPSHOT_DIR", SHARED_INDEXES):
            monkeypatch.delenv(key, raising=False)
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("FINDESK_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("FINDESK_STATE_DIR", str(tmp_path_factory.mktemp("state")))
    monkeypatch.setenv("FINDESK_CONFIG", str(_empty_config(tmp_path_factory)))


def _empty_config(factory: pytest.TempPathFactory) -> Path:
    path = factory.getbasetemp() / "empty-findesk.toml"
    if not path.exists():
        path.write_text("")
    return path


@pytest.fixture(scope="session")
def snapshot_dir() -> Path:
    return require_snapshot(Settings().resolved_snapshot_dir(), ci=bool(os.environ.get("CI")))


@pytest.fixture(scope="session")
def sandbox_ready() -> str:
    """A working sandbox (bubblewrap, libseccomp, a process cap): skipped with the reason on a developer's
    machine without one, a failure under ``CI`` (where skipping would hide a missing wall)."""
    status = sandbox_status()
    if isinstance(status, Err):
        if os.environ.get("CI"):
            pytest.fail(f"the sandbox must work in CI: {status.message()}", pytrace=False)
        pytest.skip(status.message())
    return status.value


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Any]:
    """One real PostgreSQL + pgvector for the session (``tests/pg_kit.py``): skipped without the wheel on
    a developer's machine, a failure under ``CI``."""
    yield from start_pgserver()


@pytest.fixture
def pg_url(pg_server: Any) -> str:
    """A fresh, empty PostgreSQL database for this test: its SQLAlchemy URL (``postgresql+psycopg://``)."""
    return new_database(pg_server)


@pytest.fixture(params=["sqlite", "postgresql"])
def state_db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty state database, once as a SQLite file and once as a PostgreSQL database
    (``pg_url``): the storage tests that take it run on both backends (``state_kit`` reads rows back)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'state' / 'audit.sqlite3'}"
    return str(request.getfixturevalue("pg_url"))
