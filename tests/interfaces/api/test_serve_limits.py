"""``findesk serve`` under attack, as a real server process on 127.0.0.1 with keys required, one worker
process and a priced fake model server on loopback:

- a huge chunked body is refused before it is read: 401 without a key, 413 with one, and the server's
  memory (VmRSS) stays flat; a huge header is refused (431) the same way;
- a client that hangs up at the first ``tool_call`` of a model run leaves the run to finish in the
  worker, and the key is charged every dollar the run spent; the next run past the cap is a 429.
"""

from __future__ import annotations

import json
import select
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from findesk.core.access import KeyStore, spent_today
from findesk.testing.fake_provider_server import FakeProviderServer, FakeReply
from findesk.tools.base import ToolContext
from serve_kit import environment, serving

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)

MODEL = "fake-priced"
CAP_USD = 0.25
CALL_USD = 0.10  # 100,000 input tokens at $1 per million: the run's budget (the cap) lasts ~3 calls
MIB = 1024 * 1024


@dataclass
class Server:
    url: str
    port: int
    pid: int
    secret: str
    key_id: str
    keys: KeyStore
    models: FakeProviderServer

    def rss_mib(self) -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise AssertionError("no VmRSS")

    def spent(self) -> float:
        return spent_today(self.keys, self.key_id, datetime.now(UTC)).unwrap()


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, snapshot_dir: Path, api_cache: Path, api_tools: ToolContext
) -> Iterator[Server]:
    # api_tools: the snapshot's parsed stores are in api_cache already, so the worker opens them warm
    home = tmp_path_factory.mktemp("serve-limits")
    models = FakeProviderServer().start()
    config = home / "findesk.toml"
    config.write_text(
        f"""
mode = "snapshot"
[llm]
openai_api_key = "sk-test"
openai_base_url = "{models.openai_base_url}"
max_retries = 0
tiers = {{ quick = ["openai:{MODEL}"], mid = ["openai:{MODEL}"], deep = ["openai:{MODEL}"] }}
[llm.prices."openai:{MODEL}"]
input = 1.0
output = 1.0
[api]
workers = 1
require_keys = true
[api.tiers.tiny]
rpm = 100
daily_cost_usd = {CAP_USD}
"""
    )
    env = environment(
        ("FINDESK_", "ANTHROPIC_", "OPENAI_"),
        FINDESK_CONFIG=str(config),
        FINDESK_SNAPSHOT_DIR=str(snapshot_dir),
        FINDESK_STATE_DIR=str(home / "state"),
        FINDESK_CACHE_DIR=str(api_cache),
    )
    keys = KeyStore.open(f"sqlite:///{home / 'state' / 'audit.sqlite3'}").unwrap()
    key, secret = keys.create("desk", "tiny", tiers=("tiny",)).unwrap()
    try:
        with serving(env, home / "serve.log", timeout_s=90) as served:
            yield Server(served.url, served.port, served.pid, secret, key.id, keys, models)
    finally:
        keys.close()
        models.stop()


def _status(reply: bytes) -> int:
    return int(reply.split(b" ", 2)[1])


def _push(server: Server, head: bytes, chunks: Iterator[bytes], limit_s: float = 10.0) -> tuple[int, int]:
    """Send ``head`` then ``chunks`` until the server answers (or stops reading); the HTTP status and
    how many bytes went out."""
    sent = 0
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(head)
        deadline = time.monotonic() + limit_s
        reply = b""
        for chunk in chunks:
            if select.select([sock], [], [], 0)[0]:
                break
            try:
                sock.sendall(chunk)
            except OSError:  # reset: the server closed the connection, its answer is already here
                break
            sent += len(chunk)
            assert time.monotonic() < deadline, f"the server kept reading: {sent / MIB:.0f} MiB"
        try:
            while b"\r\n" not in reply:
                more = sock.recv(65536)
                if not more:
                    break
                reply += more
        except OSError:
            pass
    assert reply.startswith(b"HTTP/1.1 "), (reply[:200], sent)
    return _status(reply), sent


def _chunked(total_mib: int) -> Iterator[bytes]:
    piece = b"x" * MIB
    frame = b"%x\r\n" % len(piece) + piece + b"\r\n"
    for _ in range(total_mib):
        yield frame


def _post_head(path: str, *headers: str) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json"]
    lines += [*headers, "Transfer-Encoding: chunked"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def test_a_huge_chunked_body_without_a_key_is_a_401_before_it_is_read(server: Server) -> None:
    before = server.rss_mib()
    started = time.monotonic()
    status, sent = _push(server, _post_head("/v1/brief"), _chunked(100))
    assert status == 401
    assert time.monotonic() - started < 5
    assert sent < 20 * MIB  # the client was stopped long before its 100 MiB
    assert server.rss_mib() - before < 20, (before, server.rss_mib())


def test_a_huge_chunked_body_with_a_key_is_a_413_after_at_most_the_limit(server: Server) -> None:
    before = server.rss_mib()
    head = _post_head("/v1/runs/brief", f"Authorization: Bearer {server.secret}")
    status, sent = _push(server, head, _chunked(100))
    assert status == 413
    assert sent < 20 * MIB
    assert server.rss_mib() - before < 20, (before, server.rss_mib())
    with httpx.Client(base_url=server.url, timeout=10) as client:  # still serving, the key still good
        assert client.get("/healthz").status_code == 200


def test_a_huge_header_is_refused_and_the_server_keeps_its_memory(server: Server) -> None:
    before = server.rss_mib()
    head = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: "
    status, sent = _push(server, head, (b"a" * 65536 for _ in range(512)))  # 32 MiB of one header
    assert status == 431
    assert sent < 16 * MIB  # what socket buffers took before the client saw the answer
    assert server.rss_mib() - before < 10, (before, server.rss_mib())
    # one that arrives whole is held to the same limit; one that fits is fine
    too_big = httpx.get(f"{server.url}/healthz", headers={"X-Filler": "a" * 40_000}, timeout=10)
    assert too_big.status_code == 431 and too_big.json()["error"]["code"] == "headers_too_large"
    assert httpx.get(f"{server.url}/healthz", headers={"X-Filler": "a" * 8000}, timeout=10).status_code == 200


def test_a_client_that_hangs_up_is_charged_all_its_worker_run_spends(server: Server) -> None:
    reply = FakeReply(text="still thinking", input_tokens=100_000, output_tokens=0, delay_s=0.2)
    server.models.script(MODEL, *[reply] * 30)
    auth = {"Authorization": f"Bearer {server.secret}"}
    body = {"ticker": "AAPL", "mode": "model", "as_of": "2025-08-29"}
    with (
        httpx.Client(base_url=server.url, headers=auth, timeout=60) as client,
        client.stream("POST", "/v1/brief", json=body) as response,
    ):
        assert response.status_code == 200, response.read()
        run_id = response.headers["x-run-id"]
        assert any(line == "event: tool_call" for line in response.iter_lines())
    # the worker runs on: wait for the run's end in the audit log
    deadline = time.monotonic() + 60
    with httpx.Client(base_url=server.url, headers=auth, timeout=10) as client:
        while client.get(f"/v1/runs/{run_id}").json()["run"]["status"] == "running":
            assert time.monotonic() < deadline, "the run never ended"
            time.sleep(0.1)
        events = client.get(f"/v1/runs/{run_id}/events").json()["events"]
        costs = [e["data"]["cost_usd"] for e in events if e["data"]["type"] == "llm_call"]
        assert events[-1]["data"]["type"] == "done"  # it finished, though nobody was listening
        assert len(costs) >= 2 and sum(costs) >= CAP_USD  # it spent its whole budget: the cap
        # the key is charged every dollar, settled once the run ended
        while server.spent() != pytest.approx(sum(costs)):
            assert time.monotonic() < deadline, (server.spent(), sum(costs))
            time.sleep(0.05)
        refused = client.post("/v1/brief", json=body)
    assert refused.status_code == 429
    assert json.loads(refused.text)["error"]["code"] == "limit_reached"
