"""``/v1/memory/facts``: a caller sees and deletes only its own facts; another key's are a 404."""

from __future__ import annotations

import pytest
from api_kit import MakeApi
from fastapi.testclient import TestClient
from pydantic import ValidationError

from findesk.core.config import ApiTier
from findesk.core.result import Err, Ok
from findesk.interfaces.api.schemas import QueryRequest
from findesk.knowledge.memory import MemoryStore, extract_facts
from findesk.knowledge.memory.models import check_session

TIERS = {"big": ApiTier(rpm=1000, daily_cost_usd=100.0)}


def new_key(client: TestClient) -> tuple[str, dict[str, str]]:
    services = client.app.state.services  # type: ignore[attr-defined]
    made = services.keys.create("desk", "big", tiers=services.settings.api.tiers)
    assert not isinstance(made, Err), made
    key, secret = made.value
    return f"key:{key.id}", {"Authorization": f"Bearer {secret}"}


def remember(client: TestClient, user: str, question: str) -> list[str]:
    store = MemoryStore.from_settings(client.app.state.services.settings)  # type: ignore[attr-defined]
    try:
        return [f.id for f in store.add_facts(user, extract_facts(question)).unwrap().stored]
    finally:
        store.close()


def test_each_key_lists_and_deletes_only_its_own_facts(make_api: MakeApi) -> None:
    client = make_api(require_keys=True, tiers=TIERS)
    alice, as_alice = new_key(client)
    bob, as_bob = new_key(client)
    assert client.get("/v1/memory/facts").status_code == 401  # keys required: no anonymous memory
    assert client.get("/v1/memory/facts", headers=as_alice).json() == {"facts": []}  # nothing yet
    aapl, btc = remember(client, alice, "I own 200 shares of AAPL and 1.5 BTC")
    (semis,) = remember(client, bob, "I follow semiconductors")

    listed = client.get("/v1/memory/facts", headers=as_alice)
    assert listed.status_code == 200
    assert [(f["id"], f["subject"], f["detail"]) for f in listed.json()["facts"]] == [
        (aapl, "AAPL", "200 shares"),
        (btc, "BTC", "1.5"),
    ]
    bobs = client.get("/v1/memory/facts", headers=as_bob).json()["facts"]
    assert [(f["id"], f["subject"]) for f in bobs] == [(semis, "semiconductors")]

    stolen = client.delete(f"/v1/memory/facts/{aapl}", headers=as_bob)
    missing = client.delete("/v1/memory/facts/000000000000", headers=as_bob)
    assert stolen.status_code == missing.status_code == 404
    assert stolen.json()["error"]["code"] == "not_found"
    assert stolen.json()["error"]["message"].replace(aapl, "ID") == missing.json()["error"][
        "message"
    ].replace("000000000000", "ID")  # the same answer whether it is another key's or no one's

    gone = client.delete(f"/v1/memory/facts/{aapl}", headers=as_alice)
    assert gone.status_code == 200 and gone.json()["fact"]["subject"] == "AAPL"
    assert client.delete(f"/v1/memory/facts/{aapl}", headers=as_alice).status_code == 404

    assert client.delete("/v1/memory/facts", headers=as_bob).json() == {"forgotten": 1, "fact": None}
    still = client.get("/v1/memory/facts", headers=as_alice).json()["facts"]
    assert [f["id"] for f in still] == [btc]  # bob forgetting all of his left alice's alone


def test_the_local_caller_has_its_own_memory_and_odd_ids_are_404(make_api: MakeApi) -> None:
    client = make_api(require_keys=False)
    (local_fact,) = remember(client, "local", "I track NVDA")
    remember(client, "key:someone", "I own 5 TSLA")
    assert [f["subject"] for f in client.get("/v1/memory/facts").json()["facts"]] == ["NVDA"]
    for odd in ("..%2F..%2Fetc", "x" * 500, "%E2%80%AE", "1%27%20OR%201%3D1", "ＡＢＣ"):
        response = client.delete(f"/v1/memory/facts/{odd}")
        assert response.status_code == 404, odd
        assert response.json()["error"]["code"] == "not_found"
    assert client.delete(f"/v1/memory/facts/{local_fact.upper()}").status_code == 200


def test_memory_routes_are_in_the_openapi_document(make_api: MakeApi) -> None:
    paths = make_api().get("/openapi.json").json()["paths"]
    assert set(paths["/v1/memory/facts"]) == {"get", "delete"}
    assert set(paths["/v1/memory/facts/{fact_id}"]) == {"delete"}


def test_a_session_id_the_store_would_refuse_is_refused_at_input(make_api: MakeApi) -> None:
    # one rule (``SESSION_PATTERN``): an id the request accepts, the store accepts, and the reverse
    for good in ("s1", "my.session-2", "A" * 64):
        assert QueryRequest(question="q", session=good).session == good
        assert isinstance(check_session(good), Ok), good
    for bad in ("_a", ".x", "-", "a:b", "a@b", "A" * 65, "a b", ""):
        with pytest.raises(ValidationError):
            QueryRequest(question="q", session=bad)
    client = make_api()
    response = client.post("/v1/query", json={"question": "NVDA revenue", "session": "_a"})
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_input"
