"""``POST /v1/query``: the research desk over SSE, bound to the caller's key (sessions and facts are
per key; a body can never name another user), with the disclaimer only a team-tier key may drop."""

from __future__ import annotations

from api_kit import MakeApi, parse_sse, run
from fastapi.testclient import TestClient

from findesk.core.config import ApiTier
from findesk.core.result import Err

TIERS = {"pro": ApiTier(rpm=1000, daily_cost_usd=100.0), "team": ApiTier(rpm=1000, daily_cost_usd=100.0)}


def _key(client: TestClient, tier: str) -> tuple[str, dict[str, str]]:
    services = client.app.state.services  # type: ignore[attr-defined]
    made = services.keys.create("desk", tier, tiers=services.settings.api.tiers)
    assert not isinstance(made, Err), made
    key, secret = made.value
    return f"key:{key.id}", {"Authorization": f"Bearer {secret}"}


def _query(client: TestClient, body: dict[str, object], headers: dict[str, str]) -> tuple[int, list, object]:
    response = client.post("/v1/query", json=body, headers=headers)
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        return response.status_code, parse_sse(response.text), None
    return response.status_code, [], response.json()


def test_a_question_streams_its_plan_its_desk_and_a_cited_answer(make_api: MakeApi) -> None:
    client = make_api()
    status, frames, _ = _query(client, {"question": "What was NVDA revenue last quarter?"}, {})
    assert status == 200
    sections = [f.data["data"]["name"] for f in frames if f.event == "section"]
    assert sections[0] == "plan" and "equity" in sections and sections[-1] == "answer"
    done = [f for f in frames if f.event == "done"]
    assert len(done) == 1
    report = done[0].data["data"]["result"]
    assert report["intents"] == ["equity"] and "46,743,000,000" in report["answer"]
    assert report["citations"] and report["disclaimer"]


def test_the_run_is_bound_to_the_key_whatever_the_body_says(make_api: MakeApi) -> None:
    client = make_api(require_keys=True, tiers=TIERS)
    alice, as_alice = _key(client, "pro")
    bob, as_bob = _key(client, "pro")
    # /v1/query has no user field at all
    status, _frames, error = _query(client, {"question": "NVDA revenue", "user": bob}, as_alice)
    assert status == 400 and error["error"]["code"] == "invalid_input"  # type: ignore[index]
    # the generic route takes the workflow's input; a user named there is replaced by the caller
    status, frames, _ = run(
        client, "research", {"input": {"question": "NVDA revenue", "user": bob}}, **as_alice
    )
    assert status == 200
    assert frames[0].data["data"]["inputs"]["user"] == alice
    # a session of alice's is not bob's, though the id is the same
    _query(client, {"question": "What was NVDA revenue last quarter?", "session": "desk1"}, as_alice)
    _s, frames, _e = _query(client, {"question": "and compare it with AAPL", "session": "desk1"}, as_bob)
    report = next(f for f in frames if f.event == "done").data["data"]["result"]
    assert report["resolved_question"] == report["question"] and "NVDA" not in report["subjects"]["tickers"]
    _s, frames, _e = _query(client, {"question": "and compare it with AAPL", "session": "desk1"}, as_alice)
    report = next(f for f in frames if f.event == "done").data["data"]["result"]
    assert report["subjects"]["tickers"][:2] == ["NVDA", "AAPL"]


def test_only_a_team_key_may_turn_the_disclaimer_off(make_api: MakeApi) -> None:
    client = make_api(require_keys=True, tiers=TIERS)
    _pro, as_pro = _key(client, "pro")
    _team, as_team = _key(client, "team")
    status, _frames, error = _query(client, {"question": "NVDA revenue", "disclaimer": False}, as_pro)
    assert status == 400 and error["error"]["code"] == "refused" and "team-tier" in error["error"]["message"]  # type: ignore[index]
    status, frames, _ = _query(client, {"question": "NVDA revenue", "disclaimer": False}, as_team)
    assert status == 200
    assert next(f for f in frames if f.event == "done").data["data"]["result"]["disclaimer"] is None
