"""Which process owns a run in the audit log, and whether that process is gone.

Rules:
- The process that records a run's events owns the run: the audit log's writer claims each run it
  writes (``run_owners``) in the same transaction as its events, so a resumed run moves to the process
  resuming it. A process is named by host, pid and start time (Linux: boot id and start ticks from
  ``/proc``), so a recycled pid is never taken for the process that died.
- An owner keeps a heartbeat (``owners.seen_at``, Unix seconds) while it has runs in progress.
- A run is interrupted only when its owner is provably gone: on this host and in this pid namespace
  (a container has its own), no live process with its pid and start time (elsewhere than Linux: no
  process with its pid); anywhere else, no heartbeat for ``STALE_S``. So one server's start-up never
  closes the runs of a live server sharing its database. A run recorded before owners were kept has
  none: it counts as interrupted once quiet for ``STALE_S``.
- The tables have their own metadata, beside the audit log's, so an older log (without them) still
  opens read-only (its runs have no owner); opening for writing migrates the database, which creates
  them (``core.migrations``).
- Deciding is read-only and cheap (one indexed lookup per 500 running runs, a ``/proc`` read per
  owner process on this host), so readers derive ``interrupted`` for display, and every CLI run
  checks before it takes a write lock to close anything.
"""

from __future__ import annotations

import functools
import os
import socket
import sys
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy import Connection, MetaData, Table

HEARTBEAT_S = 30.0
STALE_S = 300.0  # ten missed heartbeats: the owner on another host is gone


@dataclass(frozen=True)
class Owner:
    host: str
    pid: int
    started: str | None  # boot id and start ticks (Linux); None where that cannot be read
    space: str | None = None  # the pid namespace (Linux): pids mean the same only within one

    @property
    def key(self) -> str:
        return f"{self.host}/{self.space or '-'}/{self.pid}/{self.started or '-'}"

    def near(self, other: Owner) -> bool:
        """Whether ``other``'s pid can be looked up from here."""
        return self.host == other.host and self.space == other.space

    def describe(self) -> str:
        return f"pid {self.pid} on {self.host}"


@dataclass(frozen=True)
class _Tables:
    metadata: MetaData
    owners: Table
    run_owners: Table


@functools.cache
def _tables() -> _Tables:
    from sqlalchemy import Column, Float, Integer, MetaData, String, Table

    metadata = MetaData()
    owners = Table(
        "owners",
        metadata,
        Column("owner", String, primary_key=True),
        Column("host", String, nullable=False),
        Column("pid", Integer, nullable=False),
        Column("started", String),
        Column("space", String),
        Column("seen_at", Float, nullable=False),
    )
    run_owners = Table(
        "run_owners",
        metadata,
        Column("run_id", String, primary_key=True),
        Column("owner", String, nullable=False),
    )
    return _Tables(metadata, owners, run_owners)


def metadata() -> MetaData:
    """The owners' tables (for the schema check of the migrations)."""
    return _tables().metadata


def this_process() -> Owner:
    pid = os.getpid()  # not cached across a fork: the child is another owner
    return Owner(socket.gethostname(), pid, _started(pid), _pid_space())


@functools.cache
def _pid_space() -> str | None:
    try:
        return str(Path("/proc/self/ns/pid").readlink())
    except OSError:
        return None


@functools.cache
def _boot_id() -> str | None:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None


def _stat(pid: int) -> list[str] | None:
    """``/proc/<pid>/stat`` after the command name (which may hold spaces): state is [0], start [19]."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None


def _started(pid: int) -> str | None:
    if not sys.platform.startswith("linux"):
        return None
    fields, boot = _stat(pid), _boot_id()
    if fields is None or boot is None or len(fields) < 20:
        return None
    return f"{boot}:{fields[19]}"


def alive(owner: Owner) -> bool:
    """Whether ``owner`` (a process on this host) still runs; a zombie does not."""
    if owner.started is not None and sys.platform.startswith("linux"):
        fields = _stat(owner.pid)
        return fields is not None and fields[0] not in ("Z", "X") and _started(owner.pid) == owner.started
    try:
        os.kill(owner.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: it exists
    return True


def claim(
    conn: Connection, insert: Callable[[Table], Any], owner: Owner, run_ids: Collection[str], now: float
) -> None:
    """Record ``owner`` as alive at ``now`` and as the owner of ``run_ids``."""
    tables = _tables()
    row = {"owner": owner.key, "seen_at": now} | {
        "host": owner.host,
        "pid": owner.pid,
        "started": owner.started,
        "space": owner.space,
    }
    stmt = insert(tables.owners).values(**row)
    conn.execute(
        stmt.on_conflict_do_update(index_elements=["owner"], set_={"seen_at": stmt.excluded.seen_at})
    )
    if run_ids:
        add = insert(tables.run_owners)
        conn.execute(
            add.on_conflict_do_update(index_elements=["run_id"], set_={"owner": add.excluded.owner}),
            [{"run_id": run_id, "owner": owner.key} for run_id in run_ids],
        )


def kept(conn: Connection) -> bool:
    """Whether the database has the owners' tables (a log only ever read since before they existed
    has not)."""
    from sqlalchemy import inspect

    return bool(inspect(conn).has_table(_tables().run_owners.name))


def interrupted(
    conn: Connection, running: Sequence[tuple[str, float]], me: Owner, now: float, *, kept: bool = True
) -> list[tuple[str, str]]:
    """Of the runs still ``running`` (id, Unix time of its last event), those whose owner is gone,
    with why. Without the owners' tables (``kept`` False) no run has an owner."""
    from sqlalchemy import select

    tables = _tables()
    ids = [run_id for run_id, _ in running] if kept else []
    owned: dict[str, Any] = {}
    for start in range(0, len(ids), 500):  # bounded IN lists
        query = (
            select(tables.run_owners.c.run_id, tables.owners)
            .join(tables.owners, tables.owners.c.owner == tables.run_owners.c.owner)
            .where(tables.run_owners.c.run_id.in_(ids[start : start + 500]))
        )
        owned |= {row.run_id: row for row in conn.execute(query)}
    stale = now - STALE_S
    living: dict[str, bool] = {}
    out = []
    for run_id, updated in running:
        row = owned.get(run_id)
        if row is None:
            if updated < stale:
                out.append(
                    (run_id, f"its process ended before the run finished (no event for {STALE_S:.0f} s)")
                )
            continue
        owner = Owner(row.host, row.pid, row.started, row.space)
        if owner.near(me):
            if owner.key not in living:  # one look per process, however many runs it left
                living[owner.key] = owner.key == me.key or alive(owner)
            if not living[owner.key]:
                out.append((run_id, f"the process running it ({owner.describe()}) ended before it finished"))
        elif row.seen_at < stale:
            out.append(
                (run_id, f"the process running it ({owner.describe()}) stopped answering before it finished")
            )
    return out
