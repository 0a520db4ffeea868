"""``POST /v1/scan`` and ``POST /v1/pipeline``: the scanner over SSE on the real snapshot — a section per
phase as it lands, one ``done`` with 8-10 stocks to investigate, the scan's date as the run's as-of date;
an unknown field or a later date is refused before the stream opens; the pipeline streams its desk rows
and its report names each desk run."""

from __future__ import annotations

from typing import Any

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
