"""The index's write lock: one writer at a time, across processes (a file lock) or machines (PostgreSQL).

Rules this module keeps:
- ``try_acquire`` never waits: a second writer learns at once that the index is busy, and ``owner``
  says who holds it (a pid, and on PostgreSQL the host too), so the message can name the other build.
- The lock dies with its holder: ``flock`` is released by the OS when the process dies; the PostgreSQL
  advisory lock is a session lock on a connection of its own, released when that connection ends
  (a killed process's connection is closed by the server when it notices the socket is gone, at once
  on a local socket, after TCP keepalive over a network).
- Readers never take the lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import psycopg

_APP = "findesk index build"


class WriteLock(Protocol):
    """An exclusive, non-blocking lock on one index."""

    @property
    def held(self) -> bool:
        """Whether this object holds the lock."""
        ...

    def try_acquire(self) -> bool:
        """Take the lock if it is free (True), or say it is not (False), without waiting."""
        ...

    def owner(self) -> str:
        """Who holds the lock, for a message ("pid 4242", "pid 4242 on host-a"), or "unknown"."""
        ...

    def release(self) -> None:
        """Give the lock up (nothing if not held)."""
        ...


class FileLock:
    """An exclusive ``flock`` on a file in the index directory, held by one process at a time."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._fh: IO[str] | None = None

    @property
    def held(self) -> bool:
        return self._fh is not None

    def try_acquire(self) -> bool:
        if self._fh is not None:
            return True
        fh = self._path.open("a+", encoding="utf-8")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.close()
            return False
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
        self._fh = fh
        return True

    def owner(self) -> str:
        try:
            pid = self._path.read_text(encoding="utf-8").strip()
        except OSError:
            return "unknown"
        return f"pid {pid}" if pid else "unknown"

    def release(self) -> None:
        if self._fh is not None:
            fcntl.flock(self._fh, fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None


class PgAdvisoryLock:
    """A session advisory lock in the index's database, on a connection opened for the lock alone.

    The connection's ``application_name`` carries the holder's pid and host, which ``owner`` reads back
    from ``pg_stat_activity`` for the session that holds the lock.
    """

    def __init__(self, url: str) -> None:
        self._url = url
        self._conn: psycopg.Connection[Any] | None = None

    @property
    def held(self) -> bool:
        return self._conn is not None

    def try_acquire(self) -> bool:
        from findesk.knowledge.retrieval import pg

        if self._conn is not None:
            return True
        name = f"{_APP}, pid {os.getpid()} on {socket.gethostname()}"
        conn = pg.connect(self._url, autocommit=True, application_name=name)
        try:
            row = conn.execute(
                "SELECT pg_try_advisory_lock(%s, hashtext(current_schema()))", [pg.WRITE_KEY]
            ).fetchone()
        except BaseException:
            conn.close()
            raise
        if not (row and row[0]):
            conn.close()
            return False
        self._conn = conn
        return True

    def owner(self) -> str:
        from findesk.knowledge.retrieval import pg

        query = (
            "SELECT a.application_name, a.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 "
            "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
            "AND l.classid = %s::int4::oid AND l.objid = hashtext(current_schema())::oid"
        )
        try:
            with pg.connect(self._url, autocommit=True) as conn:
                row = conn.execute(query, [pg.WRITE_KEY]).fetchone()
        except Exception:  # only for a message: a failure here must not hide the lock error itself
            return "unknown"
        if row is None:
            return "unknown"
        name, pid = str(row[0] or ""), int(row[1])
        return name.removeprefix(f"{_APP}, ") if name.startswith(_APP) else f"server pid {pid}"

    def release(self) -> None:
        if self._conn is None:
            return
        conn, self._conn = self._conn, None
        # closing the session releases its advisory locks; the explicit unlock is for a pooler that keeps
        # server sessions open, and may fail on a broken connection, which released the lock anyway
        with contextlib.suppress(Exception):
            conn.execute("SELECT pg_advisory_unlock_all()")
        conn.close()
