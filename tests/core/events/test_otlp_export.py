"""Runs exported as OpenTelemetry traces: a real research-desk run with scripted models (tokens, cost),
sent over OTLP/HTTP to a receiver this test starts on loopback, arrives as one trace whose spans match
the run's events; a collector that is down costs the run nothing but one warning; nothing is exported
(and OpenTelemetry is not even imported) unless an endpoint is configured."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.trace.v1.trace_pb2 import Status

from findesk.core.config import Settings, TelemetrySettings
from findesk.core.events import otel, spans
from findesk.core.events.model import AgentStart, Event, LlmCall, ToolCallStarted
from findesk.core.events.spans import span_id_of, trace_id_of
from findesk.core.result import Err
from findesk.testing.fake_research_models import research_models
from findesk.tools.base import ToolContext
from findesk.workflows.research.spec import SPEC
from otlp_kit import Received, Receiver
from snapshot_kit import snapshot_settings, snapshot_tools
from workflow_kit import run_spec

AS_OF = "2025-08-29"
QUESTION = "What was NVDA revenue last quarter, and where are 10-year yields?"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as r:
        yield r


def _dead_endpoint() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1/traces"  # nothing listens there any more


@pytest.fixture(scope="module")
def base_settings(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return snapshot_settings(snapshot_dir, tmp_path_factory, "otel")


@pytest.fixture(scope="module")
def tools(base_settings: Settings) -> Iterator[ToolContext]:
    yield from snapshot_tools(base_settings, AS_OF)


def _traced(settings: Settings, endpoint: str, **extra: Any) -> Settings:
    return settings.model_copy(update={"telemetry": TelemetrySettings(otlp_endpoint=endpoint, **extra)})


def _ask(settings: Settings, tools: ToolContext, mode: str = "model") -> tuple[Any, list[Event]]:
    resolve, _models = research_models()
    return run_spec(SPEC, settings, tools, {"question": QUESTION}, as_of=AS_OF, mode=mode, models=resolve)


def _span_events(events: list[Event]) -> dict[str, Event]:
    """The events that open a span, by id: agent starts (the opening one is the root), tool calls,
    model calls."""
    return {e.id: e for e in events if isinstance(e.data, AgentStart | ToolCallStarted | LlmCall)}


def _shape(r: Received) -> tuple[bytes, bytes, int, int]:
    return (r.span.span_id, r.span.parent_span_id, r.span.start_time_unix_nano, r.span.end_time_unix_nano)


# -- the tests ----------------------------------------------------------------------------------------


def test_a_run_arrives_as_one_trace_whose_spans_match_its_events(
    base_settings: Settings, tools: ToolContext, receiver: Receiver
) -> None:
    report, events = _ask(_traced(base_settings, receiver.endpoint), tools)
    assert not isinstance(report, Err), report
    run_id = events[0].run_id
    agents = [e for e in events if isinstance(e.data, AgentStart) and e.parent_id is not None]
    tools_called = [e for e in events if isinstance(e.data, ToolCallStarted)]
    llm_calls = [e for e in events if isinstance(e.data, LlmCall)]
    assert agents and tools_called and llm_calls  # a real run: agents, tools and model calls
    assert sum(e.data.input_tokens for e in llm_calls if isinstance(e.data, LlmCall)) > 0
    expected = 1 + len(agents) + len(tools_called) + len(llm_calls)

    got = receiver.wait_for(expected)
    assert len(got) == expected
    assert receiver.content_types == {"application/x-protobuf"}
    assert {r.span.trace_id for r in got} == {trace_id_of(run_id).to_bytes(16, "big")}
    assert {r.resource.get("service.name") for r in got} == {"findesk"}

    ops = [r.attributes[spans.OPERATION] for r in got]
    assert ops.count("invoke_workflow") == 1
    assert ops.count("invoke_agent") == len(agents)
    assert ops.count("execute_tool") == len(tools_called)
    assert ops.count("chat") == len(llm_calls)

    by_event = _span_events(events)
    by_span_id = {r.span.span_id: r for r in got}
    for r in got:
        event = by_event[r.attributes[spans.EVENT_ID]]
        assert r.span.span_id == span_id_of(run_id, event.id).to_bytes(8, "big")
        assert r.span.end_time_unix_nano >= r.span.start_time_unix_nano  # durations are never negative
        if event.parent_id is None:
            assert r.span.parent_span_id == b"" and r.span.name == f"invoke_workflow {SPEC.name}"
            assert r.attributes[spans.RUN_ID] == run_id
            continue
        parent = by_span_id[r.span.parent_span_id]  # every parent arrived in the same trace
        assert parent.attributes[spans.EVENT_ID] == event.parent_id  # ... and is its event's parent
        data = event.data
        if isinstance(data, LlmCall):
            assert r.span.name == f"chat {data.model}"
            assert r.attributes[spans.PROVIDER] == data.provider
            assert r.attributes[spans.REQUEST_MODEL] == data.model
            assert r.attributes[spans.INPUT_TOKENS] == data.input_tokens
            assert r.attributes[spans.OUTPUT_TOKENS] == data.output_tokens
            assert r.attributes[spans.COST_USD] == pytest.approx(data.cost_usd)
            assert json.loads(r.attributes[spans.LANGFUSE_COST]) == {"total": pytest.approx(data.cost_usd)}
            assert r.span.end_time_unix_nano == spans.ns(event.ts)  # the event's own time, not export's
            latency = (r.span.end_time_unix_nano - r.span.start_time_unix_nano) / 1e6
            assert latency == pytest.approx(data.latency_ms, abs=0.01)
        elif isinstance(data, ToolCallStarted):
            assert r.attributes[spans.TOOL_NAME] == data.name
            assert r.attributes[spans.TOOL_CALL_ID] == data.call_id
            assert r.span.start_time_unix_nano == spans.ns(event.ts)
        elif isinstance(data, AgentStart):
            assert r.attributes[spans.AGENT_NAME] == data.agent
            assert r.span.name == f"invoke_agent {data.agent}"

    root = next(r for r in got if r.span.parent_span_id == b"")
    assert root.attributes[spans.WORKFLOW_NAME] == SPEC.name
    assert root.attributes["findesk.as_of"] == AS_OF and root.attributes["findesk.data_mode"] == "snapshot"
    total = sum(e.data.cost_usd for e in llm_calls if isinstance(e.data, LlmCall))
    assert root.attributes[spans.COST_USD] == pytest.approx(total, abs=1e-5)
    assert root.span.status.code != Status.STATUS_CODE_ERROR

    # the same events, re-exported from the record (``findesk runs export-otlp``), draw the same spans
    with Receiver() as again:
        assert otel.export_events(events, _traced(base_settings, again.endpoint), timeout_s=10)
        redrawn = again.wait_for(expected)
    assert sorted(map(_shape, redrawn)) == sorted(map(_shape, got))


def test_a_collector_that_is_down_costs_the_run_nothing_but_one_warning(
    base_settings: Settings, tools: ToolContext, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = _traced(base_settings, _dead_endpoint(), timeout_s=3.0)
    untraced_began = time.monotonic()
    _ask(base_settings, tools)
    untraced = time.monotonic() - untraced_began
    began = time.monotonic()
    report, _events = _ask(settings, tools)
    took = time.monotonic() - began
    assert not isinstance(report, Err), report
    # the export is in the background: the run does not wait for a collector's timeout or retries
    assert took < untraced + 2.0, (took, untraced)
    _ask(settings, tools)  # a second run while it is still down
    otel.flush(8.0)
    warnings = [line for line in capsys.readouterr().err.splitlines() if "traces could not be sent" in line]
    assert len(warnings) == 1, warnings


def test_a_refused_run_is_one_error_span(base_settings: Settings, receiver: Receiver) -> None:
    report, events = run_spec(SPEC, _traced(base_settings, receiver.endpoint), None, {}, as_of=AS_OF)
    assert isinstance(report, Err) and len(events) == 1
    (span,) = receiver.wait_for(1)
    assert span.span.name == f"invoke_workflow {SPEC.name}" and span.span.parent_span_id == b""
    assert span.span.status.code == Status.STATUS_CODE_ERROR
    assert span.attributes[spans.ERROR_TYPE] == report.code.value


def test_nothing_is_exported_by_default_and_opentelemetry_is_not_loaded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert Settings().telemetry.otlp_endpoint is None
    assert otel.telemetry_sinks(Settings(), "run", workflow="brief") == []
    probe = (
        "import sys\n"
        "from findesk.core.config import Settings\n"
        "from findesk.core.events.otel import telemetry_sinks\n"
        "import findesk.workflows.runner\n"
        "assert telemetry_sinks(Settings(), 'run', workflow='brief') == []\n"
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    # the environment switches it on
    monkeypatch.setenv("FINDESK_TELEMETRY__OTLP_ENDPOINT", "http://127.0.0.1:4318/v1/traces")
    assert Settings().telemetry.otlp_endpoint == "http://127.0.0.1:4318/v1/traces"


def test_without_opentelemetry_installed_a_run_goes_on_after_one_warning(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "findesk.core.events.otlp_sink", None)  # import fails
    monkeypatch.setattr(otel, "_WARNED", threading.Event())
    settings = Settings(telemetry=TelemetrySettings(otlp_endpoint="http://127.0.0.1:9/v1/traces"))
    assert otel.telemetry_sinks(settings, "run", workflow="brief") == []
    assert otel.telemetry_sinks(settings, "run2", workflow="brief") == []
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "OpenTelemetry is not installed" in err[0] and "findesk[otel]" in err[0]


def test_the_attribute_names_are_the_installed_semantic_conventions() -> None:
    from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
    from opentelemetry.semconv.attributes import error_attributes

    assert spans.OPERATION == gen_ai.GEN_AI_OPERATION_NAME
    assert spans.PROVIDER == gen_ai.GEN_AI_PROVIDER_NAME
    assert spans.REQUEST_MODEL == gen_ai.GEN_AI_REQUEST_MODEL
    assert spans.INPUT_TOKENS == gen_ai.GEN_AI_USAGE_INPUT_TOKENS
    assert spans.OUTPUT_TOKENS == gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS
    assert spans.CACHE_READ_TOKENS == gen_ai.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS
    assert spans.CACHE_WRITE_TOKENS == gen_ai.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS
    assert spans.AGENT_NAME == gen_ai.GEN_AI_AGENT_NAME
    assert spans.WORKFLOW_NAME == gen_ai.GEN_AI_WORKFLOW_NAME
    assert spans.TOOL_NAME == gen_ai.GEN_AI_TOOL_NAME
    assert spans.TOOL_CALL_ID == gen_ai.GEN_AI_TOOL_CALL_ID
    assert spans.TOOL_TYPE == gen_ai.GEN_AI_TOOL_TYPE
    assert spans.ERROR_TYPE == error_attributes.ERROR_TYPE
    operations = {v.value for v in gen_ai.GenAiOperationNameValues}
    assert {"invoke_workflow", "invoke_agent", "execute_tool", "chat"} <= operations
