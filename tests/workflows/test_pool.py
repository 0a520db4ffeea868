"""Workflow runs in worker processes: the events come back in order, any registered workflow or agent
runs there (resolved by name in the worker), and a worker that dies ends its run with an error event
instead of leaving the caller waiting; the next run gets a new generation of workers."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from findesk.core.config import Settings
from findesk.core.events.model import Event
from findesk.core.events.trace import MemorySink
from findesk.core.result import Err
from findesk.data.context import resolve_context
from findesk.workflows.pool import WorkflowJob, WorkflowPool
from findesk.workflows.runner import RunStart


@pytest.fixture
def pool(snapshot_dir: Path, tmp_path: Path) -> Iterator[WorkflowPool]:
    settings = Settings(
        snapshot_dir=snapshot_dir, cache_dir=tmp_path / "cache", state_dir=tmp_path, chains={}
    )
    made = WorkflowPool(settings, 1)
    made.warm_up()
    yield made
    made.close()


def _job(snapshot_dir: Path, run_id: str, workflow: str = "brief", **inputs: Any) -> WorkflowJob:
    settings = Settings(snapshot_dir=snapshot_dir, chains={})
    context = resolve_context(settings, mode="snapshot", as_of="2025-08-29")
    assert not isinstance(context, Err), context
    given = inputs or {"ticker": "AAPL"}
    return WorkflowJob(
        workflow, given, RunStart(run_id, f"{run_id}-1", 2), context.value, "deterministic", None
    )


class _Sink(MemorySink):
    """Keeps the events and signals the first one: the worker has started the run."""

    def __init__(self) -> None:
        super().__init__()
        self.started = threading.Event()

    def write(self, event: Event) -> None:
        super().write(event)
        self.started.set()


def _submit(pool: WorkflowPool, job: WorkflowJob) -> tuple[_Sink, threading.Event]:
    sink, ended = _Sink(), threading.Event()
    pool.submit(job, [sink], ended.set)
    return sink, ended


def test_a_run_in_a_worker_continues_the_callers_sequence(pool: WorkflowPool, snapshot_dir: Path) -> None:
    sink, ended = _submit(pool, _job(snapshot_dir, "poolrun0001"))
    assert ended.wait(120)
    events: list[Event] = sink.events
    assert [e.seq for e in events] == list(range(2, len(events) + 2))
    assert events[-1].data.type == "done" and events[-1].parent_id is None
    assert all(e.run_id == "poolrun0001" for e in events)
    # the sub-agents nest under the opening event the caller emitted
    assert {e.parent_id for e in events if e.data.type == "agent_start"} == {"poolrun0001-1"}


def test_an_agent_runs_in_a_worker_by_its_registry_name(pool: WorkflowPool, snapshot_dir: Path) -> None:
    sink, ended = _submit(pool, _job(snapshot_dir, "poolrun0004", "agents.quote_filings", symbol="msft"))
    assert ended.wait(120)
    events: list[Event] = sink.events
    assert [e.seq for e in events] == list(range(2, len(events) + 2))
    done = events[-1].data
    assert done.type == "done", events[-1]
    report: dict[str, Any] = done.result  # type: ignore[union-attr,assignment]
    assert report["role"] == "quote_filings" and report["output"]["symbol"] == "MSFT"
    assert report["output"]["price"] is not None and report["tool_calls"] >= 2
    assert [e.data.type for e in events].count("tool_call") >= 2


def test_an_unknown_workflow_ends_its_run_with_a_not_found_error(
    pool: WorkflowPool, snapshot_dir: Path
) -> None:
    sink, ended = _submit(pool, _job(snapshot_dir, "poolrun0005", "no_such_workflow"))
    assert ended.wait(60)
    assert len(sink.events) == 1 and sink.events[0].seq == 2
    error = sink.events[0].data
    assert error.type == "error" and error.code == "not_found"  # type: ignore[union-attr]
    assert "no_such_workflow" in error.message  # type: ignore[union-attr]


def test_a_worker_that_dies_ends_its_run_with_an_error_event(pool: WorkflowPool, snapshot_dir: Path) -> None:
    sink, ended = _submit(pool, _job(snapshot_dir, "poolrun0002"))
    assert sink.started.wait(60), "the worker never started the run"
    for pid in list(pool._current.executor._processes):  # type: ignore[attr-defined]
        os.kill(pid, signal.SIGKILL)
    assert ended.wait(60), "the run never ended"
    last = sink.events[-1]
    assert last.data.type == "error" and last.data.code == "unavailable"  # type: ignore[union-attr]
    assert "worker failed" in last.data.message  # type: ignore[union-attr]
    assert last.seq == sink.events[-2].seq + 1  # continues the sequence
    # the next run gets a new generation of workers and finishes
    sink, ended = _submit(pool, _job(snapshot_dir, "poolrun0003"))
    assert ended.wait(120) and sink.events[-1].data.type == "done"
    assert pool.restarts == 1


def test_a_run_cancelled_before_a_worker_starts_it_ends_interrupted(
    pool: WorkflowPool, snapshot_dir: Path
) -> None:
    # The executor hands a worker's next calls over ahead of time (one worker: the running call and one
    # more), so with three runs ahead of it the fourth still waits in the pool and can be cancelled.
    ahead = [
        _submit(pool, _job(snapshot_dir, f"poolrun001{i}", "agents.quote_filings", symbol="AAPL"))
        for i in range(3)
    ]
    sink, ended = _Sink(), threading.Event()
    future = pool.submit(_job(snapshot_dir, "poolrun0019"), [sink], ended.set)
    assert future.cancel()
    assert ended.wait(10)
    assert [e.data.type for e in sink.events] == ["error"]
    assert sink.events[0].data.code == "interrupted" and sink.events[0].seq == 2  # type: ignore[union-attr]
    for busy, busy_ended in ahead:
        assert busy_ended.wait(120) and busy.events[-1].data.type == "done"
