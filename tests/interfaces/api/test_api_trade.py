"""``POST /v1/trade``: the trading desk over SSE on the real snapshot — its sections stream as each role
lands, one ``done`` carries the report with ``final_decision.rating``, the decision date is the run's
as-of date, a bad body is refused before the stream opens, and an unknown ticker ends the stream with an
error event."""

from __future__ import annotations

from typing import Any

from api_kit import MakeApi, Sse, parse_sse
from fastapi.testclient import TestClient

RATINGS = {"BUY", "OVERWEIGHT", "HOLD", "UNDERWEIGHT", "SELL"}
SECTIONS = ["identity", "analysts", "debate", "decision", "plan", "risk", "final"]


def _post(client: TestClient, body: dict[str, Any]) -> tuple[int, list[Sse], Any, str]:
    response = client.post("/v1/trade", json=body)
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        return response.status_code, parse_sse(response.text), None, response.headers.get("x-run-id", "")
    return response.status_code, [], response.json(), ""


def test_a_run_streams_every_section_and_a_rated_decision(make_api: MakeApi) -> None:
    client = make_api()
    # non-default rounds and no as_of: both must reach the workflow (as_of defaults to the date)
    body = {
        "ticker": "NVDA",
        "date": "2024-05-10",
        "debate_rounds": 3,
        "risk_rounds": 1,
        "mode": "deterministic",
    }
    status, frames, error, run_id = _post(client, body)
    assert status == 200, error
    sections = [f.data["data"] for f in frames if f.event == "section"]
    names = [s["name"] for s in sections]
    assert names[0] == "identity" and set(names) == set(SECTIONS)
    assert names.index("analysts") < names.index("debate") < names.index("decision") < names.index("plan")
    assert names.index("plan") < names.index("risk") < names.index("final")
    assert "NVIDIA" in sections[0]["html"] and "1045810" in sections[0]["html"]
    analysts = [s["message"] for s in sections if s["name"] == "analysts"]
    assert analysts[-1] == "4 of 4 analysts" and len(analysts) >= 4  # re-emitted as each report lands
    debate = [s["message"] for s in sections if s["name"] == "debate"]
    assert debate[:6] == [f"{n} turn{'s' if n > 1 else ''}" for n in range(1, 7)]  # turn by turn
    kinds = [f.event for f in frames]
    assert kinds.count("done") == 1 and "error" not in kinds
    report = frames[kinds.index("done")].data["data"]["result"]
    assert report["as_of"] == "2024-05-10"
    assert report["identity"]["ticker"] == "NVDA" and report["identity"]["cik"] == 1045810
    final = report["final_decision"]
    assert final["rating"] in RATINGS and 0 <= final["position_pct"] <= 100
    assert [t["side"] for t in report["investment_debate"]] == ["bull", "bear"] * 3
    assert [t["side"] for t in report["risk_debate"]] == ["aggressive", "conservative", "neutral"]
    # the streamed final section says what the report says
    last_final = [s for s in sections if s["name"] == "final"][-1]
    assert last_final["message"].startswith(final["rating"])
    page = client.get(f"/v1/runs/{run_id}/report.html")
    assert page.status_code == 200 and 'id="final-decision"' in page.text and "NVIDIA" in page.text


def test_a_bad_body_is_refused_before_the_stream_with_a_clear_message(make_api: MakeApi) -> None:
    client = make_api()
    cases: list[tuple[dict[str, Any], str]] = [
        ({"ticker": "NVDA", "date": "2024-05-10", "debate_round": 3}, "debate_round"),
        ({"ticker": "NVDA", "date": "2024-05-10", "debate_rounds": 9}, "debate_rounds"),
        ({"ticker": "NVDA", "date": "10/05/2024"}, "date"),
        ({"date": "2024-05-10"}, "ticker"),
        ({"ticker": "NVDA", "params": {"decision": {"buyy": 1.0}}}, "buyy"),
        ({"ticker": "NVDA", "date": "2024-05-10", "as_of": "2024-01-02"}, "after the run's as-of date"),
    ]
    for body, needle in cases:
        status, frames, error, _ = _post(client, body)
        assert status in (400, 422), (body, status)
        assert not frames
        assert needle in error["error"]["message"], (body, error)


def test_an_unknown_ticker_ends_the_stream_with_an_error_and_no_decision(make_api: MakeApi) -> None:
    client = make_api()
    status, frames, error, _ = _post(
        client, {"ticker": "NESN", "date": "2024-05-10", "mode": "deterministic"}
    )
    assert status == 200, error
    kinds = [f.event for f in frames]
    assert kinds[-1] == "error" and "done" not in kinds
    assert "analysts" not in [f.data["data"]["name"] for f in frames if f.event == "section"]
    assert "NESN" in frames[-1].data["data"]["message"]


def test_the_listing_offers_the_trade_form_without_the_user(make_api: MakeApi) -> None:
    listed = {w["name"]: w for w in make_api().get("/v1/workflows").json()}
    trade = listed["trade"]
    props = trade["input_schema"]["properties"]
    assert {"ticker", "date", "debate_rounds", "risk_rounds", "params"} <= set(props)
    assert "user" not in props  # bound to the caller's key, never a field
    assert [s["name"] for s in trade["sections"]] == SECTIONS
    assert "html" in trade["formats"]
