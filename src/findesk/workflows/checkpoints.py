"""The checkpoint store of workflow runs: LangGraph's ``AsyncSqliteSaver`` on one SQLite file.

A checkpointed run saves its graph state after every superstep, so a run that was interrupted (a
killed process, Ctrl-C, a crash in a node) resumes from its last completed superstep: nodes that
finished are not run again (``graph.ainvoke(None, run_config(run_id))``).

Rules:
- One file: ``<state_dir>/checkpoints.sqlite3``, opened per run (``open_checkpointer``, ~ms) and
  closed with it. WAL journal (the saver sets it) and a busy timeout, so several processes (CLI runs,
  API workers) write the same file; each waits for the write lock instead of failing.
  ``synchronous=NORMAL``: a commit survives the process being killed (what resume is for), only an
  OS crash or power loss can lose the last superstep, which is then simply run again.
- One thread per run: LangGraph's ``thread_id`` is the run id (``run_config``); a run's subgraphs
  are namespaces of that thread, so ``delete_run`` removes them too.
- What can be stored: plain data (str, numbers, bool, None, lists, dicts), ``date``/``datetime``/
  ``Decimal``/``UUID``/sets (LangGraph's built-in safe types), and findesk's pydantic models, enums
  and dataclasses (``Ok``/``Err`` included). Pydantic models are stored as ``model_dump()`` and rebuilt
  by validation, so a model must validate from its own dump; tuples come back as lists (a model field
  typed ``tuple`` re-coerces them); a nested field holds the declared type (a subclass instance in a
  field typed as its base comes back as the base, as in JSON); parametrized generic models
  (``Page[Quote]``) and classes nested in functions come back as dicts. Never callables, sockets or
  open resources: state is data.
- Deserialization is allowlisted, not "import anything": LangGraph 4.x by default imports and calls
  any ``module.name`` a checkpoint names (it only warns), so whoever can write the file could run
  code. ``serializer`` allows exactly the findesk data classes loaded when the store is opened, plus
  ``allow`` (exact classes), plus LangGraph's safe types: open the store after the spec (and so its
  graph's state types) is imported, as the runner does. A checkpoint naming any other class fails
  loudly (``CheckpointTypeError``; ``Err(bad_response)`` from ``latest_checkpoint``) instead of
  LangGraph's default for a blocked class, which is to hand its raw fields to the node as a dict.
- Errors are data: ``open_checkpointer`` yields ``Err(unavailable)`` for a file that cannot be opened
  or is not a database (corrupt, truncated), with the path and what to do; ``latest_checkpoint``
  returns ``Err(bad_response)`` for a checkpoint it cannot decode and ``Err(unavailable)`` for a
  database error. A runner checks ``latest_checkpoint`` before resuming, so a bad checkpoint is
  reported before the graph touches it.
- A checkpoint write that fails (a full disk, a lock held past the busy timeout) stops checkpointing,
  not the run: ``CheckpointSaver.failed`` says why, and the caller warns that the run cannot be
  resumed. Checkpoints make a run resumable; losing them must not lose its report.
- Durability: run graphs with ``durability=DURABILITY`` ("sync"); see the constant for why.
- Cost: every checkpoint holds the whole state (the SQLite saver does not share unchanged channels
  between checkpoints), and each node's output is stored once more as its pending write. Serializing
  costs ~9 ms per MB of flat models and ~40 ms per MB of deeply nested reports (the briefing's
  300 KB state: ~12 ms), writing ~5 ms per MB. Keep bulk raw data (bars, filings) out of the state.
- Pruning: the runner deletes a finished run's checkpoints (``delete_run``) after its ``done`` event
  (the audit log keeps the record); ``prune`` deletes runs whose last checkpoint is older than
  ``keep_days`` (abandoned, never resumed). A live run's older checkpoints are kept until it ends:
  resuming may read the chain of parents (delta channels).
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import sqlite3
import sys
import uuid
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiosqlite
from langgraph.checkpoint.serde.event_hooks import SerdeEvent, register_serde_event_listener
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from pydantic import BaseModel

from findesk.core.config import Settings
from findesk.core.result import Err, ErrorCode, Ok, Result

if TYPE_CHECKING:  # langchain_core's runnables take ~0.2 s to import; only their types are used here
    from langchain_core.runnables import RunnableConfig
    from langgraph.checkpoint.base import ChannelVersions, Checkpoint, CheckpointMetadata, CheckpointTuple
    from langgraph.types import Durability

CHECKPOINT_FILE = "checkpoints.sqlite3"
BUSY_TIMEOUT_S = 30.0  # a writer waits this long for another process's write lock
KEEP_DAYS = 7
# Pass as ``graph.astream(..., durability=DURABILITY)``. "sync" saves each superstep before the next
# starts, so a SIGKILL loses at most the superstep in progress. LangGraph's default "async" saves while
# the next superstep runs: a kill right after a step can lose it (measured: even the input checkpoint),
# and it is no faster here (serializing is CPU on the event loop either way). "exit" saves only when
# the graph exits: fine for exceptions and Ctrl-C, but a SIGKILL loses the whole run.
DURABILITY: Durability = "sync"

# LangGraph's private channels: ``branch:to:<node>`` triggers a node after an edge, ``join:a+b:<node>``
# after all of a, b wrote; ``__pregel_tasks`` holds pending ``Send``s; ``__error__`` a task's error.
_BRANCH = "branch:to:"
_JOIN = "join:"
_START = "__start__"
_TASKS = "__pregel_tasks"
_PULL = "~__pregel_pull"  # task paths as the saver stores them
_PUSH = "~__pregel_push"
_ERROR = "__error__"
# writes that say what happened to a task rather than what it produced (``_task_status``)
_CONTROL = (_ERROR, "__error_source_node__", "__interrupt__", "__resume__")


class CheckpointTypeError(Exception):
    """A checkpoint names a class outside the allowlist (see the module rules)."""


@dataclasses.dataclass(frozen=True)
class CheckpointInfo:
    """A run's latest checkpoint, read without its graph."""

    run_id: str
    checkpoint_id: str
    step: int  # the superstep it was saved after (-1: only the input was saved)
    saved_at: datetime
    next: tuple[str, ...]  # nodes the run resumes with; () when the graph reached its end
    errors: tuple[str, ...]  # errors raised by tasks of the superstep that did not complete

    @property
    def finished(self) -> bool:
        return not self.next


class CheckpointSaver(AsyncSqliteSaver):
    """LangGraph's ``AsyncSqliteSaver`` that knows its file (for messages); pass it as ``checkpointer``.

    A write that fails (a full disk, a database locked past the busy timeout) stops checkpointing, not
    the run: checkpoints only make a run resumable, so losing them must not lose the run's report.
    ``failed`` says why; the caller reports that the run can no longer be resumed."""

    def __init__(self, conn: aiosqlite.Connection, path: Path, serde: JsonPlusSerializer) -> None:
        super().__init__(conn, serde=serde)
        self.path = path
        self.failed: str | None = None

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        if self.failed is None:
            try:
                return await super().aput(config, checkpoint, metadata, new_versions)
            except sqlite3.Error as exc:
                await self._stop(exc)
        # what the saver would have answered: the run goes on from this (unsaved) checkpoint
        configurable = config["configurable"]
        return {
            "configurable": {
                "thread_id": configurable["thread_id"],
                "checkpoint_ns": configurable["checkpoint_ns"],
                "checkpoint_id": checkpoint["id"],
            }
        }

    async def aput_writes(
        self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = ""
    ) -> None:
        if self.failed is None:
            try:
                await super().aput_writes(config, writes, task_id, task_path)
            except sqlite3.Error as exc:
                await self._stop(exc)

    async def _stop(self, exc: sqlite3.Error) -> None:
        self.failed = f"could not write {self.path.name}: {type(exc).__name__}: {exc}"
        with contextlib.suppress(sqlite3.Error, ValueError):  # a failed commit leaves a transaction open
            await self.conn.rollback()


def checkpoint_path(settings: Settings) -> Path:
    return settings.state_dir / CHECKPOINT_FILE


def run_config(run_id: str) -> RunnableConfig:
    """The LangGraph config that addresses a run's thread (one thread per run id)."""
    return {"configurable": {"thread_id": run_id}}


@asynccontextmanager
async def open_checkpointer(
    settings: Settings, *, allow: Iterable[type] = (), busy_timeout_s: float = BUSY_TIMEOUT_S
) -> AsyncIterator[Result[CheckpointSaver]]:
    """``async with open_checkpointer(settings) as opened:`` yields ``Ok(saver)`` on the store's file,
    its tables created, or ``Err(unavailable)`` when the file cannot be opened or is not a database.

    ``allow``: classes outside findesk that the state holds (findesk's own are allowed already)."""
    path = checkpoint_path(settings)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        yield Err(ErrorCode.UNAVAILABLE, f"cannot create the state directory {path.parent}: {exc}")
        return
    conn = aiosqlite.connect(path, timeout=busy_timeout_s)
    try:
        opened = await _open(conn, path, serializer(allow))
        yield opened
    finally:
        await conn.close()


async def _open(conn: aiosqlite.Connection, path: Path, serde: JsonPlusSerializer) -> Result[CheckpointSaver]:
    try:
        await conn
        saver = CheckpointSaver(conn, path, serde)
        # setup() (WAL, tables) runs lazily on first use; run it now so a corrupt file is reported
        # here, as data, and not from inside the graph. It is idempotent and cheap on a set-up file.
        await saver.setup()
        await conn.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.Error as exc:
        found = _database_error(exc, "open the checkpoint store", str(path))
        return Err(
            found.code, f"{found.reason}; move the file aside to start afresh (its runs cannot be resumed)"
        )
    return Ok(saver)


def serializer(allow: Iterable[type] = ()) -> JsonPlusSerializer:
    """LangGraph's msgpack serializer, strict: only findesk's data classes, ``allow`` and LangGraph's
    safe types are rebuilt; a checkpoint naming anything else raises ``CheckpointTypeError``."""
    _listen_once()
    return _StrictSerializer(allowed_msgpack_modules=[*findesk_data_classes(), *allow])


def findesk_data_classes() -> set[type]:
    """The pydantic models, enums and dataclasses defined in the findesk modules loaded now.

    Exact classes, never a module prefix: a prefix would let a checkpoint call any callable a findesk
    module holds (``findesk.x.run`` imported from ``subprocess``) with an argument of its choosing."""
    found: set[type] = set()
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "findesk" or name.startswith("findesk.")):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, type) and value.__module__ == name and _is_data_class(value):
                found.add(value)
    return found


async def latest_checkpoint(saver: CheckpointSaver, run_id: str) -> Result[CheckpointInfo | None]:
    """The run's latest checkpoint (``None`` when it has none), and which nodes it resumes with."""
    try:
        found = await saver.aget_tuple(run_config(run_id))
    except sqlite3.Error as exc:
        return _database_error(exc, f"read the checkpoint of run {run_id}", saver.path)
    except Exception as exc:  # a blob that does not decode: ormsgpack, our allowlist, a bad tuple
        return Err(
            ErrorCode.BAD_RESPONSE,
            f"the checkpoint of run {run_id} in {saver.path} cannot be read "
            f"({type(exc).__name__}: {exc}); the run cannot be resumed, start it again",
        )
    if found is None:
        return Ok(None)
    try:
        finished = await _finished_tasks(saver, found.config)
    except sqlite3.Error as exc:
        return _database_error(exc, f"read the checkpoint of run {run_id}", saver.path)
    return Ok(_info(run_id, found, finished))


async def delete_run(saver: CheckpointSaver, run_id: str) -> Result[int]:
    """Delete every checkpoint (all namespaces) and pending write of a run; how many checkpoints."""
    try:
        async with (
            saver.lock,
            saver.conn.execute("SELECT COUNT(*) FROM checkpoints WHERE thread_id = ?", (run_id,)) as cur,
        ):
            row = await cur.fetchone()
        await saver.adelete_thread(run_id)
    except sqlite3.Error as exc:
        return _database_error(exc, f"delete the checkpoints of run {run_id}", saver.path)
    return Ok(int(row[0]) if row else 0)


async def prune(
    saver: CheckpointSaver, *, keep_days: float = KEEP_DAYS, now: datetime | None = None
) -> Result[list[str]]:
    """Delete runs whose latest checkpoint is older than ``keep_days``; the run ids deleted.

    Reads no checkpoint blob: checkpoint ids are LangGraph's uuid6, time-ordered as text, so the
    runs to delete are those whose greatest id sorts below the id of the cut-off time."""
    cutoff = _uuid6_floor((now or datetime.now(UTC)) - timedelta(days=keep_days))
    try:
        async with (
            saver.lock,
            saver.conn.execute(
                "SELECT thread_id FROM checkpoints GROUP BY thread_id HAVING MAX(checkpoint_id) < ?",
                (cutoff,),
            ) as cur,
        ):
            stale = [str(row[0]) for row in await cur.fetchall()]
        for run_id in stale:
            await saver.adelete_thread(run_id)
    except sqlite3.Error as exc:
        return _database_error(exc, "prune old checkpoints", saver.path)
    return Ok(stale)


# --- internals ---------------------------------------------------------------------------------


def _is_data_class(cls: type) -> bool:
    return issubclass(cls, (BaseModel, Enum)) or dataclasses.is_dataclass(cls)


# The blocked-type events of the serializer call in progress; LangGraph reports a blocked class
# through a process-wide listener (and a log line), not through the call, so the call collects them.
_blocked: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("blocked", default=None)
_listening = False


def _listen_once() -> None:
    global _listening
    if not _listening:
        register_serde_event_listener(_on_serde_event)
        _listening = True


def _on_serde_event(event: SerdeEvent) -> None:
    found = _blocked.get()
    if found is not None and event["kind"] in ("msgpack_blocked", "msgpack_method_blocked"):
        method = f".{event['method']}" if "method" in event else ""
        found.append(f"{event['module']}.{event['name']}{method}")


class _StrictSerializer(JsonPlusSerializer):
    """Raises instead of returning a blocked class's raw fields (which a node would get as a dict)."""

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        found: list[str] = []
        token = _blocked.set(found)
        try:
            value = super().loads_typed(data)
        finally:
            _blocked.reset(token)
        if found:
            names = ", ".join(sorted(set(found)))
            hint = (
                "; a findesk class is allowed only if its module was imported before the store was opened"
                if any(name.startswith("findesk.") for name in found)
                else ""
            )
            raise CheckpointTypeError(
                f"the checkpoint holds {names}, not allowed: state may hold only plain data, findesk's "
                f"models, enums and dataclasses, or classes passed as open_checkpointer(allow=...){hint}"
            )
        return value


async def _finished_tasks(saver: CheckpointSaver, config: RunnableConfig) -> set[str]:
    """The task paths (``~__pregel_pull, <node>`` / ``~__pregel_push, <index>, …``) of the checkpoint's
    pending superstep that finished: a task finished iff it recorded an output (non-control) write,
    LangGraph's own rule (``langgraph.pregel._task_status``). Needs the saver's ``task_path`` column."""
    conf = config["configurable"]
    async with (
        saver.lock,
        saver.conn.execute(
            "SELECT DISTINCT task_path FROM writes WHERE thread_id = ? AND checkpoint_ns = ? "
            f"AND checkpoint_id = ? AND channel NOT IN ({', '.join('?' * len(_CONTROL))})",
            (conf["thread_id"], conf.get("checkpoint_ns", ""), conf["checkpoint_id"], *_CONTROL),
        ) as cur,
    ):
        return {str(row[0]) for row in await cur.fetchall()}


def _info(run_id: str, found: CheckpointTuple, finished: set[str]) -> CheckpointInfo:
    checkpoint = found.checkpoint
    versions = checkpoint["channel_versions"]
    seen = checkpoint["versions_seen"]
    values = checkpoint["channel_values"]
    nodes: set[str] = set()
    # A node runs next when one of its trigger channels holds a value (is not yet consumed) and is
    # newer than the version the node has seen: LangGraph's scheduling rule (``_algo._triggers``),
    # applied to its channel names so the graph's code is not needed. A join barrier holds the set of
    # sources that wrote and triggers only once all of them have.
    for channel, version in versions.items():
        if channel not in values:
            continue
        if channel == _START:
            node = _START
        elif channel.startswith(_BRANCH):
            node = channel[len(_BRANCH) :]
        elif channel.startswith(_JOIN):
            sources, _, node = channel[len(_JOIN) :].rpartition(":")
            if set(sources.split("+")) - set(values[channel] or ()):
                continue
        else:
            continue
        if f"{_PULL}, {node}" not in finished and str(version) > str(seen.get(node, {}).get(channel, "")):
            nodes.add(node)
    # ``Send``s wait in the tasks channel; the i-th runs as the push task with index i
    done_pushes = {int(path.split(", ")[1]) for path in finished if path.startswith(f"{_PUSH}, ")}
    for index, send in enumerate(values.get(_TASKS) or ()):
        if index not in done_pushes:
            nodes.add(str(getattr(send, "node", send)))
    errors = tuple(str(value) for _, channel, value in found.pending_writes or () if channel == _ERROR)
    return CheckpointInfo(
        run_id=run_id,
        checkpoint_id=checkpoint["id"],
        step=int(found.metadata.get("step", -1)),
        saved_at=datetime.fromisoformat(checkpoint["ts"]),
        next=tuple(sorted(nodes)),
        errors=errors,
    )


def _uuid6_floor(moment: datetime) -> str:
    """The smallest uuid6 text at ``moment``: LangGraph's ids sort as text in time order."""
    ticks = int(moment.timestamp() * 10_000_000) + 0x01B21DD213814000  # 100 ns since 1582-10-15
    value = ((ticks >> 12) & 0xFFFFFFFFFFFF) << 80 | 0x6 << 76 | (ticks & 0x0FFF) << 64
    return str(uuid.UUID(int=value))


def _database_error(exc: sqlite3.Error, doing: str, location: Path | str) -> Err:
    # the same code and wording as ``core.storage.database_error``; not imported from there because
    # that module loads SQLAlchemy (~0.3 s), which a briefing that only checkpoints does not need
    return Err(ErrorCode.UNAVAILABLE, f"cannot {doing} in {location}: {exc}")
