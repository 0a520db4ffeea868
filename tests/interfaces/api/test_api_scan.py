"""``POST /v1/scan`` and ``POST /v1/pipeline``: the scanner over SSE on the real snapshot — a section per
phase as it lands, one ``done`` with 8-10 stocks to investigate, the scan's date as the run's as-of date;
an unknown field or a later date is refused before the stream opens; the pipeline streams its desk rows
and its report names each desk run."""

from __future__ import annotations

from typing import Any

import pytest
from api_kit import MakeApi, Sse, parse_sse
from fastapi.testclient import TestClient

PHASES = ["geopolitical", "movers", "sectors", "industries", "synthesis"]


def _post(client: TestClient, path: str, body: dict[str, Any]) -> tuple[int, list[Sse], Any, str]:
    response = client.post(path, json=body)
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        return response.status_code, parse_sse(response.text), None, response.headers.get("x-run-id", "")
    return response.status_code, [], response.json(), ""


def test_a_scan_streams_each_phase_then_the_synthesis(make_api: MakeApi) -> None:
    client = make_api()
    status, frames, error, run_id = _post(client, "/v1/scan", {"date": "2025-08-29", "mode": "deterministic"})
    assert status == 200, error
    sections = [f.data["data"] for f in frames if f.event == "section"]
    names = [s["name"] for s in sections]
    assert set(names) == set(PHASES)
    assert max(names.index(p) for p in PHASES[:3]) < names.index("industries") < names.index("synthesis")
    kinds = [f.event for f in frames]
    assert kinds.count("done") == 1 and "error" not in kinds
    report = frames[kinds.index("done")].data["data"]["result"]
    assert report["date"] == "2025-08-29"
    picks = report["synthesis"]["stocks_to_investigate"]
    assert 8 <= len(picks) <= 10
    last = [s for s in sections if s["name"] == "synthesis"][-1]
    assert last["message"] == f"{len(picks)} stocks to investigate"
    assert f'id="candidate-{picks[0]["ticker"]}"' in last["html"]
    page = client.get(f"/v1/runs/{run_id}/report.html")
    assert page.status_code == 200 and 'id="stocks-to-investigate"' in page.text


def test_an_unknown_field_or_a_later_date_is_refused_before_the_stream(make_api: MakeApi) -> None:
    client = make_api()
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("/v1/scan", {"date": "2025-08-29", "tickers": ["NVDA"]}, "tickers"),
        ("/v1/scan", {"date": "29/08/2025"}, "date"),
        ("/v1/scan", {"date": "2025-08-29", "as_of": "2025-08-01"}, "after the run's as-of date"),
        ("/v1/pipeline", {"date": "2025-08-29", "top": 6}, "top"),
        ("/v1/pipeline", {"date": "2025-08-29", "user": "someone-else"}, "user"),
    ]
    for path, body, needle in cases:
        status, frames, error, _ = _post(client, path, body)
        assert status in (400, 422), (body, status)
        assert not frames
        assert needle in error["error"]["message"], (body, error)


def test_the_pipeline_streams_its_desk_rows_and_names_each_run(make_api: MakeApi) -> None:
    client = make_api()
    body = {"date": "2025-08-29", "top": 2, "mode": "deterministic"}
    status, frames, error, _ = _post(client, "/v1/pipeline", body)
    assert status == 200, error
    kinds = [f.event for f in frames]
    assert kinds.count("done") == 1 and "error" not in kinds  # a child's done never ends the stream
    desks = [f.data["data"] for f in frames if f.event == "section" and f.data["data"]["name"] == "desks"]
    assert desks and desks[-1]["message"] == "2 rated, 0 not rated"
    report = frames[kinds.index("done")].data["data"]["result"]
    assert [r["status"] for r in report["rows"]] == ["ok", "ok"]
    for row in report["rows"]:
        assert row["run_id"] in desks[-1]["html"]
        assert client.get(f"/v1/runs/{row['run_id']}").status_code == 200  # recorded in the audit log


def test_the_listing_offers_both_forms(make_api: MakeApi) -> None:
    listed = {w["name"]: w for w in make_api().get("/v1/workflows").json()}
    assert [s["name"] for s in listed["scan"]["sections"]] == PHASES
    assert set(listed["scan"]["input_schema"]["properties"]) == {"date"}
    props = listed["pipeline"]["input_schema"]["properties"]
    assert set(props) == {"date", "top"}  # the user is the caller's key, never a field


def test_a_keys_pipeline_is_charged_every_child_runs_model_cost(make_api: MakeApi) -> None:
    """The desks' and the scan's model calls are the pipeline's cost: the key pays for all of them
    (a pipeline must not be a way around the daily cost cap), while the stream shows the pipeline only."""
    from datetime import UTC, datetime

    from findesk.agents.role import Role
    from findesk.core.access import spent_today
    from findesk.core.config import ApiTier
    from findesk.core.llm.chain import ModelChain
    from findesk.core.result import Err, Result
    from findesk.testing.fake_scan_models import scan_models
    from findesk.testing.fake_trade_models import trade_models

    trade, _ = trade_models()
    scan, _ = scan_models("good")

    def resolve(role: Role[Any, Any]) -> Result[ModelChain]:
        return scan(role) if role.name == "scan_synthesis" else trade(role)

    client = make_api(require_keys=True, tiers={"pro": ApiTier(rpm=100, daily_cost_usd=50.0)}, models=resolve)
    services = client.app.state.services  # type: ignore[attr-defined]
    made = services.keys.create("desk", "pro", tiers=services.settings.api.tiers)
    assert not isinstance(made, Err), made
    key, secret = made.value
    response = client.post(
        "/v1/pipeline",
        json={"date": "2025-08-29", "top": 2, "mode": "model"},
        headers={"Authorization": f"Bearer {secret}"},
    )
    assert response.status_code == 200, response.text
    frames = parse_sse(response.text)
    run_id = response.headers["x-run-id"]
    assert {f.data["run_id"] for f in frames} == {run_id}  # no child event in the stream
    kinds = [f.event for f in frames]
    assert kinds.count("done") == 1
    report = frames[kinds.index("done")].data["data"]["result"]
    assert [r["status"] for r in report["rows"]] == ["ok", "ok"]
    children = sum(r["cost_usd"] for r in report["rows"])
    assert children > 0.05  # two desks of 17 model calls each
    spent = spent_today(services.keys, key.id, datetime.now(UTC))
    assert not isinstance(spent, Err), spent
    assert spent.value == pytest.approx(report["cost_usd"], rel=1e-6) and spent.value >= children


def test_a_pipeline_in_a_worker_records_its_children_and_streams_only_itself(make_api: MakeApi) -> None:
    client = make_api(workers=1)
    status, frames, error, run_id = _post(
        client, "/v1/pipeline", {"date": "2025-08-29", "top": 1, "mode": "deterministic"}
    )
    assert status == 200, error
    assert {f.data["run_id"] for f in frames} == {run_id}
    kinds = [f.event for f in frames]
    assert kinds.count("done") == 1 and "error" not in kinds
    report = frames[kinds.index("done")].data["data"]["result"]
    children = [report["scan_run_id"], *(r["run_id"] for r in report["rows"])]
    assert len(children) == 2
    for child in children:  # each child run is in the server's audit log, though it ran in a worker
        got = client.get(f"/v1/runs/{child}")
        assert got.status_code == 200, (child, got.text)
