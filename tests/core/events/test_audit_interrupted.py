"""Runs a crash left ``running`` are closed as interrupted, and only those: a run whose process died
(kill -9) gets one terminal ``interrupted`` error event naming the process and reads as an error; a run
of a live process (this one, or another host's server that still beats) is left alone, so a server
starting on a shared database never closes another live server's runs."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from findesk.core.events import owners
from findesk.core.events.audit import AuditLog
from findesk.core.events.model import AgentStart, ToolCallStarted
from findesk.core.events.trace import EventBus, Tracer
from findesk.core.result import Err

_CRASHING_WRITER = """
import os, signal, sys
from findesk.core.events.audit import AuditLog
from findesk.core.events.model import AgentStart, ToolCallStarted
from findesk.core.events.trace import EventBus, Tracer
log = AuditLog.open(sys.argv[1]).unwrap()
tracer = Tracer(EventBus([log]), sys.argv[2])
tracer.emit(AgentStart(agent="brief", mode="deterministic", mode_reason="test", inputs={"ticker": "AAPL"}))
tracer.emit(ToolCallStarted(call_id="c1", name="get_quote", arguments={"symbol": "AAPL"}))
assert log.flush(10)
print(os.getpid(), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def _start(log: AuditLog, run_id: str) -> None:
    tracer = Tracer(EventBus([log]), run_id)
    tracer.emit(
        AgentStart(agent="brief", mode="deterministic", mode_reason="test", inputs={"ticker": "MSFT"})
    )
    tracer.emit(ToolCallStarted(call_id="c1", name="get_quote", arguments={"symbol": "MSFT"}))
    assert log.flush(10)


def _other_host(log: AuditLog, run_id: str, pid: int, seen_s_ago: float) -> None:
    """A run owned by a server on another machine whose last heartbeat was ``seen_s_ago``."""
    _start(log, run_id)
    far = owners.Owner("another-host", pid, "boot:1")
    with log._writer.begin() as conn:  # type: ignore[union-attr]
        owners.claim(conn, log._insert, far, [run_id], time.time() - seen_s_ago)


def test_a_run_whose_process_died_is_closed_as_interrupted_and_live_runs_are_not(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'audit.sqlite3'}"
    crashed = subprocess.run(
        [sys.executable, "-c", _CRASHING_WRITER, url, "0190deadrun0001"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert crashed.returncode == -9, crashed.stderr
    dead_pid = int(crashed.stdout.split()[0])

    log = AuditLog.open(url).unwrap()
    try:
        assert log.find_run("0190deadrun0001").unwrap().status == "running"
        _start(log, "0190liverun0001")  # this process is alive: its run is in progress
        _other_host(log, "0190farlive0001", 4242, seen_s_ago=5)
        _other_host(log, "0190fargone001", 4343, seen_s_ago=owners.STALE_S + 60)

        closed = log.close_interrupted_runs()
        assert not isinstance(closed, Err), closed
        assert sorted(closed.value) == ["0190deadrun0001", "0190fargone001"]

        dead = log.find_run("0190deadrun0001").unwrap()
        assert dead.status == "error" and dead.error is not None
        assert dead.error.startswith("interrupted: ") and f"pid {dead_pid}" in dead.error
        events = log.events("0190deadrun0001")
        assert [e.seq for e in events] == [1, 2, 3]
        last = events[-1]
        assert last.parent_id is None and last.data.type == "error" and last.data.code == "interrupted"  # type: ignore[union-attr]
        assert "another-host" in (log.find_run("0190fargone001").unwrap().error or "")
        for live in ("0190liverun0001", "0190farlive0001"):
            assert log.find_run(live).unwrap().status == "running"

        # a second server starting on the same database closes nothing twice
        other = AuditLog.open(url).unwrap()
        try:
            assert other.close_interrupted_runs().unwrap() == []
        finally:
            other.close()
        assert [e.seq for e in log.events("0190deadrun0001")] == [1, 2, 3]
    finally:
        log.close()


def test_a_log_opened_read_only_cannot_close_runs(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'audit.sqlite3'}"
    AuditLog.open(url).unwrap().close()
    reader = AuditLog.open(url, read_only=True).unwrap()
    try:
        refused = reader.close_interrupted_runs()
        assert isinstance(refused, Err) and "read-only" in refused.reason
    finally:
        reader.close()
