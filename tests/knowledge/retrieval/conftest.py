"""Where the retrieval tests put an index: parametrized over the two backends, so every test that asks
for ``index_at`` (or ``module_index_at``) runs once on embedded files and once on PostgreSQL.

Rules: ``index_at(name)`` returns the same target for the same name within a test (or module): a
directory under the test's tmp dir (``embedded``) or the URL of a fresh database of its own on the
session's PostgreSQL + pgvector (``postgresql``, ``pg_kit``). The PostgreSQL half is skipped only where
``pg_server`` is (no wheel on a developer's machine), never in CI.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from retrieval_fakes import IndexAt

from pg_kit import new_database

BACKENDS = ["embedded", "postgresql"]


def _index_at(request: pytest.FixtureRequest, base: Path) -> IndexAt:
    server = request.getfixturevalue("pg_server") if request.param == "postgresql" else None
    made: dict[str, Path | str] = {}

    def at(name: str = "ix") -> Path | str:
        if name not in made:
            made[name] = base / name if server is None else new_database(server)
        return made[name]

    return at


@pytest.fixture(params=BACKENDS)
def index_at(request: pytest.FixtureRequest, tmp_path: Path) -> IndexAt:
    return _index_at(request, tmp_path)


@pytest.fixture(scope="module", params=BACKENDS)
def module_index_at(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> IndexAt:
    return _index_at(request, tmp_path_factory.mktemp("indexes"))
