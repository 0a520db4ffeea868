"""Briefings in worker processes: the events come back in order, and a worker that dies ends its run
with an error event instead of leaving the caller waiting."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from findesk.core.config import Settings
from findesk.core.events.model import Event
from findesk.core.events.trace import MemorySink
from findesk.core.result import Err
from findesk.data.context import resolve_context
from findesk.workflows.brief.pool import BriefingPool, BriefJob
from findesk.workflows.brief.run import RunStart


@pytest.fixture
def pool(snapshot_dir: Path, tmp_path: Path) -> BriefingPool:
    settings = Settings(
        snapshot_dir=snapshot_dir, cache_dir=tmp_path / "cache", state_dir=tmp_path, chains={}
    )
    made = BriefingPool(settings, 1)
    made.warm_up()
    yield made  # type: ignore[misc]
    made.close()


def _job(snapshot_dir: Path, run_id: str) -> BriefJob:
    settings = Settings(snapshot_dir=snapshot_dir, chains={})
    context = resolve_context(settings, mode="snapshot", as_of="2025-08-29")
    assert not isinstance(context, Err), context
    return BriefJob(RunStart(run_id, f"{run_id}-1", 2), "AAPL", context.value, None, "deterministic", None)


def _submit(pool: BriefingPool, job: BriefJob) -> tuple[MemorySink, threading.Event]:
    sink, ended = MemorySink(), threading.Event()
    pool.submit(job, [sink], ended.set)
    return sink, ended


def test_a_run_in_a_worker_continues_the_callers_sequence(pool: BriefingPool, snapshot_dir: Path) -> None:
    sink, ended = _submit(pool, _job(snapshot_dir, "poolrun0001"))
    assert ended.wait(120)
    events: list[Event] = sink.events
    assert [e.seq for e in events] == list(range(2, len(events) + 2))
    assert events[-1].data.type == "done" and events[-1].parent_id is None
    assert all(e.run_id == "poolrun0001" for e in events)
    # the sub-agents nest under the opening event the caller emitted
    assert {e.parent_id for e in events if e.data.type == "agent_start"} == {"poolrun0001-1"}


def test_a_worker_that_dies_ends_its_run_with_an_error_event(pool: BriefingPool, snapshot_dir: Path) -> None:
    sink, ended = _submit(pool, _job(snapshot_dir, "poolrun0002"))
    deadline = time.monotonic() + 60
    while not sink.events and time.monotonic() < deadline:  # the worker has started the run
        time.sleep(0.01)
    for pid in list(pool._current.executor._processes):  # type: ignore[attr-defined]
        os.kill(pid, signal.SIGKILL)
    assert ended.wait(60), "the run never ended"
    last = sink.events[-1]
    assert last.data.type == "error" and last.data.code == "unavailable"  # type: ignore[union-attr]
    assert "worker failed" in last.data.message  # type: ignore[union-attr]
    assert last.seq == sink.events[-2].seq + 1  # continues the sequence
    # the next run gets a new pool and finishes
    sink, ended = _submit(pool, _job(snapshot_dir, "poolrun0003"))
    assert ended.wait(120) and sink.events[-1].data.type == "done"
    assert pool.restarts == 1
