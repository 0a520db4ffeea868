"""The audit log: what a run leaves behind, how it is found again, and how it fails. The tests that take
``url`` run on SQLite and on PostgreSQL (``state_db``); the others are about SQLite files."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from findesk.core.config import Settings
from findesk.core.events.audit import AuditLog, open_audit_log
from findesk.core.events.model import (
    AgentEnd,
    AgentStart,
    Done,
    Error,
    LlmCall,
    RunWarning,
    Token,
    ToolCallStarted,
    ToolResultReady,
)
from findesk.core.events.trace import EventBus, MemorySink, Tracer
from findesk.core.result import Err, ErrorCode
from state_kit import execute, sqlite_file, tables


@pytest.fixture
def url(state_db: str) -> str:
    return state_db


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'state' / 'audit.sqlite3'}"


@pytest.fixture
def log(url: str) -> Iterator[AuditLog]:
    opened = AuditLog.open(url).unwrap()
    yield opened
    opened.close()


def record_run(tracer: Tracer, *, fail: bool = False) -> None:
    """A small nested run: two tool calls (one fails), a retried model call, a warning."""
    root = tracer.emit(
        AgentStart(agent="quote_filings", mode="model", mode_reason="key set", inputs={"symbol": "AAPL"})
    )
    scope = tracer.child(root.id, "quote_filings")
    for name, ok in (("get_quote", True), ("get_filings", False)):
        call = scope.emit(ToolCallStarted(call_id=name, name=name, arguments={"symbol": "AAPL"}))
        scope.emit(
            ToolResultReady(
                call_id=name,
                name=name,
                ok=ok,
                latency_ms=3.0,
                summary="ok" if ok else "nothing filed",
                error_code=None if ok else "no_data",
            ),
            parent_id=call.id,
        )
    scope.emit(LlmCall(provider="anthropic", model="m", ok=False, error_code="rate_limited", latency_ms=5))
    scope.emit(
        LlmCall(
            provider="anthropic",
            model="m",
            ok=True,
            attempt=2,
            input_tokens=1234,
            output_tokens=210,
            cached_tokens=1000,
            cost_usd=0.0042,
        )
    )
    scope.emit(Token(text="AAPL closed at"))
    scope.emit(RunWarning(code="stale_data", message="quote is a day old"))
    scope.emit(AgentEnd(agent="quote_filings", mode="model", ok=not fail, summary="s", tool_calls=2))
    if fail:
        tracer.emit(Error(code="budget_exceeded", message="spent $1.00"))
    else:
        tracer.emit(Done(summary="AAPL 232.14"))


def test_a_finished_run_is_summarised_and_replayed_exactly(log: AuditLog) -> None:
    memory = MemorySink()
    tracer = Tracer(EventBus([log, memory]))
    record_run(tracer)
    assert log.flush(timeout=10)
    assert log.acknowledged == len(memory.events) == 11

    assert log.events(tracer.run_id) == memory.events
    run = log.find_run(tracer.run_id).unwrap()
    assert run.title == "quote_filings AAPL"
    assert (run.status, run.mode, run.error) == ("done", "model", None)
    assert (run.event_count, run.tool_calls, run.tool_errors, run.llm_calls) == (11, 2, 1, 2)
    assert (run.input_tokens, run.output_tokens, run.cached_tokens) == (1234, 210, 1000)
    assert run.cost_usd == pytest.approx(0.0042)
    assert run.started_at == memory.events[0].ts
    assert run.duration_ms == pytest.approx(
        (memory.events[-1].ts - memory.events[0].ts).total_seconds() * 1000
    )


def test_status_follows_the_run(log: AuditLog) -> None:
    failed = Tracer(EventBus([log]))
    record_run(failed, fail=True)
    unfinished = Tracer(EventBus([log]))
    unfinished.emit(AgentStart(agent="macro", mode="deterministic", inputs={"series": ["DGS10", "UNRATE"]}))
    assert log.flush(timeout=10)

    run = log.find_run(failed.run_id).unwrap()
    assert (run.status, run.error) == ("error", "budget_exceeded: spent $1.00")
    other = log.find_run(unfinished.run_id).unwrap()
    assert (other.status, other.title, other.mode) == ("running", "macro DGS10,UNRATE", "deterministic")
    assert [r.run_id for r in log.list_runs()] == [unfinished.run_id, failed.run_id]
    assert [r.run_id for r in log.list_runs(limit=1)] == [unfinished.run_id]


def test_writing_an_event_twice_changes_nothing(log: AuditLog) -> None:
    memory = MemorySink()
    record_run(Tracer(EventBus([log, memory])))
    for event in memory.events:
        log.write(event)
    assert log.flush(timeout=10)
    run = log.list_runs()[0]
    assert (run.event_count, run.tool_calls, run.llm_calls) == (11, 2, 2)
    assert log.events(run.run_id) == memory.events


def test_runs_are_found_by_unique_prefix_only(log: AuditLog) -> None:
    for run_id in ("0190aa11f00c1a2b3c", "0190aa11f00d4e5f6a", "0190ab_special"):
        Tracer(EventBus([log]), run_id).emit(Done())
    assert log.flush(timeout=10)

    assert log.find_run("0190aa11f00c").unwrap().run_id == "0190aa11f00c1a2b3c"
    assert log.find_run("0190aa11f00d4e5f6a").unwrap().run_id == "0190aa11f00d4e5f6a"
    ambiguous = log.find_run("0190aa")
    assert isinstance(ambiguous, Err) and ambiguous.code is ErrorCode.INVALID_INPUT
    assert "0190aa11f00c1a2b3c" in ambiguous.reason and "0190aa11f00d4e5f6a" in ambiguous.reason
    unknown = log.find_run("ffff")
    assert isinstance(unknown, Err) and unknown.code is ErrorCode.NOT_FOUND
    # LIKE wildcards in a prefix are literal characters
    wildcard = log.find_run("0190a_")
    assert isinstance(wildcard, Err) and wildcard.code is ErrorCode.NOT_FOUND
    assert log.find_run("0190ab_").unwrap().run_id == "0190ab_special"
    assert isinstance(log.find_run("  "), Err)


def test_the_file_is_created_with_its_folders_in_wal_mode(tmp_path: Path) -> None:
    db = tmp_path / "a" / "b" / "audit.sqlite3"
    log = AuditLog.open(f"sqlite:///{db}").unwrap()
    log.close()
    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        tables = {row[0] for row in raw.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"events", "runs"} <= tables


def test_settings_decide_where_the_log_lives() -> None:
    settings = Settings()
    log = open_audit_log(settings).unwrap()
    log.close()
    assert Path(log.location) == settings.state_dir / "audit.sqlite3"
    assert Path(log.location).is_file()


def test_unusable_locations_are_errors_not_exceptions(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("this is a text file, not a database\n" * 100)
    cases = {
        "not a url": ErrorCode.INVALID_INPUT,
        "mysql://u@h/db": ErrorCode.INVALID_INPUT,
        "sqlite://": ErrorCode.INVALID_INPUT,
        f"sqlite:///{blocker}/audit.sqlite3": ErrorCode.UNAVAILABLE,
        f"sqlite:///{blocker}": ErrorCode.UNAVAILABLE,  # exists but is not a database
    }
    for bad, code in cases.items():
        result = AuditLog.open(bad)
        assert isinstance(result, Err) and result.code is code, (bad, result)
        assert result.reason


def test_read_only_opening_creates_nothing(url: str) -> None:
    result = AuditLog.open(url, read_only=True)
    assert isinstance(result, Err) and result.code is ErrorCode.NOT_FOUND
    missing = sqlite_file(url)
    if missing is None:
        assert tables(url) == set()  # an empty PostgreSQL database stays empty
    else:
        assert str(missing) in result.reason
        assert not missing.parent.exists()


def test_write_never_waits_for_the_disk_and_flush_can_time_out(sqlite_url: str) -> None:
    # the writer waits up to an hour for the lock: a write() that waited for the disk would hang
    log = AuditLog.open(sqlite_url, busy_timeout_s=3600).unwrap()
    blocker = sqlite3.connect(sqlite_url.removeprefix("sqlite:///"), isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    tracer = Tracer(EventBus([log]))
    emitted = threading.Event()

    def emit_all() -> None:
        for i in range(2000):
            tracer.emit(RunWarning(code="w", message=str(i)))
        emitted.set()

    try:
        threading.Thread(target=emit_all, daemon=True).start()
        assert emitted.wait(60), "write() waited for the locked database"  # a hang guard, not a speed test
        assert log.acknowledged == 0  # all 2000 returned while nothing could be committed
        assert log.flush(timeout=0.2) is False
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert log.flush(timeout=60) is True
    assert log.acknowledged == 2000
    assert log.find_run(tracer.run_id).unwrap().event_count == 2000
    log.close()


def test_a_broken_database_makes_flush_false_and_is_reported_once(
    log: AuditLog, url: str, capfd: pytest.CaptureFixture[str]
) -> None:
    tracer = Tracer(EventBus([log]))
    tracer.emit(RunWarning(code="w", message="before"))
    assert log.flush(timeout=10)
    execute(url, "DROP TABLE events")

    tracer.emit(RunWarning(code="w", message="lost"))
    assert log.flush(timeout=10) is False
    tracer.emit(RunWarning(code="w", message="lost too"))
    assert log.flush(timeout=10) is False  # the earlier event is still not recorded
    assert log.acknowledged == 1
    assert log.last_error is not None and "events" in log.last_error
    reports = [line for line in capfd.readouterr().err.splitlines() if "audit log" in line]
    assert len(reports) == 1 and "could not record" in reports[0]


def test_closing_commits_what_is_queued_and_is_idempotent(url: str) -> None:
    log = AuditLog.open(url).unwrap()
    bus = EventBus([log])
    tracer = Tracer(bus)
    for i in range(700):
        tracer.emit(RunWarning(code="w", message=str(i)))
    log.close()
    log.close()
    assert log.acknowledged == 700
    with pytest.raises(RuntimeError):
        log.write(tracer.emit(Done()))
    reader = AuditLog.open(url, read_only=True).unwrap()
    assert reader.find_run(tracer.run_id).unwrap().event_count == 700
    reader.close()


def test_two_writers_on_one_file_lose_nothing(url: str) -> None:
    first, second = AuditLog.open(url).unwrap(), AuditLog.open(url).unwrap()
    own = [Tracer(EventBus([first])), Tracer(EventBus([second]))]
    shared = Tracer(EventBus([first, second]))  # both writers record every event of this run

    def emit_many(tracer: Tracer) -> None:
        for i in range(600):
            tracer.emit(RunWarning(code="w", message=str(i)))

    threads = [threading.Thread(target=emit_many, args=(t,)) for t in (*own, shared)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert first.flush(timeout=20) and second.flush(timeout=20)

    for tracer in (*own, shared):
        run = first.find_run(tracer.run_id).unwrap()
        events = second.events(tracer.run_id)
        assert run.event_count == len(events) == 600
        assert [e.seq for e in events] == list(range(1, 601))
    first.close()
    second.close()


def test_a_reader_sees_whole_batches_while_a_writer_commits(log: AuditLog, url: str) -> None:
    tracer = Tracer(EventBus([log]))
    stop, committed = threading.Event(), threading.Event()

    def write() -> None:
        for i in range(3000):
            tracer.emit(RunWarning(code="w", message=str(i)))
            if i % 50 == 0 and log.flush(timeout=10):
                committed.set()
        log.flush(timeout=10)
        stop.set()

    writer = threading.Thread(target=write)
    writer.start()
    assert committed.wait(60), "the writer never committed its first batch"
    reader = AuditLog.open(url, read_only=True).unwrap()
    reads = 0
    while not stop.is_set() or reads < 3:
        counted = reader.find_run(tracer.run_id).unwrap().event_count
        seqs = [e.seq for e in reader.events(tracer.run_id)]
        assert seqs == list(range(1, len(seqs) + 1))
        assert len(seqs) >= counted
        reads += 1
    writer.join()
    assert reader.find_run(tracer.run_id).unwrap().event_count == 3000
    assert reads >= 3
    reader.close()
