"""Alembic's environment for the state database: migrates on the connection it is handed.

Rules: ``findesk.core.migrations.upgrade`` hands it an open connection inside a transaction that holds
the database's write lock (``config.attributes["connection"]``), so Alembic neither opens nor commits
one of its own. Run by hand through the ``alembic`` command (``script_location`` set to this folder), it
opens the URL given as ``-x url=…``. ``render_as_batch`` is on, so
revisions alter SQLite tables the only way SQLite can (copy and swap) and PostgreSQL ones with ALTER.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine


def _migrate(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=None, render_as_batch=True)
    with context.begin_transaction():  # a no-op inside the caller's transaction
        context.run_migrations()


def _run() -> None:
    handed = context.config.attributes.get("connection")
    if isinstance(handed, Connection):
        _migrate(handed)
        return
    url = context.get_x_argument(as_dictionary=True).get("url")
    if not url:
        raise SystemExit("give the database: alembic -x url=sqlite:////path/audit.sqlite3 …")
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            _migrate(connection)
    finally:
        engine.dispose()


_run()
