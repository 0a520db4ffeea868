"""``GET /v1/runs/{run_id}/report.html``: a recorded run's HTML report (the weekly ETF dashboard here),
read with the same keys and 404s as ``GET /v1/runs/{run_id}``, served as a document of its own under a
strict Content-Security-Policy; ``GET /v1/workflows`` says which workflows have one (``formats``).

Runs are real, on the snapshot: the weekly ETF analyst for the week ending 2025-05-23 (a small strategy:
at most 3 Technology candidates), a single agent and the plug-in ``test`` (``API`` in
``plugin_workflows``), which have none; the audit log is edited only to stand for what a test cannot
make happen (a run cut short, a record made by an older version).
"""

from __future__ import annotations

import re
import sqlite3
import stat
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from api_kit import MakeApi, parse_sse
from fastapi.testclient import TestClient

from findesk.core.config import ApiTier, Settings
from findesk.core.result import Err
from findesk.interfaces.api import report_links
from findesk.workflows.registry import PLUGINS_ENV
from plugin_workflows import target

WEEK = "2025-05-23"
STRATEGY = {
    "candidates": {"max_weekly_return_pct": -2.0, "only_sectors": ["Technology"], "max_candidates": 3}
}
TIERS = {"big": ApiTier(rpm=1000, daily_cost_usd=100.0)}
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)


def _key(client: TestClient, name: str) -> dict[str, str]:
    services = client.app.state.services  # type: ignore[attr-defined]
    made = services.keys.create(name, "big", tiers=services.settings.api.tiers)
    assert not isinstance(made, Err), made
    return {"Authorization": f"Bearer {made.value[1]}"}


def _etf_week(client: TestClient, headers: dict[str, str] | None = None) -> tuple[str, dict[str, Any]]:
    """One weekly ETF run through the API: (run id, the done event's report)."""
    response = client.post(
        "/v1/etf-weekly", json={"week_ending": WEEK, "strategy": STRATEGY}, headers=headers or {}
    )
    assert response.status_code == 200, response.text
    done = [f for f in parse_sse(response.text) if f.event == "done"]
    assert len(done) == 1, response.text[-2000:]
    return response.headers["x-run-id"], done[0].data["data"]["result"]


def _error(response: Any) -> dict[str, str]:
    assert response.headers["content-type"].startswith("application/json"), response.headers
    error: dict[str, str] = response.json()["error"]
    return error


def test_a_weekly_run_opens_as_its_dashboard_under_a_strict_policy(make_api: MakeApi) -> None:
    client = make_api()
    run_id, report = _etf_week(client)
    symbols = list(report["symbol_profiles"])
    assert 1 <= len(symbols) <= 3, symbols  # the strategy's cap, so the page below is this run's

    response = client.get(f"/v1/runs/{run_id}/report.html")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.headers["content-security-policy"] == CSP
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["cache-control"] == "no-store"
    page = response.text
    assert page.startswith("<!DOCTYPE html>") or page.lower().startswith("<!doctype html>")
    for section in ('id="executive-summary"', 'id="report-header"'):
        assert section in page, section
    assert "2025-05-23" in page and all(symbol in page for symbol in symbols)
    assert not re.search(r"<script|javascript:|\son\w+=", page, re.I)
    # the same dashboard the run folder holds (rendered again from the audit log, not read from disk)
    assert report["run_id"] == run_id and run_id in page

    # a unique prefix of the id reads the same run, as GET /v1/runs/{prefix} does
    assert client.get(f"/v1/runs/{run_id[:-3]}/report.html").text == page


def test_another_keys_run_and_an_unknown_run_are_the_same_404(make_api: MakeApi) -> None:
    client = make_api(require_keys=True, tiers=TIERS)
    alice, bob = _key(client, "alice"), _key(client, "bob")
    run_id, _report = _etf_week(client, alice)
    assert client.get(f"/v1/runs/{run_id}/report.html", headers=alice).status_code == 200

    never = run_id[:-1] + ("0" if run_id[-1] != "0" else "1")
    denied = client.get(f"/v1/runs/{run_id}/report.html", headers=bob)
    missing = client.get(f"/v1/runs/{never}/report.html", headers=bob)
    assert denied.status_code == missing.status_code == 404
    assert _error(denied) == {"code": "not_found", "message": f"no run {run_id!r} for this API key"}
    assert _error(missing)["message"].replace(never, run_id) == _error(denied)["message"]
    assert "executive-summary" not in denied.text
    # and no key at all is a 401, before any run is looked up
    assert client.get(f"/v1/runs/{run_id}/report.html").status_code == 401


@pytest.mark.parametrize("run_id", ["ffffffffffffffff", "nope", "a" * 65])
def test_an_unknown_run_is_a_404(make_api: MakeApi, run_id: str) -> None:
    response = make_api().get(f"/v1/runs/{run_id}/report.html")
    assert response.status_code == 404
    error = _error(response)
    assert error["code"] == "not_found" and error["message"].startswith("no run '")


def test_a_workflow_without_an_html_report_is_a_404_that_says_so(make_api: MakeApi) -> None:
    client = make_api()
    response = client.post(
        "/v1/runs/agents.quote_filings", json={"input": {"symbol": "AAPL"}, "mode": "deterministic"}
    )
    assert response.status_code == 200, response.text
    run_id = response.headers["x-run-id"]
    assert client.get(f"/v1/runs/{run_id}").json()["result"]["role"] == "quote_filings"  # it has a result

    report = client.get(f"/v1/runs/{run_id}/report.html")
    assert report.status_code == 404
    error = _error(report)
    assert error["code"] == "not_found"
    assert "'agents.quote_filings' has no HTML report (its formats: json)" in error["message"]
    assert f"GET /v1/runs/{run_id}" in error["message"]


def test_a_result_that_no_longer_fits_the_report_is_a_409_not_a_crash(
    make_api: MakeApi, api_settings: Settings
) -> None:
    client = make_api()
    run_id, _report = _etf_week(client)
    # an older version's record: the report model has since gained a required field it lacks
    with closing(sqlite3.connect(api_settings.state_dir / "audit.sqlite3")) as db, db:
        rows = db.execute(
            "SELECT event_id, payload FROM events WHERE run_id = ? AND type = 'done'", (run_id,)
        ).fetchall()
        assert len(rows) == 1, rows
        event_id, payload = rows[0]
        assert '"market_context":' in payload
        db.execute(
            "UPDATE events SET payload = ? WHERE event_id = ?",
            (payload.replace('"market_context":', '"market_context_v0":', 1), event_id),
        )
    assert "market_context_v0" in str(client.get(f"/v1/runs/{run_id}").json()["result"])

    response = client.get(f"/v1/runs/{run_id}/report.html")
    assert response.status_code == 409
    error = _error(response)
    assert error["code"] == "report_outdated"
    assert "market_context" in error["message"] and f"GET /v1/runs/{run_id}" in error["message"]


def test_a_run_without_a_result_or_of_a_workflow_gone_is_a_404_that_says_which(
    make_api: MakeApi, api_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PLUGINS_ENV, target("API"))  # the plug-in "test": two small agents, no HTML
    client = make_api()
    runs = []
    for symbol in ("AAPL", "MSFT"):
        response = client.post("/v1/runs/test", json={"input": {"symbol": symbol}})
        assert response.status_code == 200, response.text
        runs.append(response.headers["x-run-id"])
    unfinished, gone = runs
    # a run whose server died before its end: its events stop before the done event
    with closing(sqlite3.connect(api_settings.state_dir / "audit.sqlite3")) as db, db:
        assert (
            db.execute("DELETE FROM events WHERE run_id = ? AND type = 'done'", (unfinished,)).rowcount == 1
        )
    response = client.get(f"/v1/runs/{unfinished}/report.html")
    assert response.status_code == 404
    assert _error(response)["message"] == f"run {unfinished!r} has no result to report (status done)"

    monkeypatch.delenv(PLUGINS_ENV)  # the plug-in is no longer installed on this server
    response = client.get(f"/v1/runs/{gone}/report.html")
    assert response.status_code == 404
    assert (
        _error(response)["message"]
        == f"run {gone!r} is of the workflow 'test', which this server no longer runs"
    )


def test_workflows_list_the_formats_a_run_can_be_read_in(make_api: MakeApi) -> None:
    client = make_api()
    listed = {w["name"]: w for w in client.get("/v1/workflows").json()}
    assert listed["etf-weekly"]["formats"][0] == "json"
    assert {"json", "markdown", "html"} <= set(listed["etf-weekly"]["formats"])
    assert "html" in listed["brief"]["formats"]
    assert listed["agents.quote_filings"]["formats"] == ["json"]
    spec = client.get("/openapi.json").json()
    responses = spec["paths"]["/v1/runs/{run_id}/report.html"]["get"]["responses"]
    assert "text/html" in responses["200"]["content"]
    assert {"401", "404", "409", "429"} <= set(responses)


# ---------------------------------------------------------------- a signed link (a tab cannot send a key)


def _link(client: TestClient, run_id: str, headers: dict[str, str] | None = None) -> dict[str, str]:
    response = client.post(f"/v1/runs/{run_id}/report-link", headers=headers or {})
    assert response.status_code == 200, response.text
    assert response.headers["cache-control"] == "no-store"
    link: dict[str, str] = response.json()
    return link


def _ticket(url: str) -> str:
    return url.partition("?ticket=")[2]


def test_a_report_link_opens_the_dashboard_without_a_key_where_keys_are_required(make_api: MakeApi) -> None:
    client = make_api(require_keys=True, tiers=TIERS)
    alice, bob = _key(client, "alice"), _key(client, "bob")
    run_id, _report = _etf_week(client, alice)
    with_key = client.get(f"/v1/runs/{run_id}/report.html", headers=alice)
    assert with_key.status_code == 200
    assert client.get(f"/v1/runs/{run_id}/report.html").status_code == 401  # no key, no ticket

    before = datetime.now(UTC)
    link = _link(client, run_id[:-3], alice)  # asked by a prefix: the link names the full id
    assert set(link) == {"url", "expires_at"}
    assert re.fullmatch(rf"/v1/runs/{run_id}/report\.html\?ticket=[0-9]+\.[A-Za-z0-9_-]{{43}}", link["url"])
    expires = datetime.fromisoformat(link["expires_at"])
    assert before + timedelta(seconds=58) <= expires <= datetime.now(UTC) + timedelta(seconds=61)

    opened = client.get(link["url"])  # what the new tab sends: no Authorization header
    assert opened.status_code == 200, opened.text
    assert opened.text == with_key.text and run_id in opened.text
    assert opened.headers["content-security-policy"] == CSP
    assert opened.headers["cache-control"] == "no-store"
    assert client.get(link["url"]).status_code == 200  # a reload within the minute opens it again

    # the link is made only for the run's owner, with the same 404 and 401 as the report itself
    denied = client.post(f"/v1/runs/{run_id}/report-link", headers=bob)
    assert denied.status_code == 404
    assert _error(denied) == {"code": "not_found", "message": f"no run {run_id!r} for this API key"}
    assert client.post(f"/v1/runs/{run_id}/report-link").status_code == 401
    # the ticket opens the report and nothing else: the run itself still wants the key
    ticket = _ticket(link["url"])
    for other in (f"/v1/runs/{run_id}?ticket={ticket}", f"/v1/runs/{run_id}/events?ticket={ticket}"):
        assert client.get(other).status_code == 401, other
    # a key sent along is still checked: a wrong one is refused even with a good ticket
    wrong = client.get(link["url"], headers={"Authorization": "Bearer fdk_not_a_key"})
    assert wrong.status_code == 401 and "executive-summary" not in wrong.text


def test_another_runs_expired_tampered_or_malformed_ticket_is_one_401(
    make_api: MakeApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = make_api(require_keys=True, tiers=TIERS)
    alice = _key(client, "alice")
    first, _report = _etf_week(client, alice)
    second, _report = _etf_week(client, alice)
    link = _link(client, first, alice)
    ticket = _ticket(link["url"])
    expiry, _, signature = ticket.partition(".")
    assert client.get(link["url"]).status_code == 200  # the ticket itself is good

    flipped = signature[:10] + ("A" if signature[10] != "A" else "B") + signature[11:]
    refused = {
        "another run's": f"/v1/runs/{second}/report.html?ticket={ticket}",
        "a prefix of its run": f"/v1/runs/{first[:-1]}/report.html?ticket={ticket}",
        "a later expiry": f"/v1/runs/{first}/report.html?ticket={int(expiry) + 3600}.{signature}",
        "a changed signature": f"/v1/runs/{first}/report.html?ticket={expiry}.{flipped}",
        "a cut signature": f"/v1/runs/{first}/report.html?ticket={ticket[:-1]}",
        "no signature": f"/v1/runs/{first}/report.html?ticket={expiry}",
        "an empty ticket": f"/v1/runs/{first}/report.html?ticket=",
        "a long ticket": f"/v1/runs/{first}/report.html?ticket={'9' * 5000}.{signature}",
    }
    bodies = []
    for why, url in refused.items():
        response = client.get(url)
        assert response.status_code == 401, why
        bodies.append(_error(response))
        assert "executive-summary" not in response.text, why
    # one answer whatever failed, and it never echoes the ticket
    assert all(body == bodies[0] for body in bodies), bodies
    assert bodies[0]["code"] == "unauthorized" and signature not in bodies[0]["message"]

    # a minute later the same ticket is refused the same way
    real = report_links.now_s
    monkeypatch.setattr(report_links, "now_s", lambda: real() + report_links.TICKET_TTL_S + 2)
    expired = client.get(link["url"])
    assert expired.status_code == 401 and _error(expired) == bodies[0]
    # and a fresh link, made at the moved clock, opens it again
    assert client.get(_link(client, first, alice)["url"]).status_code == 200


def test_every_server_on_the_state_directory_shares_the_secret_kept_private(
    make_api: MakeApi, api_settings: Settings
) -> None:
    first = make_api(require_keys=True, tiers=TIERS)
    alice = _key(first, "alice")
    run_id, _report = _etf_week(first, alice)
    key_file = api_settings.state_dir / report_links.KEY_FILE
    assert not key_file.exists()  # made on first use, not at start-up
    link = _link(first, run_id, alice)
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    secret = key_file.read_bytes()

    # a second server process on the same state directory (behind the same load balancer): its own
    # services, its own app, the same audit log and key file; it opens the first one's link
    second = make_api(require_keys=True, tiers=TIERS)
    assert second.app.state.services is not first.app.state.services  # type: ignore[attr-defined]
    opened = second.get(link["url"])
    assert opened.status_code == 200, opened.text
    assert run_id in opened.text
    # and its own links open on the first
    assert first.get(_link(second, run_id, alice)["url"]).status_code == 200
    assert key_file.read_bytes() == secret  # never replaced
    assert [p.name for p in api_settings.state_dir.iterdir() if "report-link" in p.name] == [key_file.name]


def test_servers_racing_to_make_the_secret_agree_on_one(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(8) as pool:
        keys = list(pool.map(lambda _: report_links.load_key(tmp_path / "state"), range(16)))
    assert all(not isinstance(k, Err) for k in keys), keys
    assert len({k.value for k in keys if not isinstance(k, Err)}) == 1
    assert sorted(p.name for p in (tmp_path / "state").iterdir()) == [report_links.KEY_FILE]


def test_a_damaged_secret_is_an_error_never_a_new_key(make_api: MakeApi, api_settings: Settings) -> None:
    client = make_api()
    run_id, _report = _etf_week(client)
    key_file = api_settings.state_dir / report_links.KEY_FILE
    key_file.write_text("short\n")
    response = client.post(f"/v1/runs/{run_id}/report-link")
    assert response.status_code == 503
    error = _error(response)
    assert error["code"] == "unavailable" and "damaged" in error["message"]
    assert str(api_settings.state_dir) not in error["message"]  # redacted like every message
    assert key_file.read_text() == "short\n"


def test_a_link_is_refused_where_the_report_would_be(make_api: MakeApi, api_settings: Settings) -> None:
    client = make_api()
    response = client.post(
        "/v1/runs/agents.quote_filings", json={"input": {"symbol": "AAPL"}, "mode": "deterministic"}
    )
    agent_run = response.headers["x-run-id"]
    refused = client.post(f"/v1/runs/{agent_run}/report-link")
    assert refused.status_code == 404
    assert "'agents.quote_filings' has no HTML report" in _error(refused)["message"]
    assert client.post("/v1/runs/ffffffffffffffff/report-link").status_code == 404

    run_id, _report = _etf_week(client)
    with closing(sqlite3.connect(api_settings.state_dir / "audit.sqlite3")) as db, db:
        db.execute(
            "UPDATE events SET payload = replace(payload, '\"market_context\":', '\"market_context_v0\":') "
            "WHERE run_id = ? AND type = 'done'",
            (run_id,),
        )
    outdated = client.post(f"/v1/runs/{run_id}/report-link")
    assert outdated.status_code == 409 and _error(outdated)["code"] == "report_outdated"
    spec = client.get("/openapi.json").json()
    operation = spec["paths"]["/v1/runs/{run_id}/report-link"]["post"]
    assert {"200", "401", "404", "409"} <= set(operation["responses"])
    params = spec["paths"]["/v1/runs/{run_id}/report.html"]["get"]["parameters"]
    assert "ticket" in [p["name"] for p in params]
