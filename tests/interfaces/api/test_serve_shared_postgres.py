"""Two ``findesk serve`` processes on different loopback ports sharing one PostgreSQL database, as
servers behind a load balancer would: the per-minute limit and the daily cost cap of a key hold across
both, and a run started on one is read back from the other.

Each server has its own state folder; all they share is ``FINDESK_AUDIT_URL`` (a plain ``postgresql://``
URL, as users write it). Each test uses keys of its own, so their requests never count against
another test's limits.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_kit import parse_sse

from findesk.core.access import KeyStore, admit, record_cost, spent_today
from findesk.core.config import ApiSettings
from pg_kit import new_database
from plugin_workflows import plugin_env
from serve_kit import environment, serving

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)

AS_OF = "2025-08-29"
FREE = ApiSettings().tiers["free"]  # the tier every key here has: 10 requests a minute, $1 a day


@dataclass
class Pair:
    a: str  # base URLs of the two servers
    b: str
    keys: KeyStore  # the shared database, as a third process sees it

    def key(self, name: str) -> tuple[str, dict[str, str]]:
        """A new free-tier key: its id and the header that sends it."""
        key, secret = self.keys.create(name, "free", tiers=("free",)).unwrap()
        return key.id, {"Authorization": f"Bearer {secret}"}


@pytest.fixture(scope="module")
def pair(
    tmp_path_factory: pytest.TempPathFactory, pg_server: Any, snapshot_dir: Path, api_cache: Path
) -> Iterator[Pair]:
    home = tmp_path_factory.mktemp("serve-shared-pg")
    url = new_database(pg_server).replace("postgresql+psycopg://", "postgresql://")
    config = home / "findesk.toml"
    config.write_text('mode = "snapshot"\n[api]\nworkers = 0\nrequire_keys = true\n')
    keys = KeyStore.open(url).unwrap()  # migrates the new database before either server starts

    def env(name: str) -> dict[str, str]:
        return environment(
            ("FINDESK_", "ANTHROPIC_", "OPENAI_"),
            FINDESK_CONFIG=str(config),
            FINDESK_SNAPSHOT_DIR=str(snapshot_dir),
            FINDESK_STATE_DIR=str(home / name),  # nothing shared on disk: only the database
            FINDESK_CACHE_DIR=str(api_cache),
            FINDESK_AUDIT_URL=url,
            **plugin_env("API"),
        )

    try:
        with serving(env("a"), home / "a.log", 90) as a, serving(env("b"), home / "b.log", 90) as b:
            yield Pair(a.url, b.url, keys)
    finally:
        keys.close()


def test_twenty_requests_over_both_servers_admit_exactly_the_tiers_per_minute_number(pair: Pair) -> None:
    _, auth = pair.key("spread")
    statuses: list[tuple[str, int]] = []
    refusals: list[httpx.Response] = []
    with httpx.Client(headers=auth, timeout=30) as client:
        for i in range(20):  # alternately: A, B, A, B …
            server = "a" if i % 2 == 0 else "b"
            response = client.get(f"{pair.a if server == 'a' else pair.b}/v1/runs")
            statuses.append((server, response.status_code))
            if response.status_code == 429:
                refusals.append(response)
    assert [code for _, code in statuses].count(200) == FREE.rpm == 10
    assert [code for _, code in statuses].count(429) == 20 - FREE.rpm
    assert {server for server, code in statuses if code == 200} == {"a", "b"}  # both admitted some
    assert {server for server, code in statuses if code == 429} == {"a", "b"}  # and both refused
    for refused in refusals:
        assert refused.json()["error"]["code"] == "limit_reached"
        assert 1 <= int(refused.headers["retry-after"]) <= 60


def test_a_run_started_on_one_server_is_read_from_the_other(pair: Pair) -> None:
    _, auth = pair.key("runner")
    with httpx.Client(headers=auth, timeout=60) as client:
        started = client.post(f"{pair.a}/v1/runs/test", json={"input": {"symbol": "aapl"}, "as_of": AS_OF})
        assert started.status_code == 200, started.text
        run_id = started.headers["x-run-id"]
        frames = parse_sse(started.text)
        assert frames[-1].event == "done"

        view = client.get(f"{pair.b}/v1/runs/{run_id}")
        assert view.status_code == 200, view.text
        body = view.json()
        assert body["workflow"] == "test" and body["run"]["status"] == "done"
        assert body["result"] == frames[-1].data["data"]["result"]
        events = client.get(f"{pair.b}/v1/runs/{run_id}/events").json()["events"]
        assert [e["id"] for e in events] == [f.data["id"] for f in frames]
        assert run_id in [r["run_id"] for r in client.get(f"{pair.b}/v1/runs").json()["runs"]]

    _, other = pair.key("someone else")  # ownership is shared too: another key sees nothing on B
    assert httpx.get(f"{pair.b}/v1/runs/{run_id}", headers=other, timeout=30).status_code == 404


def test_the_daily_cost_cap_holds_on_both_servers(pair: Pair) -> None:
    key_id, auth = pair.key("spender")
    now = datetime.now(UTC)
    # the key's runs so far spent the whole cap, recorded by some other server process
    key = pair.keys.get(key_id).unwrap()
    spent = admit(pair.keys, key, FREE, now=now, costly=True).unwrap()
    record_cost(pair.keys, spent.request_id, "0190elsewhere01", FREE.daily_cost_usd).unwrap()
    assert spent_today(pair.keys, key_id, now).unwrap() == pytest.approx(FREE.daily_cost_usd)

    body = {"input": {"symbol": "aapl"}, "as_of": AS_OF}
    with httpx.Client(headers=auth, timeout=30) as client:
        for base in (pair.a, pair.b):
            refused = client.post(f"{base}/v1/runs/test", json=body)
            assert refused.status_code == 429, refused.text
            assert "daily cost cap of $1.00 reached" in refused.json()["error"]["message"]
            assert client.get(f"{base}/v1/runs").status_code == 200  # reads go on
