"""API keys, tiers, requests-per-minute limits and daily cost caps, as a caller meets them."""

from __future__ import annotations

from datetime import UTC, datetime

from api_kit import MakeApi, brief
from fastapi.testclient import TestClient

from findesk.core.access import admit, record_cost, spent_today
from findesk.core.config import ApiTier
from findesk.core.result import Err
from findesk.testing.fake_briefing_models import briefing_models

TIERS = {"tiny": ApiTier(rpm=3, daily_cost_usd=0.05), "big": ApiTier(rpm=100, daily_cost_usd=100.0)}


def new_key(client: TestClient, tier: str = "big", name: str = "desk") -> str:
    services = client.app.state.services  # type: ignore[attr-defined]
    made = services.keys.create(name, tier, tiers=services.settings.api.tiers)
    assert not isinstance(made, Err), made
    return str(made.value[1])


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def test_keys_required_means_401_without_or_with_a_bad_key_and_200_with_a_good_one(make_api: MakeApi) -> None:
    client = make_api(require_keys=True, tiers=TIERS)
    status, _, error = brief(client, {"ticker": "AAPL"})
    assert status == 401 and error["error"]["code"] == "unauthorized"
    assert "findesk keys create" in error["error"]["message"]
    assert brief(client, {"ticker": "BMW.DE"})[0] == 401  # who is calling is checked first
    secret = new_key(client)
    wrong = secret[:-1] + ("A" if secret[-1] != "A" else "B")
    for headers in (bearer(wrong), bearer("not-a-key"), {"Authorization": f"Basic {secret}"}):
        status, frames, error = brief(client, {"ticker": "AAPL"}, **headers)
        assert status == 401 and frames == [] and error["error"]["code"] == "unauthorized", headers
    assert client.get("/v1/runs/abcdef12").status_code == 401  # reads need a key too
    status, frames, _ = brief(client, {"ticker": "AAPL"}, **bearer(secret))
    assert status == 200 and frames[-1].event == "done"
    status, frames, _ = brief(client, {"ticker": "AAPL"}, **{"X-API-Key": secret})
    assert status == 200 and frames[-1].event == "done"


def test_a_revoked_key_is_refused_with_the_reason(make_api: MakeApi) -> None:
    client = make_api(require_keys=True, tiers=TIERS)
    secret = new_key(client)
    services = client.app.state.services  # type: ignore[attr-defined]
    key_id = secret.split("_")[1]
    services.keys.revoke(key_id)
    status, _, error = brief(client, {"ticker": "AAPL"}, **bearer(secret))
    assert status == 401 and "revoked" in error["error"]["message"]


def test_loopback_without_keys_still_checks_a_key_that_is_sent(make_api: MakeApi) -> None:
    client = make_api(require_keys=False, tiers=TIERS)
    status, _, error = brief(client, {"ticker": "AAPL"}, **bearer("fdk_000000000000_nope"))
    assert status == 401 and error["error"]["code"] == "unauthorized"


def test_requests_per_minute_limit_gives_429_with_retry_after(make_api: MakeApi) -> None:
    client = make_api(require_keys=True, tiers=TIERS)
    secret = new_key(client, "tiny")
    assert client.get("/v1/runs/abcdef12", headers=bearer(secret)).status_code == 404  # 1 (reads count)
    status, _, _ = brief(client, {"ticker": "AAPL"}, **bearer(secret))  # 2
    assert status == 200
    assert client.get("/healthz", headers=bearer(secret)).status_code == 200  # not a /v1 call: not counted
    status, _, _ = brief(client, {"ticker": "MSFT"}, **bearer(secret))  # 3
    assert status == 200
    response = client.post("/v1/brief", json={"ticker": "AAPL"}, headers=bearer(secret))  # 4: over
    assert response.status_code == 429
    body = response.json()["error"]
    assert body["code"] == "limit_reached" and "3 requests per minute" in body["message"]
    assert 1 <= int(response.headers["retry-after"]) <= 60
    other = new_key(client, "tiny", name="other desk")  # limits are per key
    assert brief(client, {"ticker": "AAPL"}, **bearer(other))[0] == 200
    metrics = client.get("/metrics").text
    assert 'findesk_requests_rejected_total{code="limit_reached"} 1.0' in metrics


def test_daily_cost_cap_stops_briefings_but_not_reads(make_api: MakeApi) -> None:
    resolve, _ = briefing_models()
    client = make_api(require_keys=True, tiers=TIERS, models=resolve)
    secret = new_key(client, "tiny")
    services = client.app.state.services  # type: ignore[attr-defined]
    key = services.keys.verify(secret).value
    response = client.post("/v1/brief", json={"ticker": "AAPL", "mode": "model"}, headers=bearer(secret))
    assert response.status_code == 200
    run_id = response.headers["x-run-id"]
    spent = spent_today(services.keys, key.id, datetime.now(UTC))
    assert not isinstance(spent, Err) and spent.value > 0  # the fake models' cost was recorded
    # spend the rest of today's $0.05 as if another run had
    extra = admit(services.keys, key, TIERS["tiny"], now=datetime.now(UTC), costly=False)
    assert not isinstance(extra, Err)
    record_cost(services.keys, extra.value.request_id, "elsewhere", 0.05)
    response = client.post("/v1/brief", json={"ticker": "AAPL"}, headers=bearer(secret))
    assert response.status_code == 429
    assert "daily cost cap of $0.05 reached" in response.json()["error"]["message"]
    assert 0 < int(response.headers["retry-after"]) <= 86_400
    assert client.get(f"/v1/runs/{run_id}", headers=bearer(secret)).status_code == 200


def test_a_key_reads_only_its_own_runs(make_api: MakeApi) -> None:
    client = make_api(require_keys=True, tiers=TIERS)
    mine, theirs = new_key(client, name="a"), new_key(client, name="b")
    response = client.post("/v1/brief", json={"ticker": "AAPL"}, headers=bearer(mine))
    run_id = response.headers["x-run-id"]
    assert client.get(f"/v1/runs/{run_id}", headers=bearer(mine)).status_code == 200
    for path in (f"/v1/runs/{run_id}", f"/v1/runs/{run_id}/events"):
        denied = client.get(path, headers=bearer(theirs))
        assert denied.status_code == 404 and denied.json()["error"]["code"] == "not_found"
