"""``findesk runs export-otlp``: a run recorded while the export was off, sent afterwards by the real
command to a receiver on loopback, arrives as the trace a live export would have drawn."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from findesk.core.config import Settings
from findesk.core.events.audit import AuditLog
from findesk.core.events.model import AgentEnd, AgentStart, Done, LlmCall, ToolCallStarted, ToolResultReady
from findesk.core.events.spans import EVENT_ID, INPUT_TOKENS, OPERATION, trace_id_of
from findesk.core.events.trace import EventBus, MemorySink, Tracer
from otlp_kit import Receiver
from snapshot_kit import env_without_settings

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)

RUN = "0190aa11f00c7e7e7e"


def findesk(*args: str) -> subprocess.CompletedProcess[str]:
    env = env_without_settings()
    for key in ("FINDESK_CACHE_DIR", "FINDESK_STATE_DIR", "FINDESK_CONFIG"):
        env[key] = os.environ[key]
    return subprocess.run(
        [sys.executable, "-m", "findesk", *args], capture_output=True, text=True, env=env, timeout=120
    )


def _record() -> MemorySink:
    log = AuditLog.open(Settings().resolved_audit_url()).unwrap()
    memory = MemorySink()
    tracer = Tracer(EventBus([log, memory]), RUN)
    root = tracer.emit(
        AgentStart(agent="brief", mode="model", inputs={"symbol": "AAPL", "as_of": "2025-08-29"})
    )
    desk = tracer.child(root.id, "brief")
    sub = desk.emit(AgentStart(agent="filings_analyst", mode="model"))
    analyst = tracer.child(sub.id, "filings_analyst")
    call = analyst.emit(ToolCallStarted(call_id="t1", name="get_quote", arguments={"symbol": "AAPL"}))
    analyst.emit(
        ToolResultReady(call_id="t1", name="get_quote", ok=True, latency_ms=3.0, summary="ok"),
        parent_id=call.id,
    )
    analyst.emit(
        LlmCall(
            provider="anthropic",
            model="claude",
            ok=True,
            input_tokens=1234,
            output_tokens=210,
            cost_usd=0.004,
        )
    )
    analyst.emit(AgentEnd(agent="filings_analyst", mode="model", ok=True, summary="ok"), parent_id=sub.id)
    desk.emit(AgentEnd(agent="brief", mode="model", ok=True, summary="ok"))
    tracer.emit(Done(summary="done"))
    assert log.flush(timeout=10)
    log.close()
    return memory


def test_a_recorded_run_is_sent_as_one_trace_and_its_id_printed() -> None:
    memory = _record()
    with Receiver() as receiver:
        done = findesk("runs", "export-otlp", RUN[:12], "--endpoint", receiver.endpoint)
        assert done.returncode == 0, done.stderr
        got = receiver.wait_for(4)
    assert done.stdout.strip() == f"{trace_id_of(RUN):032x}"
    assert len(got) == 4  # the run, the analyst, its tool call, its model call
    assert {r.span.trace_id for r in got} == {trace_id_of(RUN).to_bytes(16, "big")}
    ops = sorted(r.attributes[OPERATION] for r in got)
    assert ops == ["chat", "execute_tool", "invoke_agent", "invoke_workflow"]
    chat = next(r for r in got if r.attributes[OPERATION] == "chat")
    assert chat.attributes[INPUT_TOKENS] == 1234
    assert {r.attributes[EVENT_ID] for r in got} <= {e.id for e in memory.events}


def test_without_an_endpoint_it_says_how_to_set_one() -> None:
    _record()
    done = findesk("runs", "export-otlp", RUN)
    assert done.returncode != 0
    assert "no OTLP endpoint" in done.stderr and "FINDESK_TELEMETRY__OTLP_ENDPOINT" in done.stderr


def test_an_endpoint_that_is_no_url_is_refused_before_anything_is_sent() -> None:
    _record()
    done = findesk("runs", "export-otlp", RUN, "--endpoint", "localhost:4318")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "findesk: invalid_input: --endpoint: otlp_endpoint: Value error, 'localhost:4318' is not an http(s) "
        "URL such as http://127.0.0.1:4318/v1/traces"
    ]
