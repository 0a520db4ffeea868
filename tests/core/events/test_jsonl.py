"""The JSON Lines sink: one event per line, readable while written, tolerant of a crash."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from findesk.core.events.jsonl import JsonlSink, read_jsonl
from findesk.core.events.model import AgentStart, Done, LlmCall, RunWarning, ToolCallStarted
from findesk.core.events.trace import EventBus, MemorySink, Tracer


def test_events_read_back_equal_and_each_line_is_on_disk_at_once(tmp_path: Path) -> None:
    path = tmp_path / "runs" / "trace.jsonl"
    sink, memory = JsonlSink(path), MemorySink()
    tracer = Tracer(EventBus([sink, memory]))
    root = tracer.emit(AgentStart(agent="quote", mode="model", inputs={"symbol": "AAPL"}))
    assert read_jsonl(path) == memory.events  # visible before the sink is closed
    scope = tracer.child(root.id, "quote")
    scope.emit(ToolCallStarted(call_id="c", name="get_quote", arguments={"symbol": "AAPL", "note": "“ü”\n"}))
    scope.emit(LlmCall(provider="anthropic", model="m", ok=True, input_tokens=5, cost_usd=0.25))
    assert read_jsonl(path) == memory.events
    tracer.emit(Done(result={"price": 232.14}))
    sink.close()
    sink.close()
    assert read_jsonl(path) == memory.events
    assert len(path.read_text(encoding="utf-8").splitlines()) == 4
    with pytest.raises(RuntimeError):
        sink.write(memory.events[0])


def test_a_torn_last_line_is_skipped_and_later_appends_stay_readable(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    memory = MemorySink()
    sink = JsonlSink(path)
    tracer = Tracer(EventBus([sink, memory]))
    tracer.emit(RunWarning(code="a", message="kept"))
    sink.close()
    torn = memory.events[0].to_json()[:-20]
    with path.open("a", encoding="utf-8") as handle:
        handle.write(torn)  # what a crash mid-write leaves behind
    assert read_jsonl(path) == memory.events

    again = JsonlSink(path)
    tracer.bus.sinks[0] = again
    tracer.emit(RunWarning(code="b", message="after the crash"))
    again.close()
    assert read_jsonl(path) == memory.events


def test_a_file_of_other_json_is_an_error_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "other.jsonl"
    path.write_text('{"hello": "world"}\n')
    with pytest.raises(ValueError, match=r"other\.jsonl:1 "):
        read_jsonl(path)


def test_concurrent_writers_never_interleave_lines(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    sink = JsonlSink(path)
    tracer = Tracer(EventBus([sink]))
    long_text = "x" * 20_000

    def emit() -> None:
        for _ in range(50):
            tracer.emit(RunWarning(code="w", message=long_text))

    threads = [threading.Thread(target=emit) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    sink.close()
    events = read_jsonl(path)
    assert sorted(e.seq for e in events) == list(range(1, 201))


KILL_SCRIPT = """
import os, signal, sys
from findesk.core.events.jsonl import JsonlSink
from findesk.core.events.model import RunWarning
from findesk.core.events.trace import EventBus, Tracer
tracer = Tracer(EventBus([JsonlSink(sys.argv[1])]), "0190killed00000")
for i in range(1, 301):
    tracer.emit(RunWarning(code="w", message=str(i)))
os.kill(os.getpid(), signal.SIGKILL)  # no close, no interpreter exit
"""


def test_every_written_line_survives_a_kill(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    proc = subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(path)], capture_output=True, timeout=60)
    assert proc.returncode < 0, proc.stderr
    events = read_jsonl(path)
    assert [e.seq for e in events] == list(range(1, 301))
    assert events[-1].data == RunWarning(code="w", message="300")
