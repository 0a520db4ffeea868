"""Schema migrations of the state database (Alembic): one history for every table findesk keeps there
(audit log and run owners, API keys and requests, memory turns and facts, decisions and reflections).

Rules:
- the table definitions in code (``core.events.audit``, ``core.events.owners``, ``core.access.schema``,
  ``knowledge.memory.schema``) are the source of truth; each change to them comes with a revision in
  ``versions/`` that brings an existing database there, and a test checks that a migrated database
  matches them exactly (on SQLite and PostgreSQL).
- ``ensure_head`` runs on every open for writing (``core.storage.open_store``): a database already at
  ``HEAD`` costs one read and no Alembic import; otherwise it upgrades in one transaction that holds the
  database's write lock (SQLite: the writer engine's ``BEGIN IMMEDIATE``; PostgreSQL: a transaction
  advisory lock), so concurrent openers queue and the later ones find the work done.
- adoption: a database created before migrations existed (findesk's tables, no ``alembic_version``) is
  brought under them without touching its rows: the first revision creates only the tables and indexes
  that are missing, and refuses (``MigrationError``) a table lacking one of its columns.
- ``render_as_batch`` is on: SQLite can only alter a table by copying it, which revisions do through
  ``op.batch_alter_table`` (a plain ``ALTER`` on PostgreSQL).
- errors: ``MigrationError`` for a history problem (a database newer than this findesk, a table it
  cannot adopt), SQLAlchemy's errors for the database itself; ``open_store`` turns both into ``Err``.
- Alembic is imported only when a database is not at ``HEAD`` (or by ``findesk db``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from findesk.core.result import Err, ErrorCode, Ok, Result

if TYPE_CHECKING:
    from alembic.config import Config
    from sqlalchemy import Connection, Engine

HEAD = "0001"  # the newest revision in ``versions/``; a test checks they agree
SCRIPTS = Path(__file__).parent
VERSION_TABLE = "alembic_version"
# pg_advisory_xact_lock key: "fdkm" as a 32-bit integer, one lock for every findesk migration
_PG_LOCK = 0x66646B6D


class MigrationError(Exception):
    """The state database's schema cannot be brought to this findesk's ``HEAD``."""


@dataclass(frozen=True)
class Revisions:
    """Where a state database's schema stands: for ``findesk db``."""

    location: str  # the SQLite file, or the URL without its password
    before: str | None  # None: no revision (a new database, or one made before migrations)
    after: str | None
    head: str = HEAD


def migrate(url: str, *, busy_timeout_s: float = 30.0) -> Result[Revisions]:
    """Upgrade the state database at ``url`` to ``HEAD`` (``findesk db upgrade``); a database there
    already is left as it is."""
    from sqlalchemy.exc import SQLAlchemyError

    from findesk.core.storage import database_error, open_engine, state_url

    checked = state_url(url, what="state database", read_only=False)
    if isinstance(checked, Err):
        return checked
    parsed, location = checked.value
    try:
        writer = open_engine(parsed, busy_timeout_s, writer=True)
    except ImportError as exc:
        return Err(ErrorCode.NOT_CONFIGURED, f"the database driver for {location} is not installed: {exc}")
    try:
        before, after = upgrade(writer, "head")
    except MigrationError as exc:
        return Err(ErrorCode.UNAVAILABLE, f"cannot upgrade {location}: {exc}")
    except SQLAlchemyError as exc:
        return database_error(exc, "upgrade the schema", location)
    finally:
        writer.dispose()
    return Ok(Revisions(location, before, after))


def revision(url: str) -> Result[Revisions]:
    """The state database's revision, read only (``findesk db current``): a missing SQLite file is
    ``not_found``; nothing is created or changed."""
    from sqlalchemy.exc import SQLAlchemyError

    from findesk.core.storage import database_error, open_engine, state_url

    checked = state_url(url, what="state database", read_only=True)
    if isinstance(checked, Err):
        return checked
    parsed, location = checked.value
    try:
        reader = open_engine(parsed, 10.0, writer=False)
    except ImportError as exc:
        return Err(ErrorCode.NOT_CONFIGURED, f"the database driver for {location} is not installed: {exc}")
    try:
        with reader.connect() as conn:
            found = current(conn)
    except SQLAlchemyError as exc:
        return database_error(exc, "read the schema revision", location)
    finally:
        reader.dispose()
    return Ok(Revisions(location, found, found))


def current(conn: Connection) -> str | None:
    """The database's revision; None when it has none (new, or created before migrations)."""
    from sqlalchemy import text
    from sqlalchemy.exc import SQLAlchemyError

    try:
        with conn.begin_nested() if conn.in_transaction() else conn.begin():
            row = conn.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).first()
    except SQLAlchemyError:  # no version table yet (the savepoint keeps a PostgreSQL transaction usable)
        return None
    return None if row is None else str(row[0])


def at_head(reader: Engine) -> bool:
    """Whether the database is at ``HEAD`` already: one read, no lock, no Alembic."""
    from sqlalchemy.exc import SQLAlchemyError

    try:
        with reader.connect() as conn:
            return current(conn) == HEAD
    except SQLAlchemyError:  # cannot even connect: the upgrade that follows says why
        return False


def ensure_head(writer: Engine, reader: Engine) -> bool:
    """Bring the database to ``HEAD`` unless it is there already; True when something was migrated."""
    if at_head(reader):
        return False
    upgrade(writer, HEAD)
    return True


def upgrade(writer: Engine, target: str = "head") -> tuple[str | None, str | None]:
    """Upgrade to ``target`` under the database's write lock; the revisions before and after."""
    from alembic import command
    from alembic.util.exc import CommandError

    with writer.begin() as conn:
        if conn.dialect.name == "postgresql":
            from sqlalchemy import text

            # held until the transaction ends: a second server opening at the same moment waits here,
            # then finds the database at head and does nothing
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK})
        before = current(conn)
        try:
            command.upgrade(_config(conn), target)
        except CommandError as exc:
            raise MigrationError(_explain(exc, before)) from exc
        return before, current(conn)


def _config(conn: Connection) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(SCRIPTS))
    config.attributes["connection"] = conn  # env.py migrates on this connection, inside its transaction
    return config


def _explain(exc: Exception, before: str | None) -> str:
    if before is not None and before != HEAD and "Can't locate revision" in str(exc):
        return (
            f"the state database is at schema revision {before}, which this findesk does not know "
            f"(its newest is {HEAD}): it was upgraded by a newer findesk; upgrade findesk"
        )
    return f"schema migration failed: {exc}"
