"""``findesk runs``: a recorded run listed, replayed and exported by the real command."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from findesk.core.config import Settings
from findesk.core.events.audit import AuditLog
from findesk.core.events.jsonl import read_jsonl
from findesk.core.events.model import (
    AgentEnd,
    AgentStart,
    Done,
    Error,
    Event,
    LlmCall,
    RunWarning,
    Token,
    ToolCallStarted,
    ToolResultReady,
)
from findesk.core.events.trace import EventBus, MemorySink, Tracer
from findesk.interfaces.cli.live_view import LiveView
from snapshot_kit import env_without_settings

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)

RUN = "0190aa11f00c1a2b3c"
FAILED_RUN = "0190aa11f00d4e5f6a"


def findesk(*args: str) -> subprocess.CompletedProcess[str]:
    env = env_without_settings()
    for key in ("FINDESK_CACHE_DIR", "FINDESK_STATE_DIR", "FINDESK_CONFIG"):
        env[key] = os.environ[key]
    return subprocess.run(
        [sys.executable, "-m", "findesk", *args], capture_output=True, text=True, env=env, timeout=120
    )


def record(tracer: Tracer, *, fail: bool = False) -> None:
    """A desk run: an analyst sub-agent calls two tools (one fails) and a model (one retry)."""
    root = tracer.emit(
        AgentStart(
            agent="quote_filings",
            mode="model",
            mode_reason="anthropic key configured",
            inputs={"symbol": "AAPL"},
        )
    )
    desk = tracer.child(root.id, "quote_filings")
    sub = desk.emit(AgentStart(agent="filings_analyst", mode="model", inputs={"symbol": "AAPL"}))
    analyst = tracer.child(sub.id, "filings_analyst")
    quote = analyst.emit(ToolCallStarted(call_id="t1", name="get_quote", arguments={"symbol": "AAPL"}))
    analyst.emit(
        ToolResultReady(
            call_id="t1",
            name="get_quote",
            ok=True,
            latency_ms=3.1,
            summary="AAPL [bold]232.14[/bold] USD on 2025-08-29 (snapshot)",
            result={"price": 232.14},
        ),
        parent_id=quote.id,
    )
    filings = analyst.emit(
        ToolCallStarted(call_id="t2", name="get_filings", arguments={"symbol": "AAPL", "forms": ["8-K"]})
    )
    analyst.emit(
        ToolResultReady(
            call_id="t2",
            name="get_filings",
            ok=False,
            latency_ms=2.0,
            summary="no 8-K filed on or before 2025-08-29",
            error_code="no_data",
        ),
        parent_id=filings.id,
    )
    analyst.emit(
        LlmCall(
            provider="anthropic",
            model="claude-sonnet-4-5",
            ok=False,
            error_code="rate_limited",
            error="429 slow down",
            latency_ms=120,
        )
    )
    analyst.emit(
        LlmCall(
            provider="anthropic",
            model="claude-sonnet-4-5",
            ok=True,
            attempt=2,
            input_tokens=1234,
            output_tokens=210,
            cached_tokens=1000,
            cost_usd=0.0042,
            latency_ms=812,
        )
    )
    analyst.emit(Token(text="SECRET-TOKEN-TEXT"))
    analyst.emit(RunWarning(code="stale_data", message="quote is one session old"))
    analyst.emit(AgentEnd(agent="filings_analyst", mode="model", ok=True, summary="ok", tool_calls=2))
    desk.emit(AgentEnd(agent="quote_filings", mode="model", ok=not fail, summary="ok", tool_calls=2))
    if fail:
        tracer.emit(Error(code="budget_exceeded", message="the run spent its $1.00 budget"))
    else:
        tracer.emit(Done(summary="AAPL closed at 232.14"))


@pytest.fixture
def recorded() -> list[Event]:
    """Two runs in the audit log the CLI will read; the events of the successful one."""
    log = AuditLog.open(Settings().resolved_audit_url()).unwrap()
    memory = MemorySink()
    record(Tracer(EventBus([log]), FAILED_RUN), fail=True)
    record(Tracer(EventBus([log, memory]), RUN))
    assert log.flush(timeout=10)
    log.close()
    return memory.events


def test_list_shows_each_run_with_its_totals(recorded: list[Event]) -> None:
    proc = findesk("runs", "list")
    assert proc.returncode == 0, proc.stderr
    lines = {line.split()[1]: line for line in proc.stdout.splitlines() if "0190aa11f00" in line}
    assert set(lines) == {RUN, FAILED_RUN}
    for needle in ("quote_filings AAPL", "done", "model", "2 (1)", "1,234", "210", "$0.0042"):
        assert needle in lines[RUN]
    assert "error" in lines[FAILED_RUN]

    data = json.loads(findesk("runs", "list", "--json", "--limit", "1").stdout)["data"]
    assert len(data) == 1
    newest = data[0]
    assert newest["run_id"] == RUN  # recorded last, so listed first
    assert (newest["status"], newest["tool_calls"], newest["tool_errors"]) == ("done", 2, 1)
    assert (newest["input_tokens"], newest["cached_tokens"], newest["output_tokens"]) == (1234, 1000, 210)


def test_show_replays_the_trace_as_a_tree(recorded: list[Event]) -> None:
    proc = findesk("runs", "show", "0190aa11f00c")  # a unique prefix is enough
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for needle in (RUN, "quote_filings AAPL", "2 (1 failed)", "1,234 (1,000 cached) / 210", "$0.0042"):
        assert needle in out
    trace = out[out.index("▶ quote_filings") :].splitlines()
    expected = [
        "▶ quote_filings (model: anthropic key configured)",
        "  ▶ filings_analyst (model)",
        "    → get_quote(symbol=AAPL)",
        "      ✓ get_quote 3.1 ms — AAPL [bold]232.14[/bold] USD on 2025-08-29 (snapshot)",
        '    → get_filings(symbol=AAPL, forms=["8-K"])',
        "      ✗ get_filings 2.0 ms — no_data: no 8-K filed on or before 2025-08-29",
        "    ◆ anthropic:claude-sonnet-4-5 failed — rate_limited: 429 slow down · 120 ms",
        "    ◆ anthropic:claude-sonnet-4-5 (attempt 2) 1,234 in (1,000 cached) / 210 out · $0.0042 · 812 ms",
        "    ! stale_data: quote is one session old",
        "    ■ filings_analyst done · 2 tool calls · $0.00 · 0.0 ms",
        "  ■ quote_filings done · 2 tool calls · $0.00 · 0.0 ms",
        "● done — AAPL closed at 232.14",
    ]
    assert [line.rstrip() for line in trace] == expected
    assert "SECRET-TOKEN-TEXT" not in out
    assert "SECRET-TOKEN-TEXT" in findesk("runs", "show", RUN, "--verbose").stdout


def test_show_makes_a_failed_run_visible(recorded: list[Event]) -> None:
    proc = findesk("runs", "show", FAILED_RUN)
    assert proc.returncode == 0, proc.stderr
    assert "budget_exceeded: the run spent its $1.00 budget" in proc.stdout
    assert "✗ error budget_exceeded" in proc.stdout
    assert "■ quote_filings failed" in proc.stdout


def test_show_json_holds_the_summary_and_every_event(recorded: list[Event]) -> None:
    proc = findesk("runs", "show", RUN, "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["run"]["run_id"] == RUN and doc["run"]["event_count"] == len(recorded)
    assert [Event.model_validate(e) for e in doc["events"]] == recorded


def test_export_round_trips_to_identical_events(recorded: list[Event], tmp_path: Path) -> None:
    proc = findesk("runs", "export", RUN, "--format", "jsonl")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [e.to_json() for e in recorded]
    (tmp_path / "stdout.jsonl").write_text(proc.stdout, encoding="utf-8")
    assert read_jsonl(tmp_path / "stdout.jsonl") == recorded

    target = tmp_path / "out" / "run.jsonl"
    target.parent.mkdir()
    assert findesk("runs", "export", "0190aa11f00c", "--output", str(target)).returncode == 0
    assert read_jsonl(target) == recorded

    as_array = json.loads(findesk("runs", "export", RUN, "--format", "json").stdout)
    assert [Event.model_validate(e) for e in as_array] == recorded


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (("runs", "show", "ffffffff"), 4, "not_found"),
        (("runs", "export", "ffffffff"), 4, "not_found"),
        (("runs", "show", "0190aa11f00"), 2, FAILED_RUN),  # ambiguous: both candidates named
        (("runs", "export", RUN, "--format", "xml"), 2, "unknown format 'xml'"),
    ],
)
def test_bad_requests_get_one_line_and_an_exit_code(
    recorded: list[Event], args: tuple[str, ...], code: int, needle: str
) -> None:
    proc = findesk(*args)
    assert proc.returncode == code, (proc.stdout, proc.stderr)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("findesk: ") and needle in lines[0]
    assert "Traceback" not in proc.stderr


def test_an_empty_state_directory_is_a_friendly_message_and_stays_empty() -> None:
    state = Path(os.environ["FINDESK_STATE_DIR"])
    proc = findesk("runs", "list")
    assert proc.returncode == 0, proc.stderr
    assert f"no runs recorded yet in {state / 'audit.sqlite3'}" in proc.stdout
    assert json.loads(findesk("runs", "list", "--json").stdout) == {"data": []}
    missing = findesk("runs", "show", RUN)
    assert missing.returncode == 4 and "findesk: not_found" in missing.stderr
    assert list(state.iterdir()) == []


def test_the_live_view_prints_one_line_per_event_as_it_happens() -> None:
    screen = io.StringIO()
    view = LiveView(Console(file=screen, width=100), verbose=True)
    tracer = Tracer(EventBus([view]))
    root = tracer.emit(AgentStart(agent="quote", mode="deterministic", mode_reason="no model key configured"))
    scope = tracer.child(root.id, "quote")
    scope.emit(Token(text="AAPL "))
    scope.emit(Token(text="rose"))
    call = scope.emit(ToolCallStarted(call_id="c", name="get_news", arguments={"symbol": "AAPL"}))
    long_summary = "headline [red]not markup[/red] " + "word " * 100
    scope.emit(
        ToolResultReady(call_id="c", name="get_news", ok=True, latency_ms=41, summary=long_summary),
        parent_id=call.id,
    )
    lines = screen.getvalue().splitlines()
    assert lines[0] == "▶ quote (deterministic: no model key configured)"
    assert lines[1] == "AAPL rose"  # streamed tokens, then a fresh line for the next event
    assert lines[2] == "  → get_news(symbol=AAPL)"
    assert lines[3].startswith("    ✓ get_news 41 ms — headline [red]not markup[/red] word")
    assert lines[3].endswith("…") and len(lines[3]) <= 100
    assert len(lines) == 4
