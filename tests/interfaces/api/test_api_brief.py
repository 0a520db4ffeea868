"""``POST /v1/brief`` over SSE, the runs read back from the audit log, and the API's JSON errors."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from api_kit import MakeApi, brief, parse_sse

from findesk.core.events.model import EVENT_TYPES, event_registry
from findesk.core.result import Err, ErrorCode
from findesk.tools.base import Tool, ToolContext, ToolRegistry
from findesk.tools.catalog import data_tools
from findesk.workflows.brief.models import SECTION_NAMES, Briefing


def registry_with(name: str, change: Any) -> ToolRegistry:
    return ToolRegistry([change(t) if t.name == name else t for t in data_tools()])


def failing(tool: Tool) -> Tool:
    async def down(args: Any, ctx: ToolContext) -> Err:
        return Err(ErrorCode.UNAVAILABLE, f"{tool.name} is down (planted)", "test")

    return dataclasses.replace(tool, fn=down)


def test_brief_streams_events_sections_first_and_ends_with_the_briefing(make_api: MakeApi) -> None:
    client = make_api()
    status, frames, _ = brief(client, {"ticker": "aapl", "as_of": "2025-08-29"})
    assert status == 200
    kinds = [f.event for f in frames]
    assert kinds[-1] == "done" and kinds.count("done") == 1 and "error" not in kinds
    assert set(kinds) <= set(EVENT_TYPES)
    for f in frames:  # every frame is one event envelope, its SSE name and id match the payload
        assert f.event == f.data["data"]["type"] and f.id == str(f.data["seq"])
    assert [f.data["seq"] for f in frames] == sorted(f.data["seq"] for f in frames)
    sections = [f.data["data"]["name"] for f in frames if f.event == "section"]
    assert sorted(sections) == sorted(SECTION_NAMES)
    assert kinds.index("section") < kinds.index("done")
    b = Briefing.model_validate(frames[-1].data["data"]["result"])
    assert b.symbol == "AAPL" and b.as_of.isoformat() == "2025-08-29"
    assert b.snapshot.quote is not None and b.snapshot.quote.price == pytest.approx(232.14)
    assert len(b.audit.tool_calls) == kinds.count("tool_call") >= 10


def test_the_run_is_readable_from_the_audit_log_as_soon_as_the_stream_ends(make_api: MakeApi) -> None:
    client = make_api()
    response = client.post("/v1/brief", json={"ticker": "MSFT"})
    run_id = response.headers["x-run-id"]
    streamed = parse_sse(response.text)
    run = client.get(f"/v1/runs/{run_id}")
    assert run.status_code == 200
    body = run.json()
    assert body["run"]["status"] == "done" and body["run"]["event_count"] == len(streamed)
    assert body["briefing"] == streamed[-1].data["data"]["result"]
    events = client.get(f"/v1/runs/{run_id[:10]}/events").json()  # a unique prefix works too
    assert events["run_id"] == run_id
    assert [e["id"] for e in events["events"]] == [f.data["id"] for f in streamed]


@pytest.mark.parametrize(
    ("body", "code", "words"),
    [
        ('{"ticker": "AAPL"', "invalid_input", "malformed JSON"),
        ("[1, 2]", "invalid_input", "JSON object"),
        ({"ticker": "AAPL", "question": "x" * 2001}, "invalid_input", "at most 2,000 characters (got 2,001)"),
        ({"ticker": "A" * 2001}, "invalid_input", "at most 2,000 characters"),
        ({"ticker": "BMW.DE"}, "out_of_scope", "US listings only"),
        ({"ticker": "AAPL", "question": "Should I buy AAPL now?"}, "refused", "advice"),
        ({"ticker": "AAPL", "as_of": "2099-01-01"}, "invalid_input", "future"),
        ({"ticker": "AAPL", "as_of": "yesterday"}, "invalid_input", "as_of"),
        ({"symbol": "AAPL"}, "invalid_input", "ticker is required"),
        ({"ticker": "AAPL", "colour": "red"}, "invalid_input", "unknown field"),
    ],
)
def test_bad_requests_are_400_with_a_json_reason_and_start_no_run(
    make_api: MakeApi, body: dict[str, Any] | str, code: str, words: str
) -> None:
    client = make_api()
    status, frames, error = brief(client, body)
    assert status == 400 and frames == []
    assert error["error"]["code"] == code
    assert words.lower() in error["error"]["message"].lower(), error
    services = client.app.state.services  # type: ignore[attr-defined]
    assert services.audit.list_runs() == []  # refused before any run was recorded


def test_an_oversized_body_is_refused_before_it_is_read(make_api: MakeApi) -> None:
    client = make_api()
    status, _, error = brief(client, '{"ticker": "AAPL", "question": "' + "x" * 70_000 + '"}')
    assert status == 413 and error["error"]["code"] == "payload_too_large"


def test_unknown_run_and_route_are_json_404s(make_api: MakeApi) -> None:
    client = make_api()
    assert client.get("/v1/runs/abcdef0123").json()["error"]["code"] == "not_found"
    assert client.get("/v1/runs/abcdef0123").status_code == 404
    assert client.get("/v1/nothing").json()["error"]["code"] == "not_found"
    assert client.get("/v1/runs/../../etc").status_code == 404


def test_a_failing_source_shows_as_a_warning_in_the_stream_and_a_tool_error_metric(make_api: MakeApi) -> None:
    client = make_api(registry=registry_with("get_quote", failing))
    status, frames, _ = brief(client, {"ticker": "AAPL"})
    assert status == 200 and frames[-1].event == "done"
    results = [
        f.data["data"] for f in frames if f.event == "tool_result" and f.data["data"]["name"] == "get_quote"
    ]
    assert results and all(not r["ok"] and r["error_code"] == "unavailable" for r in results)
    snapshot = next(
        f.data["data"] for f in frames if f.event == "section" and f.data["data"]["name"] == "snapshot"
    )
    assert "Live quote unavailable" in snapshot["html"]
    metrics = client.get("/metrics").text
    assert (
        f'findesk_tool_errors_total{{code="unavailable",tool="get_quote"}} {float(len(results))}' in metrics
    )
    assert 'findesk_tool_calls_total{tool="get_risk_factors"} 1.0' in metrics
    assert 'findesk_runs_total{status="done",workflow="brief"} 1.0' in metrics
    assert 'findesk_http_requests_total{method="POST",route="/v1/brief",status="200"} 1.0' in metrics
    assert "findesk_http_request_duration_seconds_bucket" in metrics
    assert 'findesk_run_first_event_seconds_count{workflow="brief"} 1.0' in metrics


def test_model_runs_count_tokens_and_cost_in_metrics(make_api: MakeApi) -> None:
    from findesk.testing.fake_briefing_models import briefing_models

    resolve, _models = briefing_models()
    client = make_api(models=resolve)
    status, frames, _ = brief(client, {"ticker": "AAPL", "mode": "model"})
    assert status == 200 and frames[-1].event == "done"
    calls = [f.data["data"] for f in frames if f.event == "llm_call"]
    assert calls
    tokens = sum(c["input_tokens"] for c in calls)
    cost = sum(c["cost_usd"] for c in calls)
    metrics = client.get("/metrics").text
    line = next(
        x for x in metrics.splitlines() if x.startswith("findesk_llm_tokens_total") and 'kind="input"' in x
    )
    assert float(line.rsplit(" ", 1)[1]) == tokens > 0
    cost_line = next(x for x in metrics.splitlines() if x.startswith("findesk_llm_cost_usd_total"))
    assert float(cost_line.rsplit(" ", 1)[1]) == pytest.approx(cost) and cost > 0


def test_health_registry_openapi_and_page(make_api: MakeApi) -> None:
    client = make_api()
    health = client.get("/healthz").json()
    assert health["status"] == "ok" and health["data"] == "offline snapshot as of 2025-08-29"
    assert health["keys_required"] is False
    assert client.get("/v1/events/registry").json() == {"types": event_registry()}
    spec = client.get("/openapi.json").json()
    assert {"/v1/brief", "/v1/runs/{run_id}", "/v1/runs/{run_id}/events", "/healthz", "/metrics"} <= set(
        spec["paths"]
    )
    assert set(spec["paths"]["/v1/brief"]["post"]["responses"]) >= {"200", "400", "401", "429"}
    assert client.get("/docs").status_code == 404  # no HTML docs: they would load from a CDN
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert client.get("/static/app.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/static/../ops.py").status_code == 404


def test_a_briefing_in_a_worker_process_streams_the_same_run(make_api: MakeApi) -> None:
    client = make_api(workers=1)
    services = client.app.state.services  # type: ignore[attr-defined]
    assert services.pool is not None and services.pool.workers == 1
    status, frames, _ = brief(client, {"ticker": "AAPL"})
    assert status == 200
    first = frames[0].data
    assert first["seq"] == 1 and first["data"]["type"] == "agent_start" and first["data"]["agent"] == "brief"
    assert [f.data["seq"] for f in frames] == list(range(1, len(frames) + 1))  # one sequence across processes
    assert frames[-1].event == "done" and frames[-2].data["data"]["type"] == "agent_end"
    assert sorted(f.data["data"]["name"] for f in frames if f.event == "section") == sorted(SECTION_NAMES)
    b = Briefing.model_validate(frames[-1].data["data"]["result"])
    assert b.snapshot.quote is not None and b.snapshot.quote.price == pytest.approx(232.14)
    run = client.get(f"/v1/runs/{first['run_id']}").json()["run"]
    assert run["status"] == "done" and run["title"].startswith("brief AAPL 2025-08-29")
    assert run["event_count"] == len(frames)


def test_a_quiet_stream_gets_keep_alive_comments(make_api: MakeApi, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from findesk.interfaces.api import run_stream

    def slow(tool: Tool) -> Tool:
        async def fn(args: Any, ctx: ToolContext) -> Any:
            await asyncio.sleep(0.3)  # a slow source (or a slow model turn)
            return await tool.fn(args, ctx)

        return dataclasses.replace(tool, fn=fn)

    monkeypatch.setattr(run_stream, "PING_S", 0.05)
    # every tool waits first: all calls start together, then nothing happens for 0.3 s
    client = make_api(registry=ToolRegistry([slow(t) for t in data_tools()]))
    response = client.post("/v1/brief", json={"ticker": "AAPL"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    assert ": ping\n\n" in response.text
    assert parse_sse(response.text)[-1].event == "done"
