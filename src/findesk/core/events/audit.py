"""The audit log: every event of every run, kept in SQLite (or PostgreSQL) through SQLAlchemy Core.

Rules:
- durable: an event counts as acknowledged only once the transaction holding it is committed
  (SQLite: WAL journal, ``synchronous=FULL``); after ``flush()`` returns True, every event written
  before the call survives the process being killed.
- never slows the run: ``write`` only enqueues; one writer thread per log commits what is queued
  in batches (up to ``BATCH_MAX`` events per transaction).
- consistent: a run's summary row (``runs``) changes in the same transaction as its events and
  counts only newly inserted events, so writing an event twice changes nothing.
- shared: several processes may write one file (busy timeout; ``BEGIN IMMEDIATE`` so writers queue
  for the lock instead of failing on upgrade) and read it while others write.
- errors are data: ``open`` returns ``Err``; a failed commit on the writer thread never raises into
  the run: it is recorded, reported once on stderr, and ``flush`` returns False from then on,
  because the events written before it are no longer all safe.
- owned: the process writing a run claims it (``owners``); ``close_interrupted_runs`` ends a run left
  ``running`` by a process that is provably gone with an ``interrupted`` error event, and never
  touches a run of a live process, whichever server or CLI it is. ``findesk serve`` does it at
  start-up, every CLI run as it opens the log; until then, reading (``list_runs``, ``find_run``)
  already shows such a run as that ``interrupted`` error, derived and written nowhere.
- cheap to import: SQLAlchemy (and the settings) load when a log is opened or a URL is read, so a
  module that only needs ``RunSummary`` does not pay for them.
"""

from __future__ import annotations

import atexit
import functools
import json
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from findesk.core.events import owners
from findesk.core.events.model import (
    AgentStart,
    Done,
    Error,
    Event,
    LlmCall,
    ToolCallStarted,
    ToolResultReady,
)
from findesk.core.result import Err, ErrorCode, Ok, Result

if TYPE_CHECKING:
    from sqlalchemy import Connection, Engine, MetaData, Table
    from sqlalchemy.engine import RowMapping

    from findesk.core.config import Settings

BATCH_MAX = 500
_COMMIT_ATTEMPTS = 3
_COUNTERS = (
    "event_count",
    "tool_calls",
    "tool_errors",
    "llm_calls",
    "input_tokens",
    "output_tokens",
    "cached_tokens",
)


@dataclass(frozen=True)
class _Schema:
    metadata: MetaData
    events: Table
    runs: Table
    columns: tuple[str, ...]  # of ``runs``, in table order


@functools.cache
def _schema() -> _Schema:
    """The tables, built on first use: SQLAlchemy costs ~0.2 s to import, and importing this module
    (for ``RunSummary`` or ``audit_location``) must not pay it; opening a log does."""
    from sqlalchemy import Column, DateTime, Float, Index, Integer, MetaData, String, Table, Text

    metadata = MetaData()
    events = Table(
        "events",
        metadata,
        Column("event_id", String, primary_key=True),
        Column("run_id", String, nullable=False),
        Column("seq", Integer, nullable=False),
        Column("parent_id", String),
        Column("ts", DateTime(timezone=True), nullable=False),
        Column("type", String, nullable=False),
        Column("agent", String),
        Column("payload", Text, nullable=False),
        Index("ix_events_run_seq", "run_id", "seq"),
    )
    runs = Table(
        "runs",
        metadata,
        Column("run_id", String, primary_key=True),
        Column("started_at", DateTime(timezone=True), nullable=False),
        Column("updated_at", DateTime(timezone=True), nullable=False),
        Column("title", Text),
        Column("status", String, nullable=False),
        Column("mode", String),
        *(Column(name, Integer, nullable=False, default=0) for name in _COUNTERS),
        Column("cost_usd", Float, nullable=False, default=0.0),
        Column("error", Text),
        Index("ix_runs_started", "started_at"),
    )
    return _Schema(metadata, events, runs, tuple(column.name for column in runs.columns))


def __getattr__(name: str) -> Any:
    """``metadata``, ``events_table`` and ``runs_table`` as before, built on first use."""
    if name == "metadata":
        return _schema().metadata
    if name == "events_table":
        return _schema().events
    if name == "runs_table":
        return _schema().runs
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class RunSummary(BaseModel):
    """One row of ``runs``; ``duration_ms`` spans the run's first to its latest event."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    started_at: datetime
    updated_at: datetime
    title: str | None
    status: str  # running | done | error
    mode: str | None
    event_count: int
    tool_calls: int
    tool_errors: int
    llm_calls: int
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    cost_usd: float
    error: str | None
    duration_ms: float


@dataclass
class _RunDelta:
    """What one batch adds to one run's summary row."""

    run_id: str
    started_at: datetime
    updated_at: datetime
    title: str | None = None
    mode: str | None = None
    status: str | None = None  # None: the batch holds no done/error event
    error: str | None = None
    event_count: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float = 0.0

    def add(self, ev: Event) -> None:
        ts = _utc(ev.ts)
        self.started_at, self.updated_at = min(self.started_at, ts), max(self.updated_at, ts)
        self.event_count += 1
        d = ev.data
        if isinstance(d, AgentStart) and ev.parent_id is None and self.title is None:
            self.title, self.mode = _title(d.agent, d.inputs), d.mode
        elif isinstance(d, ToolCallStarted):
            self.tool_calls += 1
        elif isinstance(d, ToolResultReady) and not d.ok:
            self.tool_errors += 1
        elif isinstance(d, LlmCall):
            self.llm_calls += 1
            self.input_tokens += d.input_tokens
            self.output_tokens += d.output_tokens
            self.cached_tokens += d.cached_tokens
            self.cost_usd += d.cost_usd
        elif isinstance(d, Done):
            self.status = "done"
        elif isinstance(d, Error):
            self.status, self.error = "error", f"{d.code}: {d.message}"

    def row(self) -> dict[str, Any]:
        columns = _schema().columns
        return {name: getattr(self, name) for name in columns} | {"status": self.status or "running"}


class AuditLog:
    """A ``Sink`` that records events; also reads runs back. Create with ``AuditLog.open``."""

    child_runs = True  # records the runs a run starts (a pipeline's) as runs of their own

    def __init__(self, location: str, reader: Engine, writer: Engine | None, backend: str) -> None:
        self.location = location  # file path, or the URL without its password
        self._reader = reader
        self._writer = writer
        self._insert: Callable[[Table], Any]
        if backend == "postgresql":  # only the dialect in use is imported (PostgreSQL's costs ~40 ms)
            from sqlalchemy.dialects.postgresql import insert as postgresql_insert

            self._insert = postgresql_insert
        else:
            from sqlalchemy.dialects.sqlite import insert as sqlite_insert

            self._insert = sqlite_insert
        self._lock = threading.Lock()
        self._work = threading.Condition(self._lock)
        self._progress = threading.Condition(self._lock)
        self._queue: deque[Event] = deque()
        self._enqueued = 0  # events accepted by write()
        self._processed = 0  # events the writer is done with, committed or lost, in write order
        self._acknowledged = 0
        self._first_lost: int | None = None  # write index of the first event that was not committed
        self._error: str | None = None
        self._closed = False
        self._thread: threading.Thread | None = None
        self._owner = owners.this_process()
        self._claimed: set[str] = set()  # runs this log has claimed and not yet seen end (writer thread)
        self._beat_at = 0.0
        self._owners_kept: bool | None = None  # whether this log has the owners' tables (read once)
        if writer is not None:
            atexit.register(self.close)

    @classmethod
    def open(cls, url: str, *, read_only: bool = False, busy_timeout_s: float = 10.0) -> Result[AuditLog]:
        """Open (and, unless ``read_only``, create) the audit log at a SQLAlchemy URL.

        ``read_only`` creates nothing: a missing file or schema is ``not_found``.
        """
        from findesk.core.storage import open_store

        opened = open_store(
            url,
            what="audit log",
            metadata=_schema().metadata,
            read_only=read_only,
            busy_timeout_s=busy_timeout_s,
        )
        if isinstance(opened, Err):
            if opened.code is ErrorCode.NOT_FOUND:
                return Err(ErrorCode.NOT_FOUND, f"{opened.reason}: no run has been recorded")
            return opened
        store = opened.value  # opened for writing, the migrations created the owners' tables too
        return Ok(cls(store.location, store.reader, store.writer, store.backend))

    # -- writing -----------------------------------------------------------------------------

    @property
    def acknowledged(self) -> int:
        """Events committed so far by this log's writer."""
        with self._lock:
            return self._acknowledged

    @property
    def last_error(self) -> str | None:
        with self._lock:
            return self._error

    def write(self, event: Event) -> None:
        with self._lock:
            if self._writer is None:
                raise RuntimeError(f"the audit log {self.location} was opened read-only")
            if self._closed:
                raise RuntimeError(f"the audit log {self.location} is closed")
            self._queue.append(event)
            self._enqueued += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._drain, name="findesk-audit-writer", daemon=True)
                self._thread.start()
            self._work.notify()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every event written before this call is committed; False on timeout or loss."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            target = self._enqueued
            while self._processed < target:
                if self._thread is None or not self._thread.is_alive():
                    return False
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._progress.wait(remaining)
            return self._first_lost is None or self._first_lost >= target

    def close(self, timeout: float | None = 30.0) -> None:
        """Commit what is queued, stop the writer and release the database. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._work.notify_all()
            thread = self._thread
        atexit.unregister(self.close)
        if thread is not None:
            thread.join(timeout)
            if thread.is_alive():
                return  # still committing: leave its engine alone
        if self._writer is not None:
            self._writer.dispose()
        self._reader.dispose()

    def _drain(self) -> None:
        assert self._writer is not None
        while True:
            with self._lock:
                while not self._queue and not self._closed:
                    if not self._work.wait(owners.HEARTBEAT_S) and self._claimed:
                        break  # quiet, with runs in progress: tell other processes this one lives
                if not self._queue and self._closed:
                    return
                batch = [self._queue.popleft() for _ in range(min(len(self._queue), BATCH_MAX))]
                first_index = self._processed
            if not batch:
                self._beat()
                continue
            failure = self._commit(self._writer, batch)
            with self._lock:
                self._processed += len(batch)
                if failure is None:
                    self._acknowledged += len(batch)
                else:
                    if self._first_lost is None:
                        self._first_lost = first_index
                    if self._error is None:
                        print(f"findesk: audit log {self.location}: {failure}", file=sys.stderr)
                    self._error = failure
                self._progress.notify_all()

    def _commit(self, engine: Engine, batch: list[Event]) -> str | None:
        problem: BaseException | None = None
        for attempt in range(_COMMIT_ATTEMPTS):
            try:
                with engine.begin() as conn:
                    _store(conn, batch, self._insert)
                    claimed = self._claim(conn, batch)
                self._claimed = claimed
                return None
            except Exception as exc:  # any failure must stay on this thread
                problem = getattr(exc, "orig", None) or exc
                time.sleep(0.05 * (attempt + 1))  # a moment for a locked or busy database
        return f"could not record {len(batch)} events: {type(problem).__name__}: {problem}"

    def _claim(self, conn: Connection, batch: list[Event]) -> set[str]:
        """Own the runs ``batch`` writes (and beat, when due); the runs still in progress after it."""
        fresh = {ev.run_id for ev in batch} - self._claimed
        if fresh or (self._claimed and time.monotonic() - self._beat_at >= owners.HEARTBEAT_S):
            owners.claim(conn, self._insert, self._owner, fresh, time.time())
            self._beat_at = time.monotonic()
        ended = {ev.run_id for ev in batch if ev.parent_id is None and isinstance(ev.data, Done | Error)}
        return (self._claimed | fresh) - ended

    def _beat(self) -> None:
        assert self._writer is not None
        try:
            with self._writer.begin() as conn:
                owners.claim(conn, self._insert, self._owner, (), time.time())
            self._beat_at = time.monotonic()
        except Exception:  # a missed heartbeat is retried at the next; a run must never see it
            pass

    def close_interrupted_runs(self, keep: Collection[str] = ()) -> Result[list[str]]:
        """End every run left ``running`` by a process that is gone (see ``owners``) with an ``error``
        event coded ``interrupted`` saying which process, so it reads as interrupted, not running;
        runs in ``keep`` (one being resumed, which continues its own sequence) are left as they are.
        Idempotent, also when several processes do it at once (the event's id is the same for all).
        Cheap when there is nothing to close (one read, no write lock), so every CLI run does it.
        The ids of the runs closed."""
        from sqlalchemy import func, select
        from sqlalchemy.exc import SQLAlchemyError

        from findesk.core.storage import database_error

        if self._writer is None:
            return Err(ErrorCode.INVALID_INPUT, f"the audit log {self.location} was opened read-only")
        events_table = _schema().events
        closing: list[Event] = []
        try:
            with self._reader.connect() as conn:  # the common case: nothing to close, no lock taken
                if not set(self._gone(conn)) - set(keep):
                    return Ok([])
            with self._writer.begin() as conn:  # again under the lock: another process may have closed them
                for run_id, (last_heard, why) in self._gone(conn).items():
                    if run_id in keep:
                        continue
                    last = conn.execute(
                        select(func.max(events_table.c.seq)).where(events_table.c.run_id == run_id)
                    )
                    seq = (last.scalar() or 0) + 1
                    data = Error(code="interrupted", message=why)
                    # dated when the run was last heard of, not when it was found: its duration stays
                    # the time it ran, the same before and after closing
                    closing.append(
                        Event(id=f"{run_id}-{seq}", run_id=run_id, seq=seq, ts=last_heard, data=data)
                    )
                _store(conn, closing, self._insert)
        except SQLAlchemyError as exc:
            return database_error(exc, "close interrupted runs", self.location)
        return Ok([event.run_id for event in closing])

    def _gone(
        self, conn: Connection, among: Collection[str] | None = None
    ) -> dict[str, tuple[datetime, str]]:
        """Of the runs recorded as ``running`` (only those in ``among``, if given), those whose owner
        is gone: when each was last heard of, and why."""
        from sqlalchemy import select

        runs_table = _schema().runs
        query = select(runs_table.c.run_id, runs_table.c.updated_at).where(runs_table.c.status == "running")
        if among is not None:
            query = query.where(runs_table.c.run_id.in_(among))
        heard = {row.run_id: _utc(row.updated_at) for row in conn.execute(query)}
        if not heard:
            return {}
        if self._owners_kept is None:  # a writer created the tables; an older log read-only may lack them
            self._owners_kept = self._writer is not None or owners.kept(conn)
        running = [(run_id, ts.timestamp()) for run_id, ts in heard.items()]
        gone = owners.interrupted(conn, running, self._owner, time.time(), kept=self._owners_kept)
        return {run_id: (heard[run_id], why) for run_id, why in gone}

    def _settled(self, conn: Connection, rows: list[RowMapping]) -> list[RunSummary]:
        """``rows`` as summaries, a run left ``running`` by a process that is gone read as the
        ``interrupted`` error closing it will record (``close_interrupted_runs``): derived, nothing is
        written, so a read-only reader never shows a dead process's run as running."""
        summaries = [_summary(row) for row in rows]
        running = [s.run_id for s in summaries if s.status == "running"]
        gone = self._gone(conn, running) if running else {}
        return [
            s.model_copy(update={"status": "error", "error": f"interrupted: {gone[s.run_id][1]}"})
            if s.run_id in gone
            else s
            for s in summaries
        ]

    # -- reading -----------------------------------------------------------------------------

    def list_runs(
        self, limit: int = 20, *, workflow: str | None = None, among: Collection[str] | None = None
    ) -> list[RunSummary]:
        """The newest runs first; with ``workflow``, only that workflow's runs (a run's title starts with
        its workflow's name); with ``among``, only those runs (a caller's own)."""
        from sqlalchemy import or_, select

        runs_table = _schema().runs
        query = select(runs_table)
        if workflow is not None:
            title = runs_table.c.title
            query = query.where(or_(title == workflow, title.startswith(workflow + " ", autoescape=True)))
        if among is not None:
            query = query.where(runs_table.c.run_id.in_(list(among)))
        query = query.order_by(runs_table.c.started_at.desc(), runs_table.c.run_id.desc()).limit(limit)
        with self._reader.connect() as conn:
            return self._settled(conn, list(conn.execute(query).mappings()))

    def find_run(self, run_id_or_prefix: str, *, among: Collection[str] | None = None) -> Result[RunSummary]:
        """A run by its id or a unique prefix of it; with ``among``, only those runs exist (a caller's
        own: a prefix is never resolved against, nor a "several runs" answer lists, anyone else's)."""
        from sqlalchemy import select

        key = run_id_or_prefix.strip()
        if not key:
            return Err(ErrorCode.INVALID_INPUT, "give a run id or a unique prefix of one")
        runs_table = _schema().runs
        visible = select(runs_table)
        if among is not None:
            visible = visible.where(runs_table.c.run_id.in_(among))
        with self._reader.connect() as conn:
            rows = list(conn.execute(visible.where(runs_table.c.run_id == key)).mappings())
            if not rows:
                query = (
                    visible.where(runs_table.c.run_id.startswith(key, autoescape=True))
                    .order_by(runs_table.c.started_at.desc())
                    .limit(11)
                )
                rows = list(conn.execute(query).mappings())
            summaries = self._settled(conn, rows[:1]) if len(rows) == 1 else []
        if not rows:
            return Err(ErrorCode.NOT_FOUND, f"no run {key!r} in the audit log {self.location}")
        if len(rows) > 1:
            shown = ", ".join(str(r["run_id"]) for r in rows[:10]) + (", …" if len(rows) > 10 else "")
            return Err(
                ErrorCode.INVALID_INPUT, f"{key!r} matches several runs ({shown}): give more of the id"
            )
        return Ok(summaries[0])

    def events(self, run_id: str) -> list[Event]:
        """A run's events in sequence order."""
        from sqlalchemy import select

        events_table = _schema().events
        query = (
            select(events_table.c.payload)
            .where(events_table.c.run_id == run_id)
            .order_by(events_table.c.seq, events_table.c.event_id)
        )
        with self._reader.connect() as conn:
            return [Event.from_json(payload) for payload in conn.execute(query).scalars()]


def open_audit_log(settings: Settings) -> Result[AuditLog]:
    return AuditLog.open(settings.resolved_audit_url())


def audit_location(url: str) -> str:
    """Where an audit URL points, for people: the SQLite file, or the URL without its password."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        return url
    if parsed.get_backend_name() == "sqlite" and parsed.database:
        return str(Path(parsed.database).expanduser())
    return parsed.render_as_string(hide_password=True)


def _store(conn: Connection, batch: list[Event], insert: Callable[[Table], Any]) -> None:
    if not batch:
        return
    events_table = _schema().events
    # One statement for the batch (a round trip per event is what PostgreSQL makes slow); RETURNING
    # names the events that went in, since an INSERT's rowcount is not reliable across drivers
    # (psycopg 3 under SQLAlchemy 2.1 reports -1) and a recorded event must not count twice.
    add_events = (
        insert(events_table)
        .on_conflict_do_nothing(index_elements=[events_table.c.event_id])
        .returning(events_table.c.event_id)
    )
    rows = [
        {
            "event_id": ev.id,
            "run_id": ev.run_id,
            "seq": ev.seq,
            "parent_id": ev.parent_id,
            "ts": _utc(ev.ts),
            "type": ev.data.type,
            "agent": ev.agent,
            "payload": ev.to_json(),
        }
        for ev in batch
    ]
    inserted = set(conn.execute(add_events, rows).scalars())
    deltas: dict[str, _RunDelta] = {}
    for ev in batch:
        if ev.id in inserted:
            inserted.discard(ev.id)  # the same event twice in one batch went in once
            ts = _utc(ev.ts)
            deltas.setdefault(ev.run_id, _RunDelta(ev.run_id, ts, ts)).add(ev)
    # in run id order: two PostgreSQL writers updating the same runs lock their rows in one order, so
    # they queue instead of deadlocking
    for delta in sorted(deltas.values(), key=lambda d: d.run_id):
        conn.execute(_upsert_run(insert, delta))


def _upsert_run(insert: Callable[[Table], Any], delta: _RunDelta) -> Any:
    from sqlalchemy import case, func

    runs_table = _schema().runs
    stmt = insert(runs_table).values(**delta.row())
    new, old = stmt.excluded, runs_table.c
    changes: dict[str, Any] = {
        "started_at": case((new.started_at < old.started_at, new.started_at), else_=old.started_at),
        "updated_at": case((new.updated_at > old.updated_at, new.updated_at), else_=old.updated_at),
        "title": func.coalesce(old.title, new.title),
        "mode": func.coalesce(old.mode, new.mode),
        "cost_usd": old.cost_usd + new.cost_usd,
        "error": func.coalesce(new.error, old.error),
        **{name: old[name] + new[name] for name in _COUNTERS},
    }
    if delta.status is not None:
        changes["status"] = new.status
    return stmt.on_conflict_do_update(index_elements=[old.run_id], set_=changes)


def _summary(row: RowMapping) -> RunSummary:
    started, updated = _utc(row["started_at"]), _utc(row["updated_at"])
    data = dict(row) | {"started_at": started, "updated_at": updated}
    return RunSummary(**data, duration_ms=(updated - started).total_seconds() * 1000)


def _utc(ts: datetime) -> datetime:
    # SQLite hands back naive datetimes; everything stored is UTC.
    return ts.replace(tzinfo=UTC) if ts.tzinfo is None else ts.astimezone(UTC)


def _title(agent: str, inputs: dict[str, Any]) -> str:
    parts = [agent]
    for value in inputs.values():
        if value is None or value == "" or value == [] or value == {}:
            continue
        if isinstance(value, str):
            parts.append(value)
        elif isinstance(value, list | tuple) and all(isinstance(v, str | int | float) for v in value):
            parts.append(",".join(str(v) for v in value))
        else:
            parts.append(json.dumps(value, default=str, separators=(",", ":")))
    return " ".join(parts)[:200]
