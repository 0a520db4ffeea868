"""What one API key can learn about another key's runs and about the server's files: nothing.

A key reads its own runs by id or prefix; another key's run, by full id or by a prefix both share, is
the same 404 as a run that never existed, and a "matches several runs" answer lists only the caller's
ids. No response — an error, a 404, ``/healthz`` — names a file or directory of the server. Runs are
real, through the plugged-in ``test`` workflow (two small deterministic agents), so ownership is
recorded the way the server records it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from api_kit import MakeApi
from fastapi.testclient import TestClient

from findesk.core.config import ApiTier
from findesk.core.result import Err, ErrorCode
from findesk.workflows.registry import PLUGINS_ENV
from plugin_workflows import target

TIERS = {"big": ApiTier(rpm=1000, daily_cost_usd=100.0)}


@pytest.fixture(autouse=True)
def plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PLUGINS_ENV, target("API"))


def _key(client: TestClient, name: str) -> dict[str, str]:
    services = client.app.state.services  # type: ignore[attr-defined]
    made = services.keys.create(name, "big", tiers=services.settings.api.tiers)
    assert not isinstance(made, Err), made
    return {"Authorization": f"Bearer {made.value[1]}"}


def _start(client: TestClient, headers: dict[str, str], symbol: str = "AAPL") -> str:
    response = client.post("/v1/runs/test", json={"input": {"symbol": symbol}}, headers=headers)
    assert response.status_code == 200, response.text
    return response.headers["x-run-id"]


def _shared(ids: list[str]) -> str:
    """The longest prefix every id starts with."""
    first = ids[0]
    size = next((n for n in range(len(first)) if any(i[n : n + 1] != first[n] for i in ids)), len(first))
    return first[:size]


def _private(client: TestClient) -> list[str]:
    """Every location of the server a response could leak."""
    services = client.app.state.services  # type: ignore[attr-defined]
    settings = services.settings
    return [
        services.audit.location,
        services.keys.location,
        str(settings.state_dir),
        str(settings.cache_dir),
        str(settings.resolved_snapshot_dir()),
        str(Path.home()),
        "sqlite:///",
    ]


def _leaks(client: TestClient, text: str) -> list[str]:
    return [place for place in _private(client) if place in text]


def test_another_keys_run_is_the_same_404_as_no_run_and_prefixes_resolve_among_the_callers_runs(
    make_api: MakeApi,
) -> None:
    client = make_api(require_keys=True, tiers=TIERS)
    alice, bob = _key(client, "alice"), _key(client, "bob")
    theirs = [_start(client, alice, "AAPL"), _start(client, alice, "MSFT")]
    mine = _start(client, bob, "NVDA")
    shared = _shared([*theirs, mine])  # ids start with the time: runs a second apart share 7+
    assert len(shared) >= 4, (theirs, mine)

    # by full id: the very same answer for another key's run and for a run that does not exist
    never = theirs[0][:-1] + ("0" if theirs[0][-1] != "0" else "1")
    for path in ("/v1/runs/{}", "/v1/runs/{}/events"):
        denied = client.get(path.format(theirs[0]), headers=bob)
        missing = client.get(path.format(never), headers=bob)
        assert denied.status_code == missing.status_code == 404
        assert denied.json() == {
            "error": {"code": "not_found", "message": f"no run {theirs[0]!r} for this API key"}
        }
        assert (
            missing.json()["error"]["message"].replace(never, theirs[0]) == denied.json()["error"]["message"]
        )
        assert denied.headers.get("content-length") == missing.headers.get("content-length")

    # a prefix all three runs share is bob's one run for bob ...
    found = client.get(f"/v1/runs/{shared}", headers=bob)
    assert found.status_code == 200, found.text
    assert found.json()["run"]["run_id"] == mine
    # ... and "several runs" for alice, listing hers and never bob's
    several = client.get(f"/v1/runs/{shared}", headers=alice)
    assert several.status_code == 400 and several.json()["error"]["code"] == "invalid_input"
    message = several.json()["error"]["message"]
    assert "matches several runs" in message and all(run in message for run in theirs)
    assert mine not in message

    # alice still reads her own by a unique prefix; the local caller (keys not required) would see all
    assert client.get(f"/v1/runs/{theirs[1][:-2]}", headers=alice).json()["run"]["run_id"] == theirs[1]
    for response in (denied, missing, found, several):
        assert _leaks(client, response.text) == []


def test_the_local_caller_reads_every_run_by_prefix(make_api: MakeApi) -> None:
    client = make_api()  # loopback: no keys
    first, second = _start(client, {}, "AAPL"), _start(client, {}, "MSFT")
    assert client.get(f"/v1/runs/{first}").json()["run"]["run_id"] == first
    several = client.get(f"/v1/runs/{_shared([first, second])}")
    assert several.status_code == 400
    assert first in several.json()["error"]["message"] and second in several.json()["error"]["message"]
    unknown = client.get("/v1/runs/ffffffffffffffff")
    assert unknown.status_code == 404
    assert unknown.json()["error"]["message"] == "no run 'ffffffffffffffff'"  # and not where the log is


@pytest.mark.parametrize("run_id", ["nope", "abc", "ABCDEF12", "a" * 65, "1a20-3f", "x" * 3000])
def test_an_id_that_cannot_exist_is_simply_not_found(make_api: MakeApi, run_id: str) -> None:
    client = make_api()
    for path in (f"/v1/runs/{run_id}", f"/v1/runs/{run_id}/events"):
        response = client.get(path)
        assert response.status_code == 404, response.text
        error = response.json()["error"]
        assert error["code"] == "not_found" and error["message"].startswith("no run '")
        assert len(error["message"]) < 100  # a huge id is not echoed whole


def test_healthz_says_which_database_but_never_where(make_api: MakeApi) -> None:
    client = make_api(require_keys=True, tiers=TIERS)
    response = client.get("/healthz")
    assert response.status_code == 200
    health = response.json()
    assert health["audit_log"] == "sqlite" and health["status"] == "ok"
    assert _leaks(client, response.text) == []


def test_a_failing_database_is_reported_without_its_path(
    make_api: MakeApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = make_api(require_keys=True, tiers=TIERS)
    headers = _key(client, "alice")
    services = client.app.state.services  # type: ignore[attr-defined]
    where = services.keys.location

    def failing_verify(_secret: str) -> Err:  # what database_error reports for a locked state file
        return Err(ErrorCode.UNAVAILABLE, f"cannot verify a key in {where}: database is locked")

    monkeypatch.setattr(services.keys, "verify", failing_verify)
    response = client.get("/v1/runs/abcdef12", headers=headers)
    assert response.status_code == 503 and response.json()["error"]["code"] == "unavailable"
    assert "database is locked" in response.json()["error"]["message"]
    assert _leaks(client, response.text) == [], response.text
    # a POST is authenticated by the request gate before its body is read: the same redaction holds
    posted = client.post("/v1/brief", json={"ticker": "AAPL"}, headers=headers)
    assert posted.status_code == 503 and "database is locked" in posted.json()["error"]["message"]
    assert _leaks(client, posted.text) == [], posted.text

    # the audit log failing shows in /healthz as a problem, without the log's path either
    monkeypatch.setattr(type(services.audit), "last_error", property(lambda _self: f"disk full at {where}"))
    health = client.get("/healthz")
    assert health.status_code == 503 and health.json()["status"] == "degraded"
    assert health.json()["problems"] == ["audit log: disk full at the state database"]
    assert _leaks(client, health.text) == []
