"""Reading a state database behind the stores' backs, the same way on SQLite and PostgreSQL.

Rules: every helper opens its own engine on the URL (as another process would) and disposes of it before
returning; ``sqlite_file`` is None for a PostgreSQL URL, so a test that needs the file says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url


def sqlite_file(url: str) -> Path | None:
    parsed = make_url(url)
    return Path(parsed.database or "") if parsed.get_backend_name() == "sqlite" else None


def engine(url: str) -> Engine:
    """An engine on ``url``; a SQLite file's folder is created first (as the stores do)."""
    path = sqlite_file(url)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    return create_engine(url)


def rows(url: str, sql: str, **params: Any) -> list[tuple[Any, ...]]:
    """The rows ``sql`` returns."""
    opened = engine(url)
    try:
        with opened.connect() as conn:
            return [tuple(row) for row in conn.execute(text(sql), params)]
    finally:
        opened.dispose()


def execute(url: str, *statements: str, **params: Any) -> None:
    """Run ``statements`` in one committed transaction."""
    opened = engine(url)
    try:
        with opened.begin() as conn:
            for sql in statements:
                conn.execute(text(sql), params)
    finally:
        opened.dispose()


def count(url: str, table: str) -> int:
    return int(rows(url, f"SELECT count(*) FROM {table}")[0][0])


def tables(url: str) -> set[str]:
    from sqlalchemy import inspect

    opened = engine(url)
    try:
        return set(inspect(opened).get_table_names())
    finally:
        opened.dispose()
