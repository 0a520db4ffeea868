"""State storage: SQLAlchemy engines for the state database (SQLite file by default, PostgreSQL by URL).

Rules:
- one way to open the state database, shared by the audit log and the API key store, so every part
  that writes it takes the same locks in the same way.
- SQLite: a busy timeout everywhere; writer engines use a WAL journal, ``synchronous=FULL`` (a
  committed transaction survives the process being killed) and ``BEGIN IMMEDIATE`` (writers queue
  for the lock instead of failing when a read transaction must be upgraded).
- PostgreSQL: a plain pooled engine; callers lock rows (``SELECT … FOR UPDATE``) where they must. A
  URL without a driver (``postgresql://``, ``postgres://``) uses psycopg 3, the driver findesk ships.
- the schema is Alembic's (``core.migrations``): opening for writing brings the database to the newest
  revision under the write lock (creating it, or adopting a database made before migrations); opening
  read-only changes nothing and finds a database without the store's tables ``not_found``.
- errors are data: ``state_url`` returns ``Err``, and ``database_error`` turns a failed statement into
  one, on one line; ``open_engine`` is lazy and connects nothing, so it fails only on a missing driver
  (``ImportError``), which callers turn into ``not_configured``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, MetaData, create_engine, event, inspect
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from findesk.core.result import Err, ErrorCode, Ok, Result

BACKENDS = ("sqlite", "postgresql")


def open_engine(url: URL, busy_timeout_s: float, *, writer: bool) -> Engine:
    """An engine for the state database; ``writer`` engines begin every transaction IMMEDIATE on SQLite."""
    if url.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True)
    engine = create_engine(url, connect_args={"timeout": busy_timeout_s, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _configure(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # the driver's implicit BEGIN is replaced by ours below
        cursor = dbapi_conn.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s * 1000)}")
        if writer:
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = FULL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        # A deferred write transaction that must upgrade its lock fails at once with "database is
        # locked" when another process writes; IMMEDIATE takes the lock up front and waits for it.
        conn.exec_driver_sql("BEGIN IMMEDIATE" if writer else "BEGIN")

    return engine


@dataclass(frozen=True)
class OpenStore:
    """Engines on one store's tables in the state database."""

    location: str  # the SQLite file, or the URL without its password
    backend: str  # "sqlite" | "postgresql"
    reader: Engine
    writer: Engine | None  # None when opened read-only


def open_store(
    url: str, *, what: str, metadata: MetaData, read_only: bool, busy_timeout_s: float
) -> Result[OpenStore]:
    """Open one store (its ``metadata``'s tables) in the state database, migrating the database to the
    newest schema unless ``read_only``; read-only, a missing file or missing tables are ``not_found``."""
    from findesk.core.migrations import MigrationError, ensure_head

    checked = state_url(url, what=what, read_only=read_only)
    if isinstance(checked, Err):
        return checked
    parsed, location = checked.value
    reader: Engine | None = None
    writer: Engine | None = None
    try:
        reader = open_engine(parsed, busy_timeout_s, writer=False)
        writer = None if read_only else open_engine(parsed, busy_timeout_s, writer=True)
        if writer is not None:
            migrated = ensure_head(writer, reader)
            # checked only after a migration (at head, the revisions' tables are there): a store whose
            # tables no revision creates would otherwise fail on its first statement
            if migrated and not set(metadata.tables) <= set(inspect(reader).get_table_names()):
                _dispose(reader, writer)
                return Err(ErrorCode.UNAVAILABLE, f"no schema migration creates the tables of the {what}")
        elif not set(metadata.tables) <= set(inspect(reader).get_table_names()):
            reader.dispose()
            return Err(ErrorCode.NOT_FOUND, f"{location} holds no {what} yet")
        return Ok(OpenStore(location, parsed.get_backend_name(), reader, writer))
    except MigrationError as exc:
        _dispose(reader, writer)
        return Err(ErrorCode.UNAVAILABLE, f"cannot open the {what} in {location}: {exc}")
    except ImportError as exc:
        _dispose(reader, writer)
        return Err(ErrorCode.NOT_CONFIGURED, f"the database driver for {location} is not installed: {exc}")
    except SQLAlchemyError as exc:
        _dispose(reader, writer)
        return database_error(exc, f"open the {what}", location)


def _dispose(*engines: Engine | None) -> None:
    for engine in engines:
        if engine is not None:
            engine.dispose()


def state_url(url: str, *, what: str, read_only: bool) -> Result[tuple[URL, str]]:
    """Check a state database URL: the parsed URL (SQLite paths made absolute) and where it points,
    for people (the file, or the URL without its password).

    Unless ``read_only``, a SQLite file's folder is created; with ``read_only`` a missing file is
    ``not_found``. ``what`` names the store in messages ("API key store").
    """
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        return Err(ErrorCode.INVALID_INPUT, f"{what} URL {url!r} is not a database URL: {exc}")
    if parsed.drivername in ("postgresql", "postgres"):
        # SQLAlchemy's default PostgreSQL driver is psycopg2; findesk ships psycopg 3
        parsed = parsed.set(drivername="postgresql+psycopg")
    backend = parsed.get_backend_name()
    if backend not in BACKENDS:
        return Err(
            ErrorCode.INVALID_INPUT,
            f"{what} database {backend!r} is not supported (use sqlite or postgresql)",
        )
    if backend != "sqlite":
        return Ok((parsed, parsed.render_as_string(hide_password=True)))
    if not parsed.database or parsed.database == ":memory:" or parsed.database.startswith("file:"):
        # several processes (CLI, server workers) must see the same rows: only a file is shared
        return Err(
            ErrorCode.INVALID_INPUT,
            f"the {what} needs a file, e.g. sqlite:////path/audit.sqlite3 (got {url!r})",
        )
    path = Path(parsed.database).expanduser().absolute()
    if read_only and not path.is_file():
        return Err(ErrorCode.NOT_FOUND, f"no {what} at {path} yet")
    if not read_only:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return Err(ErrorCode.UNAVAILABLE, f"cannot create the folder {path.parent} for the {what}: {exc}")
    return Ok((parsed.set(database=str(path)), str(path)))


def utc(ts: datetime) -> datetime:
    """A stored or given timestamp as aware UTC: SQLite hands back naive datetimes, and everything
    stored is UTC, so a naive value is read as UTC."""
    return ts.replace(tzinfo=UTC) if ts.tzinfo is None else ts.astimezone(UTC)


def database_error(exc: Exception, doing: str, location: str) -> Err:
    """A failed statement or connection as ``unavailable``: the database is locked, down or unreadable.
    The driver's own message is kept (it says which), SQLAlchemy's wrapping and SQL text are not."""
    reason = getattr(exc, "orig", None) or exc
    # drivers add hint lines ("Is the server running on that host…?"): an error is one line
    said = " ".join(str(reason).split())
    return Err(ErrorCode.UNAVAILABLE, f"cannot {doing} in {location}: {said}")
