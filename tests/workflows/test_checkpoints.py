"""The checkpoint store: a run interrupted after its first node resumes without re-running it, in the
same process (an exception) and across processes (SIGKILL); the state comes back exactly, findesk
models included; only allowed classes are rebuilt; runs are deleted and pruned; a corrupt file is an
``Err``, never a traceback.

Rules: no network, every file under ``tmp_path``. The toy graph is ``fetch`` → ``compose``: ``fetch``
puts findesk models (a ``Quote`` with nested models, dates and a datetime; an ``Err`` with its
``ErrorCode``) and a model of this module into the state, ``compose`` derives a summary from them.
Node calls are counted in a file, so a count survives a killed process. Run as a script
(``python test_checkpoints.py child <state_dir> <run_id> <counts> <runs>``) this module is the other
process: the one killed inside ``compose``, or one of several writing the same store.
"""

from __future__ import annotations

import asyncio
import operator
import os
import signal
import sqlite3
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, date, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict

import ormsgpack
import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send
from pydantic import BaseModel, ConfigDict

from findesk.core.config import Settings
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.models.base import Source
from findesk.data.models.market import PriceRange, Quote
from findesk.workflows.checkpoints import (
    DURABILITY,
    CheckpointSaver,
    CheckpointTypeError,
    checkpoint_path,
    delete_run,
    findesk_data_classes,
    latest_checkpoint,
    open_checkpointer,
    prune,
    run_config,
    serializer,
)

DIE = "FINDESK_TEST_DIE_IN_COMPOSE"  # set in the child: compose kills its own process
AS_OF = date(2025, 8, 29)


class Tone(StrEnum):
    CALM = "calm"
    LOUD = "loud"


class Note(BaseModel):
    """A model of this test module: not a findesk class, so it must be passed as ``allow``."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    day: date
    tone: Tone
    kind: Literal["risk", "event"]
    text: str | None = None


class Summary(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    symbol: str
    price: float
    low_date: date
    notes: list[Note]
    missing: ErrorCode | None = None


class ToyState(TypedDict, total=False):
    symbol: str
    as_of: date
    quote: Quote
    missing: Err
    notes: list[Note]
    extras: dict[str, Any]
    summary: Summary
    log: Annotated[list[str], operator.add]


def quote(symbol: str) -> Quote:
    source = Source(
        vendor="snapshot", ref="prices/market/x.parquet", retrieved_at=datetime(2025, 8, 29, 21, tzinfo=UTC)
    )
    low = PriceRange(
        window_start=date(2024, 8, 30),
        start=date(2024, 9, 3),
        end=AS_OF,
        low=169.21,
        low_date=date(2025, 4, 8),
        high=259.02,
        high_date=date(2024, 12, 26),
        sessions=250,
        basis="as_traded",
        complete=False,
        source=source,
        notes=["starts after the window"],
    )
    return Quote(symbol=symbol, session_date=AS_OF, price=232.14, volume=None, range_52w=low, source=source)


def notes() -> list[Note]:
    return [
        Note(day=date(2025, 8, 1), tone=Tone.CALM, kind="risk", text="supply chain"),
        Note(day=date(2025, 8, 2), tone=Tone.LOUD, kind="event"),
    ]


def build(counts: Path, *, fail_once: set[str] | None = None) -> StateGraph[ToyState]:
    """``fetch`` → ``compose``; ``fail_once`` names nodes that raise on their first call."""
    failing = set(fail_once or ())

    def count(node: str) -> None:
        with counts.open("a") as f:
            f.write(node + "\n")

    async def fetch(state: ToyState) -> ToyState:
        count("fetch")
        extras = {"as_of": state["as_of"], "none": None, "nested": {"days": [date(2025, 1, 2)], "n": 3}}
        return {
            "quote": quote(state["symbol"]),
            "missing": Err(ErrorCode.NO_DATA, "no transcript as of 2025-08-29", "snapshot"),
            "notes": notes(),
            "extras": extras,
            "log": ["fetch"],
        }

    async def compose(state: ToyState) -> ToyState:
        count("compose")
        if os.environ.get(DIE):
            os.kill(os.getpid(), signal.SIGKILL)
        if "compose" in failing:
            failing.discard("compose")
            raise RuntimeError("compose failed (planted)")
        # attribute access proves the restored values are models, not the dicts LangGraph falls back to
        q = state["quote"]
        assert q.range_52w is not None
        summary = Summary(
            symbol=q.symbol,
            price=q.price,
            low_date=q.range_52w.low_date,
            notes=[n for n in state["notes"] if n.tone is Tone.CALM],
            missing=state["missing"].code,
        )
        return {"summary": summary, "log": ["compose"]}

    graph = StateGraph(ToyState)
    graph.add_node("fetch", fetch)
    graph.add_node("compose", compose)
    graph.add_edge(START, "fetch")
    graph.add_edge("fetch", "compose")
    graph.add_edge("compose", END)
    return graph


def calls(counts: Path) -> list[str]:
    return counts.read_text().split() if counts.exists() else []


def first_input() -> ToyState:
    return {"symbol": "AAPL", "as_of": AS_OF, "log": []}


@asynccontextmanager
async def saver_on(
    settings: Settings, allow: tuple[type, ...] = (Note, Summary, Tone)
) -> AsyncIterator[CheckpointSaver]:
    async with open_checkpointer(settings, allow=allow) as opened:
        assert isinstance(opened, Ok), opened
        yield opened.value


async def reference_state(tmp_path: Path) -> dict[str, Any]:
    """The final state of an uninterrupted run (its own store and counters)."""
    settings = Settings(state_dir=tmp_path / "reference")
    async with saver_on(settings) as saver:
        graph = build(tmp_path / "reference-calls.log").compile(checkpointer=saver)
        done: dict[str, Any] = await graph.ainvoke(
            first_input(), run_config("reference"), durability=DURABILITY
        )
    assert calls(tmp_path / "reference-calls.log") == ["fetch", "compose"]
    return done


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(state_dir=tmp_path / "state")


# --- resume ---------------------------------------------------------------------------------------


async def test_resume_after_a_failed_node_does_not_rerun_the_finished_one(
    settings: Settings, tmp_path: Path
) -> None:
    counts = tmp_path / "calls.log"
    async with saver_on(settings) as saver:
        graph = build(counts, fail_once={"compose"}).compile(checkpointer=saver)
        with pytest.raises(RuntimeError, match="planted"):
            await graph.ainvoke(first_input(), run_config("r1"), durability=DURABILITY)

        info = (await latest_checkpoint(saver, "r1")).unwrap()
        assert info is not None
        assert (info.step, info.next, info.finished) == (1, ("compose",), False)
        assert info.errors == ("RuntimeError('compose failed (planted)')",)
        assert info.next == (await graph.aget_state(run_config("r1"))).next

        resumed = await graph.ainvoke(None, run_config("r1"), durability=DURABILITY)
        assert calls(counts) == ["fetch", "compose", "compose"]  # fetch ran once
        after = (await latest_checkpoint(saver, "r1")).unwrap()
        assert after is not None and after.finished

    assert resumed == await reference_state(tmp_path)
    assert isinstance(resumed["quote"], Quote) and isinstance(resumed["quote"].range_52w, PriceRange)
    assert isinstance(resumed["missing"], Err) and resumed["missing"].code is ErrorCode.NO_DATA
    assert resumed["summary"].missing is ErrorCode.NO_DATA
    assert resumed["log"] == ["fetch", "compose"]


async def test_resume_after_the_process_was_killed(settings: Settings, tmp_path: Path) -> None:
    counts = tmp_path / "calls.log"
    child = await start_child(settings, "killed", counts, env={**os.environ, DIE: "1"})
    _, err = await asyncio.wait_for(child.communicate(), 120)
    assert child.returncode == -signal.SIGKILL, err.decode()
    assert calls(counts) == ["fetch", "compose"]  # compose started, then the process died

    async with saver_on(settings) as saver:
        info = (await latest_checkpoint(saver, "killed")).unwrap()
        assert info is not None and info.next == ("compose",) and info.errors == ()
        graph = build(counts).compile(checkpointer=saver)
        resumed = await graph.ainvoke(None, run_config("killed"), durability=DURABILITY)

    assert calls(counts) == ["fetch", "compose", "compose"]
    assert resumed == await reference_state(tmp_path)


async def test_several_processes_write_the_same_file(settings: Settings, tmp_path: Path) -> None:
    # WAL and the busy timeout: concurrent writers wait for the lock instead of "database is locked"
    runs = 30
    children = [await start_child(settings, f"p{i}", tmp_path / f"c{i}.log", runs=runs) for i in range(2)]
    async with saver_on(settings) as saver:
        graph = build(tmp_path / "parent.log").compile(checkpointer=saver)
        for _ in range(1500):  # write while the children write (they take ~1 s to start)
            if (tmp_path / "c0.log").exists() or children[0].returncode is not None:
                break
            await asyncio.sleep(0.02)
        for n in range(runs):
            await graph.ainvoke(first_input(), run_config(f"parent-{n}"), durability=DURABILITY)
        for child in children:
            _, err = await asyncio.wait_for(child.communicate(), 120)
            assert child.returncode == 0, err.decode()
        for run_id in [f"p{i}-{n}" for i in range(2) for n in range(runs)] + [
            f"parent-{n}" for n in range(runs)
        ]:
            info = (await latest_checkpoint(saver, run_id)).unwrap()
            assert info is not None and info.finished, run_id
        mode = await (await saver.conn.execute("PRAGMA journal_mode")).fetchone()
        assert mode == ("wal",)


async def start_child(
    settings: Settings, run_id: str, counts: Path, *, runs: int = 1, env: dict[str, str] | None = None
) -> asyncio.subprocess.Process:
    """This file as a script: ``runs`` runs of the toy graph on the same store, in another process."""
    args = ["child", str(settings.state_dir), run_id, str(counts), str(runs)]
    return await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        *args,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )


# --- what the state may hold ------------------------------------------------------------------------


def test_the_serializer_round_trips_a_state_exactly() -> None:
    state = {
        "quote": quote("NVDA"),
        "quotes": [quote("A"), quote("B")],
        "by_symbol": {"AAPL": quote("AAPL")},
        "result": Ok(quote("MSFT")),
        "missing": Err(ErrorCode.RATE_LIMITED, "slow down", "yahoo", {"retry_after": 3}),
        "code": ErrorCode.TIMEOUT,
        "notes": notes(),
        "plain": {
            "day": AS_OF,
            "at": datetime(2025, 8, 29, 13, 30, tzinfo=UTC),
            "none": None,
            "n": [1, 2.5, "x"],
        },
        "none": None,
    }
    serde = serializer([Note, Tone])
    back = serde.loads_typed(serde.dumps_typed(state))
    assert back == state
    assert type(back["code"]) is ErrorCode  # a StrEnum equals its str value: check the type itself
    assert type(back["notes"][0].tone) is Tone
    assert type(back["plain"]["day"]) is date


def test_known_losses_are_as_documented() -> None:
    # tuples come back as lists (a model field typed tuple re-coerces them)
    serde = serializer()
    assert serde.loads_typed(serde.dumps_typed({"pair": (1, 2)})) == {"pair": [1, 2]}


def test_a_class_outside_the_allowlist_fails_loudly(settings: Settings) -> None:
    serde = serializer()  # Note not allowed: LangGraph's default would hand compose a dict
    blob = serde.dumps_typed({"notes": notes()})
    with pytest.raises(CheckpointTypeError, match=r"test_checkpoints\.Note"):
        serde.loads_typed(blob)


def test_findesk_functions_are_not_callable_from_a_checkpoint(tmp_path: Path) -> None:
    # exact classes, not a findesk.* prefix: a checkpoint naming a findesk function is refused
    assert all(isinstance(cls, type) for cls in findesk_data_classes())
    assert {Quote, PriceRange, Source, Err, Ok, ErrorCode} <= findesk_data_classes()
    planted = ormsgpack.packb(
        ormsgpack.Ext(0, ormsgpack.packb(("findesk.workflows.checkpoints", "checkpoint_path", {})))
    )
    with pytest.raises(CheckpointTypeError, match="checkpoint_path"):
        serializer().loads_typed(("msgpack", planted))


async def test_a_planted_checkpoint_runs_no_code(settings: Settings, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    async with saver_on(settings) as saver:
        await (
            build(tmp_path / "calls.log").compile(checkpointer=saver).ainvoke(first_input(), run_config("r"))
        )
    evil = ormsgpack.packb(("os", "system", f"touch {marker}"))
    checkpoint = {
        "v": 1,
        "id": "x",
        "ts": "2025-08-29T00:00:00+00:00",
        "channel_values": {"symbol": ormsgpack.Ext(0, evil)},
        "channel_versions": {},
        "versions_seen": {},
        "updated_channels": None,
    }
    with sqlite3.connect(checkpoint_path(settings)) as db:
        db.execute("UPDATE checkpoints SET checkpoint = ?", (ormsgpack.packb(checkpoint),))
    async with saver_on(settings) as saver:
        got = await latest_checkpoint(saver, "r")
    assert isinstance(got, Err) and got.code is ErrorCode.BAD_RESPONSE
    assert "os.system" in got.reason and "cannot be resumed" in got.reason
    assert not marker.exists()


# --- next nodes, without the graph ----------------------------------------------------------------


class Steps(TypedDict, total=False):
    log: Annotated[list[str], operator.add]


def shape(kind: str, fail: str) -> StateGraph[Steps]:
    """Small graphs of each edge kind; ``fail`` raises on its first call."""
    failing = {fail}

    def node(name: str) -> Any:
        async def run(state: Steps) -> Steps:
            if name in failing:
                failing.discard(name)
                raise RuntimeError(f"{name} failed (planted)")
            return {"log": [name]}

        return run

    graph = StateGraph(Steps)
    if kind == "join":  # a ‖ b, then c once both wrote
        for name in "abc":
            graph.add_node(name, node(name))
        graph.add_edge(START, "a")
        graph.add_edge(START, "b")
        graph.add_edge(["a", "b"], "c")
        graph.add_edge("c", END)
    elif kind == "send":  # three Sends to w, then z
        graph.add_node("w", node("w"))
        graph.add_node("z", node("z"))
        graph.add_conditional_edges(START, lambda s: [Send("w", {"log": []}) for _ in range(3)])
        graph.add_edge("w", "z")
        graph.add_edge("z", END)
    else:  # a conditional edge
        for name in "pqr":
            graph.add_node(name, node(name))
        graph.add_edge(START, "p")
        graph.add_conditional_edges("p", lambda s: "q")
        graph.add_edge("q", "r")
        graph.add_edge("r", END)
    return graph


@pytest.mark.parametrize(
    ("kind", "fail", "expected"),
    [
        ("join", "a", ("a",)),
        ("join", "c", ("c",)),
        ("send", "w", ("w",)),
        ("send", "z", ("z",)),
        ("cond", "q", ("q",)),
        ("cond", "r", ("r",)),
    ],
)
async def test_next_nodes_match_langgraphs_own(
    settings: Settings, kind: str, fail: str, expected: tuple[str, ...]
) -> None:
    async with saver_on(settings) as saver:
        graph = shape(kind, fail).compile(checkpointer=saver)
        with pytest.raises(RuntimeError, match="planted"):
            await graph.ainvoke({"log": []}, run_config("r"), durability=DURABILITY)
        info = (await latest_checkpoint(saver, "r")).unwrap()
        assert info is not None
        assert info.next == expected == (await graph.aget_state(run_config("r"))).next
        await graph.ainvoke(None, run_config("r"), durability=DURABILITY)
        done = (await latest_checkpoint(saver, "r")).unwrap()
        assert done is not None and done.finished and (await graph.aget_state(run_config("r"))).next == ()


async def test_a_run_without_checkpoints_is_none(settings: Settings) -> None:
    async with saver_on(settings) as saver:
        assert await latest_checkpoint(saver, "never-ran") == Ok(None)


# --- deleting and pruning -------------------------------------------------------------------------


async def test_delete_run_removes_its_checkpoints_and_writes_only(settings: Settings, tmp_path: Path) -> None:
    async with saver_on(settings) as saver:
        graph = build(tmp_path / "calls.log", fail_once={"compose"}).compile(checkpointer=saver)
        with pytest.raises(RuntimeError):
            await graph.ainvoke(first_input(), run_config("gone"), durability=DURABILITY)
        await graph.ainvoke(first_input(), run_config("kept"), durability=DURABILITY)

        deleted = await delete_run(saver, "gone")
        # the input, after __start__, after fetch (compose failed: no checkpoint of its own)
        assert isinstance(deleted, Ok) and deleted.value == 3
        assert await latest_checkpoint(saver, "gone") == Ok(None)
        for table in ("checkpoints", "writes"):
            rows = await (
                await saver.conn.execute(f"SELECT COUNT(*) FROM {table} WHERE thread_id = 'gone'")
            ).fetchone()
            assert rows == (0,), table
        kept = (await latest_checkpoint(saver, "kept")).unwrap()
        assert kept is not None and kept.finished
        assert await delete_run(saver, "gone") == Ok(0)


async def test_prune_deletes_runs_older_than_keep_days(settings: Settings, tmp_path: Path) -> None:
    async with saver_on(settings) as saver:
        graph = build(tmp_path / "calls.log").compile(checkpointer=saver)
        await graph.ainvoke(first_input(), run_config("old"))
        await asyncio.sleep(0.05)
        between = datetime.now(UTC)
        await asyncio.sleep(0.05)
        await graph.ainvoke(first_input(), run_config("new"))

        # seven days after ``between``: "old" ended before the cut-off, "new" after it
        assert await prune(saver, keep_days=7, now=between + timedelta(days=7)) == Ok(["old"])
        assert await latest_checkpoint(saver, "old") == Ok(None)
        assert (await latest_checkpoint(saver, "new")).unwrap() is not None
        assert await prune(saver, keep_days=7) == Ok([])  # nothing is a week old


# --- unreadable files -----------------------------------------------------------------------------


async def test_a_file_that_is_not_a_database_is_an_err(settings: Settings) -> None:
    path = checkpoint_path(settings)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not sqlite " * 500)
    async with open_checkpointer(settings) as opened:
        assert isinstance(opened, Err) and opened.code is ErrorCode.UNAVAILABLE
        assert str(path) in opened.reason and "not a database" in opened.reason
        assert "move the file aside" in opened.reason


async def test_a_truncated_database_is_an_err(settings: Settings, tmp_path: Path) -> None:
    async with saver_on(settings) as saver:
        await (
            build(tmp_path / "calls.log").compile(checkpointer=saver).ainvoke(first_input(), run_config("r"))
        )
    path = checkpoint_path(settings)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    async with open_checkpointer(settings) as opened:
        assert isinstance(opened, Err) and opened.code is ErrorCode.UNAVAILABLE, opened
        assert "malformed" in opened.reason


async def test_a_corrupt_checkpoint_is_an_err_not_a_traceback(settings: Settings, tmp_path: Path) -> None:
    async with saver_on(settings) as saver:
        await (
            build(tmp_path / "calls.log").compile(checkpointer=saver).ainvoke(first_input(), run_config("r"))
        )
    with sqlite3.connect(checkpoint_path(settings)) as db:
        db.execute("UPDATE checkpoints SET checkpoint = x'c1c1c1c1'")
    async with saver_on(settings) as saver:
        got = await latest_checkpoint(saver, "r")
    assert isinstance(got, Err) and got.code is ErrorCode.BAD_RESPONSE
    assert "run r" in got.reason and str(checkpoint_path(settings)) in got.reason


async def test_an_unopenable_path_is_an_err(settings: Settings) -> None:
    checkpoint_path(settings).mkdir(parents=True)  # a directory where the file should be
    async with open_checkpointer(settings) as opened:
        assert isinstance(opened, Err) and opened.code is ErrorCode.UNAVAILABLE
        assert "unable to open" in opened.reason


# --- the killed process ---------------------------------------------------------------------------


async def _child(state_dir: str, run_id: str, counts: str, runs: int) -> None:
    async with saver_on(Settings(state_dir=Path(state_dir))) as saver:
        graph = build(Path(counts)).compile(checkpointer=saver)
        for n in range(runs):
            name = run_id if runs == 1 else f"{run_id}-{n}"
            await graph.ainvoke(first_input(), run_config(name), durability=DURABILITY)


if __name__ == "__main__" and sys.argv[1:2] == ["child"]:
    # Import this file under its own name, as pytest does, so the child's checkpoints name
    # ``test_checkpoints.Note`` (not ``__main__.Note``) and the parent can rebuild them.
    sys.path.insert(0, str(Path(__file__).parent))
    import test_checkpoints as kit

    asyncio.run(kit._child(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])))
