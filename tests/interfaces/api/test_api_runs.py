"""``POST /v1/runs/{workflow}`` and ``GET /v1/workflows``: any registered workflow is listed and served
over SSE — here one the API has never heard of (``API`` in ``plugin_workflows``, plugged in through
``FINDESK_WORKFLOWS``), the briefing and a single agent — in this process and in a worker process, with
the same refusals, audit record and metrics as ``POST /v1/brief``."""

from __future__ import annotations

from typing import Any

import pytest
from api_kit import MakeApi, brief, parse_sse, run

from findesk.core.events.model import EVENT_TYPES
from findesk.workflows.brief.models import SECTION_NAMES, Briefing
from findesk.workflows.registry import PLUGINS_ENV
from plugin_workflows import NoteReport, SymbolIn, target

AS_OF = "2025-08-29"


@pytest.fixture(autouse=True)
def plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    # set before any app starts: worker processes inherit the environment when they are spawned
    monkeypatch.setenv(PLUGINS_ENV, target("API"))


def _check_stream(frames: list[Any], run_id: str) -> None:
    kinds = [f.event for f in frames]
    assert kinds[-1] == "done" and kinds.count("done") == 1 and "error" not in kinds, kinds
    assert set(kinds) <= set(EVENT_TYPES)
    for f in frames:  # one event envelope per frame; its SSE name and id match the payload
        assert f.event == f.data["data"]["type"] and f.id == str(f.data["seq"])
        assert f.data["run_id"] == run_id
    assert [f.data["seq"] for f in frames] == list(range(1, len(frames) + 1))
    opening = frames[0].data
    assert opening["parent_id"] is None and opening["data"]["type"] == "agent_start"


def test_a_plugged_in_workflow_is_streamed_recorded_and_read_back(make_api: MakeApi) -> None:
    client = make_api()
    response = client.post("/v1/runs/test", json={"input": {"symbol": "aapl"}, "as_of": AS_OF})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    run_id = response.headers["x-run-id"]
    frames = parse_sse(response.text)
    _check_stream(frames, run_id)
    assert frames[0].data["data"]["agent"] == "test"
    assert frames[0].data["data"]["inputs"] == {"symbol": "AAPL", "as_of": AS_OF}  # checked input
    kinds = [f.event for f in frames]
    sections = [f.data["data"]["name"] for f in frames if f.event == "section"]
    assert sections == ["price", "note"] and kinds.index("section") < kinds.index("done")
    report = NoteReport.model_validate(frames[-1].data["data"]["result"])
    assert report.symbol == "AAPL" and report.price == pytest.approx(232.14)
    assert report.company and "Apple" in report.company
    assert report.agents == ["api_test_pricer", "api_test_namer"] and report.tool_calls == 2
    assert kinds.count("tool_call") == 2

    # recorded in the audit log, and readable the moment the stream has ended
    view = client.get(f"/v1/runs/{run_id}")
    assert view.status_code == 200
    body = view.json()
    assert body["workflow"] == "test" and body["briefing"] is None
    assert body["result"] == frames[-1].data["data"]["result"]
    assert body["run"]["status"] == "done" and body["run"]["event_count"] == len(frames)
    assert body["run"]["title"].startswith("test AAPL")
    events = client.get(f"/v1/runs/{run_id}/events").json()["events"]
    assert [e["id"] for e in events] == [f.data["id"] for f in frames]

    metrics = client.get("/metrics").text
    assert 'findesk_runs_total{status="done",workflow="test"} 1.0' in metrics
    assert 'findesk_run_first_event_seconds_count{workflow="test"} 1.0' in metrics
    assert (
        'findesk_http_requests_total{method="POST",route="/v1/runs/{workflow}",status="200"} 1.0' in metrics
    )


def test_workflows_lists_every_workflow_and_agent_with_its_input_schema(make_api: MakeApi) -> None:
    client = make_api()
    response = client.get("/v1/workflows")
    assert response.status_code == 200
    listed = {w["name"]: w for w in response.json()}
    assert {"brief", "test", "agents.quote_filings"} <= set(listed)
    test = listed["test"]
    assert test["title"] == "API test workflow" and test["kind"] == "workflow"
    assert test["description"].startswith("Two fake agents")
    assert test["input_schema"] == SymbolIn.model_json_schema()
    assert test["input_schema"]["required"] == ["symbol"]
    assert test["sections"] == [{"name": "price", "title": "Price"}, {"name": "note", "title": "Note"}]
    assert [s["name"] for s in listed["brief"]["sections"]] == list(SECTION_NAMES)
    assert set(listed["brief"]["input_schema"]["properties"]) == {"ticker", "question"}
    agent = listed["agents.quote_filings"]
    assert agent["kind"] == "agent" and agent["sections"] == []
    assert agent["input_schema"]["properties"]["symbol"]["type"] == "string"
    assert all(w["kind"] == "agent" for n, w in listed.items() if n.startswith("agents."))
    assert "/v1/workflows" in client.get("/openapi.json").json()["paths"]


@pytest.mark.parametrize(
    ("workflow", "body", "status", "code", "words"),
    [
        ("nothing", {"input": {"symbol": "AAPL"}}, 404, "not_found", "unknown workflow 'nothing'"),
        ("agents.nobody", {"input": {"symbol": "AAPL"}}, 404, "not_found", "unknown role"),
        ("test", {"input": {}}, 400, "invalid_input", "symbol: Field required"),
        ("test", {"input": {"symbol": "AAPL", "colour": "red"}}, 400, "invalid_input", "colour"),
        ("test", {"input": {"symbol": "A" * 13}}, 400, "invalid_input", "at most 12 characters"),
        ("test", {"input": {"symbol": "BMW.DE"}}, 400, "out_of_scope", "US listings only"),
        ("test", {"input": {"symbol": "AAPL"}, "colour": "red"}, 400, "invalid_input", "unknown field"),
        ("test", {"input": {"symbol": "AAPL"}, "as_of": "2099-01-01"}, 400, "invalid_input", "future"),
        ("test", {"input": {"symbol": "AAPL"}, "mode": "fast"}, 400, "invalid_input", "mode"),
        ("test", {"input": "AAPL"}, 400, "invalid_input", "input"),
        ("brief", {"input": {"ticker": "AAPL", "question": "Should I buy?"}}, 400, "refused", "advice"),
        ("brief", {"input": {"symbol": "AAPL"}}, 400, "invalid_input", "ticker"),
    ],
)
def test_refused_runs_are_json_errors_before_any_run(
    make_api: MakeApi, workflow: str, body: dict[str, Any], status: int, code: str, words: str
) -> None:
    client = make_api()
    got, frames, error = run(client, workflow, body)
    assert got == status and frames == [], error
    assert error["error"]["code"] == code
    assert words.lower() in error["error"]["message"].lower(), error
    services = client.app.state.services  # type: ignore[attr-defined]
    assert services.audit.list_runs() == []  # refused before any run was recorded
    # the workflow's refusals are counted (the body's own schema and the date are checked before)
    if set(body) == {"input"} and isinstance(body["input"], dict):
        assert f'findesk_requests_rejected_total{{code="{code}"}} 1.0' in client.get("/metrics").text


def test_the_briefing_runs_through_the_generic_route_too(make_api: MakeApi) -> None:
    client = make_api()
    response = client.post("/v1/runs/brief", json={"input": {"ticker": "msft"}, "as_of": AS_OF})
    assert response.status_code == 200
    frames = parse_sse(response.text)
    _check_stream(frames, response.headers["x-run-id"])
    assert sorted(f.data["data"]["name"] for f in frames if f.event == "section") == sorted(SECTION_NAMES)
    b = Briefing.model_validate(frames[-1].data["data"]["result"])
    assert b.symbol == "MSFT"
    view = client.get(f"/v1/runs/{response.headers['x-run-id']}").json()
    assert (
        view["workflow"] == "brief"
        and view["briefing"] == view["result"] == frames[-1].data["data"]["result"]
    )
    # and the briefing's own route is the same run, labelled the same in the metrics
    status, again, _ = brief(client, {"ticker": "MSFT", "as_of": AS_OF})
    # (parallel agents interleave their events differently from run to run: compare the counts)
    assert status == 200 and sorted(f.event for f in again) == sorted(f.event for f in frames)
    metrics = client.get("/metrics").text
    assert 'findesk_runs_total{status="done",workflow="brief"} 2.0' in metrics


def test_a_single_agent_runs_as_a_workflow(make_api: MakeApi) -> None:
    client = make_api()
    status, frames, _ = run(
        client, "agents.quote_filings", {"input": {"symbol": "nvda"}, "mode": "deterministic"}
    )
    assert status == 200
    _check_stream(frames, frames[0].data["run_id"])
    report = frames[-1].data["data"]["result"]
    assert report["role"] == "quote_filings" and report["output"]["symbol"] == "NVDA"
    assert report["mode"] == "deterministic" and report["output"]["price"] is not None
    view = client.get(f"/v1/runs/{frames[0].data['run_id']}").json()
    assert view["workflow"] == "agents.quote_filings" and view["result"] == report


def test_a_plugged_in_workflow_runs_in_a_worker_process(make_api: MakeApi) -> None:
    client = make_api(workers=1)
    services = client.app.state.services  # type: ignore[attr-defined]
    assert services.pool is not None and services.pool.workers == 1
    status, frames, _ = run(client, "test", {"input": {"symbol": "NVDA"}, "as_of": AS_OF})
    assert status == 200
    run_id = frames[0].data["run_id"]
    _check_stream(frames, run_id)  # one sequence across the server and the worker
    assert frames[-2].data["data"]["type"] == "agent_end"
    assert [f.data["data"]["name"] for f in frames if f.event == "section"] == ["price", "note"]
    report = NoteReport.model_validate(frames[-1].data["data"]["result"])
    assert report.symbol == "NVDA" and report.price is not None and report.tool_calls == 2
    view = client.get(f"/v1/runs/{run_id}").json()
    assert view["workflow"] == "test" and view["run"]["status"] == "done"
    assert view["run"]["event_count"] == len(frames)
    assert 'findesk_runs_total{status="done",workflow="test"} 1.0' in client.get("/metrics").text
