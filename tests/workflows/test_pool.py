"""Workflow runs in worker processes: the events come back in order, any registered workflow or agent
runs there (resolved by name in the worker), and a worker that dies (kill -9) costs only its own run:
that run ends with one error event, the run on the other worker goes on untouched, and a queued run
goes to the worker started in the dead one's place."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
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
from findesk.workflows.registry import PLUGINS_ENV
from findesk.workflows.runner import RunStart
from plugin_workflows import GATE_ENV, target


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


@pytest.fixture
def gated_pool(
    snapshot_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[WorkflowPool, Path]]:
    """Two workers that know the gated workflow (a run that waits for its gate file)."""
    gates = tmp_path / "gates"
    gates.mkdir()
    monkeypatch.setenv(PLUGINS_ENV, target("GATED"))  # inherited by the spawned workers
    monkeypatch.setenv(GATE_ENV, str(gates))
    settings = Settings(
        snapshot_dir=snapshot_dir, cache_dir=tmp_path / "cache", state_dir=tmp_path, chains={}
    )
    made = WorkflowPool(settings, 2)
    made.warm_up()
    yield made, gates
    for gate in ("a", "b", "c", "d"):  # a failed test must not leave runs waiting a minute
        (gates / gate).touch()
    made.close()


def _pid_of(gates: Path, gate: str, timeout_s: float = 60.0) -> int:
    """The worker process running the gated run ``gate``, once it waits at its gate."""
    path = gates / f"{gate}.pid"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, ValueError):
            return int(path.read_text())
        time.sleep(0.02)
    raise AssertionError(f"run {gate} never reached its gate")


def _types(sink: MemorySink) -> list[str]:
    return [e.data.type for e in sink.events]


def test_a_worker_that_answers_before_the_pool_has_noted_the_job_loses_nothing(
    pool: WorkflowPool, snapshot_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # On a busy machine the thread that hands a job over can be held up just after the pipe write,
    # while the worker already answers: its reader must know the run by then, or the run's events and
    # its end are dropped and the run (and its worker) hang for ever (seen once in CI as a page run
    # that never finished).
    from findesk.workflows import pool as pool_module

    handed = pool_module._Slot.send

    def slow_after_write(self: Any, job: Any) -> bool:
        sent = handed(self, job)
        if job is not None:
            time.sleep(1.0)  # the worker answers an unknown workflow at once, well within this
        return sent

    monkeypatch.setattr(pool_module._Slot, "send", slow_after_write)
    sink, ended = _submit(pool, _job(snapshot_dir, "poolrun0009", "no_such_workflow"))
    assert ended.wait(30), "the run never ended: its worker's answer was dropped"
    assert [e.data.type for e in sink.events] == ["error"]
    # and the worker is free again: the next run is served
    sink2, ended2 = _submit(pool, _job(snapshot_dir, "poolrun0010", "no_such_workflow"))
    assert ended2.wait(30)
    assert [e.data.type for e in sink2.events] == ["error"]


def test_a_dead_worker_costs_only_its_own_run(
    gated_pool: tuple[WorkflowPool, Path], snapshot_dir: Path
) -> None:
    pool, gates = gated_pool
    runs = {g: _submit(pool, _job(snapshot_dir, f"poolgate000{g}", "gated", gate=g)) for g in "abcd"}
    victim, survivor = _pid_of(gates, "a"), _pid_of(gates, "b")  # two workers, two runs: c, d wait
    assert victim != survivor
    os.kill(victim, signal.SIGKILL)

    sink, ended = runs["a"]
    assert ended.wait(30), "the killed worker's run never ended"
    assert _types(sink).count("error") == 1 and "done" not in _types(sink)
    last = sink.events[-1]
    assert last.data.type == "error" and last.data.code == "unavailable"  # type: ignore[union-attr]
    assert f"pid {victim}" in last.data.message and "SIGKILL" in last.data.message  # type: ignore[union-attr]
    assert [e.seq for e in sink.events] == list(range(2, len(sink.events) + 2))  # continues the sequence

    # the queued run goes to the replacement worker while the survivor is still busy with b
    replacement = _pid_of(gates, "c")
    assert replacement not in (victim, survivor)
    for gate in "bcd":
        (gates / gate).touch()
    for gate in "bcd":
        sink, ended = runs[gate]
        assert ended.wait(60), f"run {gate} never ended"
        assert "error" not in _types(sink), sink.events[-1]
        assert sink.events[-1].data.type == "done"
        assert [e.seq for e in sink.events] == list(range(2, len(sink.events) + 2))
    result: dict[str, Any] = runs["b"][0].events[-1].data.result  # type: ignore[union-attr,assignment]
    assert result["pid"] == survivor  # the run on the other worker went on, untouched
    result = runs["c"][0].events[-1].data.result  # type: ignore[union-attr,assignment]
    assert result["pid"] == replacement
    assert pool.restarts == 1


def test_a_run_cancelled_before_a_worker_starts_it_ends_interrupted(
    pool: WorkflowPool, snapshot_dir: Path
) -> None:
    # one worker, three runs ahead of it: the fourth waits in the pool and can be cancelled
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
