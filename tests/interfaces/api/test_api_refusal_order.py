"""The order in which a run request is refused: who is calling (401), then the input (400), then the key's
limits (429). A request refused for its input costs the key nothing: it does not count against its
requests per minute and leaves no ``api_requests`` row (that table says which key owns which run)."""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
import threading
from typing import Any

from api_kit import MakeApi, brief, run
from fastapi.testclient import TestClient

from findesk.core.config import ApiTier
from findesk.core.result import Err
from findesk.tools.base import Tool, ToolContext, ToolRegistry
from findesk.tools.catalog import data_tools

TIERS = {"tiny": ApiTier(rpm=3, daily_cost_usd=5.0)}
ADVICE = "Should I buy it?"


def new_key(client: TestClient) -> str:
    services = client.app.state.services  # type: ignore[attr-defined]
    made = services.keys.create("desk", "tiny", tiers=services.settings.api.tiers)
    assert not isinstance(made, Err), made
    return str(made.value[1])


def request_rows(client: TestClient) -> list[tuple[str, str | None]]:
    services = client.app.state.services  # type: ignore[attr-defined]
    path = services.settings.resolved_audit_url().removeprefix("sqlite:///")
    with sqlite3.connect(path) as conn:
        return [(str(k), r) for k, r in conn.execute("SELECT key_id, run_id FROM api_requests ORDER BY id")]


def test_refused_input_neither_uses_up_the_rate_limit_nor_leaves_request_rows(make_api: MakeApi) -> None:
    client = make_api(require_keys=True, tiers=TIERS)
    auth = {"Authorization": f"Bearer {new_key(client)}"}
    for _ in range(10):  # ten advice questions: each a 400, none counted against 3 per minute
        status, frames, error = brief(client, {"ticker": "AAPL", "question": ADVICE}, **auth)
        assert status == 400 and frames == [] and error["error"]["code"] == "refused"
    for bad in ({"ticker": "BMW.DE"}, '{"ticker": "AAPL"', {"ticker": "AAPL", "as_of": "2999-01-01"}):
        assert brief(client, bad, **auth)[0] == 400, bad
    assert run(client, "no_such_workflow", {"input": {}}, **auth)[0] == 404
    assert request_rows(client) == []  # nothing was admitted, so nothing was recorded

    status, frames, _ = brief(client, {"ticker": "AAPL"}, **auth)
    assert status == 200 and frames[-1].event == "done"
    run_id = frames[0].data["run_id"]
    assert [r for _, r in request_rows(client)] == [run_id]  # one row, for the run that was recorded


def test_a_key_over_its_limit_still_hears_about_bad_input_first(make_api: MakeApi) -> None:
    client = make_api(require_keys=True, tiers=TIERS)
    auth = {"Authorization": f"Bearer {new_key(client)}"}
    for _ in range(3):
        assert brief(client, {"ticker": "AAPL"}, **auth)[0] == 200
    assert brief(client, {"ticker": "AAPL"}, **auth)[0] == 429  # the fourth valid run in the minute
    status, _, error = brief(client, {"ticker": "AAPL", "question": ADVICE}, **auth)
    assert status == 400 and error["error"]["code"] == "refused"  # the input is what needs fixing


def test_with_keys_required_anything_posted_without_a_key_is_a_401(make_api: MakeApi) -> None:
    client = make_api(require_keys=True, tiers=TIERS)
    for body in ('{"ticker": ', "", "[]", '{"nope": 1}'):
        for path in ("/v1/brief", "/v1/runs/brief"):
            response = client.post(path, content=body, headers={"content-type": "application/json"})
            assert response.status_code == 401, (path, body, response.text)
            error = response.json()["error"]
            assert error["code"] == "unauthorized" and "findesk keys create" in error["message"]
    # a wrong key is refused before its body is looked at, too
    wrong = {"Authorization": "Bearer fdk_000000000000_" + "x" * 43, "content-type": "application/json"}
    response = client.post("/v1/brief", content='{"ticker": ', headers=wrong)
    assert response.status_code == 401 and response.json()["error"]["message"] == "unknown API key"
    assert request_rows(client) == []


def test_without_keys_required_malformed_json_is_still_a_400(make_api: MakeApi) -> None:
    client = make_api(require_keys=False)
    status, _, error = brief(client, '{"ticker": ')
    assert status == 400 and "malformed JSON" in error["error"]["message"]


def test_runs_that_cannot_reach_a_model_reserve_nothing_so_a_keys_runs_overlap(make_api: MakeApi) -> None:
    # no model is configured: a run's $1 budget is not held against the key's $1 cap while it runs
    entered, release = threading.Event(), threading.Event()

    def held(tool: Tool) -> Tool:
        async def wait(args: Any, ctx: ToolContext) -> Any:
            if getattr(args, "symbol", None) == "AAPL":
                entered.set()
                await asyncio.to_thread(release.wait, 20)
            return await tool.fn(args, ctx)

        return dataclasses.replace(tool, fn=wait)

    registry = ToolRegistry([held(t) if t.name == "get_quote" else t for t in data_tools()])
    client = make_api(
        require_keys=True, tiers={"tiny": ApiTier(rpm=100, daily_cost_usd=1.0)}, registry=registry
    )
    auth = {"Authorization": f"Bearer {new_key(client)}"}
    first: list[int] = []
    running = threading.Thread(target=lambda: first.append(brief(client, {"ticker": "AAPL"}, **auth)[0]))
    running.start()
    try:
        assert entered.wait(20)  # the first run is under way
        assert brief(client, {"ticker": "MSFT"}, **auth)[0] == 200
    finally:
        release.set()
        running.join(30)
    assert first == [200]
