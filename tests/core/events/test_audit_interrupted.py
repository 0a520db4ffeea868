"""Runs a crash left ``running`` are closed as interrupted, and only those: a run whose process died
(kill -9) gets one terminal ``interrupted`` error event naming the process and reads as an error; a run
of a live process (this one, or another host's server that still beats) is left alone, so a server
starting on a shared database never closes another live server's runs. Each test runs on SQLite and on
PostgreSQL (``state_db``)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta

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


def test_a_run_whose_process_died_is_closed_as_interrupted_and_live_runs_are_not(state_db: str) -> None:
    url = state_db
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
        assert [e.seq for e in log.events("0190deadrun0001")] == [1, 2]  # left open: no closing event
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


def test_a_log_opened_read_only_cannot_close_runs(state_db: str) -> None:
    url = state_db
    AuditLog.open(url).unwrap().close()
    reader = AuditLog.open(url, read_only=True).unwrap()
    try:
        refused = reader.close_interrupted_runs()
        assert isinstance(refused, Err) and "read-only" in refused.reason
    finally:
        reader.close()


def _dead_here(log: AuditLog, run_id: str) -> None:
    """A run owned by a process on this host that is gone: this pid, another start time (a recycled pid)."""
    _start(log, run_id)
    me = owners.this_process()
    gone = owners.Owner(me.host, me.pid, "boot:0", me.space)
    with log._writer.begin() as conn:  # type: ignore[union-attr]
        owners.claim(conn, log._insert, gone, [run_id], time.time())


def test_readers_show_a_dead_process_run_as_interrupted_before_anything_closes_it(state_db: str) -> None:
    url = state_db
    log = AuditLog.open(url).unwrap()
    try:
        _dead_here(log, "0190deadhere001")
        _start(log, "0190liverun0001")
        reader = AuditLog.open(url, read_only=True).unwrap()
        try:
            dead = reader.find_run("0190deadhere0").unwrap()  # by prefix too
            assert dead.status == "error" and dead.error is not None
            assert dead.error.startswith(f"interrupted: the process running it (pid {os.getpid()} on ")
            listed = {r.run_id: r for r in reader.list_runs()}
            assert listed["0190deadhere001"] == dead
            assert listed["0190liverun0001"].status == "running"  # a live process's run is left alone
            assert reader.find_run("0190liverun0001").unwrap().status == "running"
        finally:
            reader.close()
        assert [e.seq for e in log.events("0190deadhere001")] == [1, 2]  # reading wrote nothing

        # closing records what readers showed, with the very same error text
        assert log.close_interrupted_runs().unwrap() == ["0190deadhere001"]
        closed = log.find_run("0190deadhere001").unwrap()
        assert closed.model_copy(update={"event_count": 2}) == dead  # its duration too: not until found
        assert [e.seq for e in log.events("0190deadhere001")] == [1, 2, 3]
    finally:
        log.close()


def test_a_run_being_resumed_is_not_closed_under_it(state_db: str) -> None:
    log = AuditLog.open(state_db).unwrap()
    try:
        _dead_here(log, "0190resumed0001")
        _dead_here(log, "0190otherdead01")
        assert log.close_interrupted_runs(keep={"0190resumed0001"}).unwrap() == ["0190otherdead01"]
        assert [e.seq for e in log.events("0190resumed0001")] == [1, 2]
        assert log.close_interrupted_runs(keep={"0190resumed0001"}).unwrap() == []
    finally:
        log.close()


def test_an_older_log_without_owner_tables_still_reads_and_derives_from_quiet_runs(state_db: str) -> None:
    """A log written before owners were kept, opened only read-only: no owner tables, no error; a run
    quiet for longer than ``STALE_S`` reads interrupted, a recent one running."""
    from sqlalchemy import create_engine, text

    url = state_db
    log = AuditLog.open(url).unwrap()
    _start(log, "0190oldquiet001")
    _start(log, "0190oldrecent01")
    log.close()
    engine = create_engine(url)
    old = datetime.now(UTC) - timedelta(seconds=owners.STALE_S + 60)
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE run_owners"))
        conn.execute(text("DROP TABLE owners"))
        conn.execute(
            text("UPDATE runs SET updated_at = :old WHERE run_id = '0190oldquiet001'"),
            # as each backend keeps it: SQLite naive UTC, PostgreSQL a timestamptz
            {"old": old.replace(tzinfo=None) if engine.dialect.name == "sqlite" else old},
        )
    engine.dispose()
    reader = AuditLog.open(url, read_only=True).unwrap()
    try:
        quiet = reader.find_run("0190oldquiet001").unwrap()
        assert quiet.status == "error" and "no event for 300 s" in (quiet.error or "")
        assert reader.find_run("0190oldrecent01").unwrap().status == "running"
    finally:
        reader.close()
