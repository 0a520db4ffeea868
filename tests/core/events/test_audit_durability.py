"""The audit log survives the process that writes it being killed.

Run as a script (``python test_audit_durability.py DB_URL RUN_ID``) this file is the writer: it
emits deterministic events forever through a ``Tracer`` into an ``AuditLog``, flushes every few
events and prints the last acknowledged sequence number after each successful flush.
"""

from __future__ import annotations

import os
import selectors
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from findesk.core.events.audit import AuditLog
from findesk.core.events.model import (
    AgentStart,
    Done,
    Event,
    LlmCall,
    Payload,
    RunWarning,
    Token,
    ToolCallStarted,
    ToolResultReady,
)
from findesk.core.events.trace import EventBus, Tracer

RUN_ID = "0190durable0abcdef"
FLUSH_EVERY = 3


def expected(seq: int) -> tuple[str | None, Payload]:
    """The parent id and payload the writer emits as event ``seq`` (1-based)."""
    root = f"{RUN_ID}-1"
    if seq == 1:
        return None, AgentStart(agent="durable", mode="model", mode_reason="test", inputs={"symbol": "AAPL"})
    kind = (seq - 2) % 5
    if kind == 0:
        return root, ToolCallStarted(
            call_id=f"c{seq}", name="get_quote", arguments={"symbol": "AAPL", "n": seq}
        )
    if kind == 1:
        return f"{RUN_ID}-{seq - 1}", ToolResultReady(
            call_id=f"c{seq - 1}",
            name="get_quote",
            ok=seq % 3 != 0,
            latency_ms=seq / 10,
            summary=f"AAPL close #{seq} — “quoted” ✓",
            error_code=None if seq % 3 else "no_data",
            result={"price": seq * 1.5, "rows": list(range(seq % 4))},
        )
    if kind == 2:
        return root, LlmCall(
            provider="anthropic",
            model="claude-sonnet-4-5",
            ok=True,
            input_tokens=seq * 10,
            output_tokens=seq,
            cached_tokens=seq % 7,
            cost_usd=seq / 10_000,
            latency_ms=float(seq),
        )
    if kind == 3:
        return root, RunWarning(code="stale_data", message=f"warning {seq}")
    return root, Token(text=f"token {seq} ")


def writer_main(url: str) -> None:
    log = AuditLog.open(url).unwrap()
    tracer = Tracer(EventBus([log]), RUN_ID)
    seq = 0
    while True:
        seq += 1
        parent_id, payload = expected(seq)
        tracer.emit(payload, parent_id=parent_id)
        if seq % FLUSH_EVERY == 0 and log.flush(timeout=10):
            print(seq, flush=True)


def _read_acks(proc: subprocess.Popen[bytes], want: int, deadline: float) -> int:
    """Read ack lines until the writer has acknowledged ``want`` events; the last ack."""
    assert proc.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ)
    buffer, last = b"", 0
    while last < want:
        remaining = deadline - time.monotonic()
        assert remaining > 0, f"writer acknowledged only {last} events in time"
        if not selector.select(remaining):
            continue
        chunk = os.read(proc.stdout.fileno(), 4096)
        assert chunk, f"writer exited early (code {proc.poll()})"
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            last = int(line)
    return last


def _spawn(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, __file__, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_acknowledged_events_survive_sigkill(tmp_path: Path) -> None:
    db = tmp_path / "audit.sqlite3"
    proc = _spawn(f"sqlite:///{db}")
    try:
        # a hang guard, not a speed test: start-up and 80 fsynced commits on a busy machine
        last_ack = _read_acks(proc, 240, time.monotonic() + 120)
        time.sleep(0.01)  # not a wait for anything: the kill lands a moment into the next batches
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL

    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    log = AuditLog.open(f"sqlite:///{db}", read_only=True).unwrap()
    events = log.events(RUN_ID)
    seqs = [e.seq for e in events]
    assert seqs == list(range(1, len(seqs) + 1)), "a gap or duplicate in the recorded sequence"
    assert len(events) >= last_ack
    for event in events:
        parent_id, payload = expected(event.seq)
        assert (event.id, event.run_id, event.parent_id) == (f"{RUN_ID}-{event.seq}", RUN_ID, parent_id)
        assert event.data == payload
        assert event.ts.tzinfo is not None
    assert [e.ts for e in events] == sorted(e.ts for e in events)

    run = log.find_run(RUN_ID).unwrap()
    assert run.event_count == len(events) >= last_ack
    # recorded as running; read as interrupted, since the process writing it is gone
    assert run.status == "error" and (run.error or "").startswith("interrupted: the process running it")
    assert run.title == "durable AAPL"
    assert run.tool_calls == sum(e.type == "tool_call" for e in events)
    assert run.tool_errors == sum(e.type == "tool_result" and not _ok(e) for e in events)
    assert run.input_tokens == sum(e.seq * 10 for e in events if e.type == "llm_call")
    log.close()


def _ok(event: Event) -> bool:
    return bool(getattr(event.data, "ok", True))


EXIT_SCRIPT = """
import sys
from findesk.core.events.audit import AuditLog
from findesk.core.events.model import Done, RunWarning
from findesk.core.events.trace import EventBus, Tracer
log = AuditLog.open(sys.argv[1]).unwrap()
tracer = Tracer(EventBus([log]), "0190atexit000000")
for i in range(1, 1000):
    tracer.emit(RunWarning(code="w", message=str(i)))
tracer.emit(Done(summary="finished"))
# no flush, no close: a normal interpreter exit must still commit everything
"""


def test_normal_exit_commits_everything_without_close(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'audit.sqlite3'}"
    proc = subprocess.run(
        [sys.executable, "-c", EXIT_SCRIPT, url], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    log = AuditLog.open(url, read_only=True).unwrap()
    run = log.find_run("0190atexit").unwrap()
    assert (run.event_count, run.status) == (1000, "done")
    assert isinstance(log.events(run.run_id)[-1].data, Done)
    log.close()


if __name__ == "__main__":
    writer_main(sys.argv[1])
