"""``findesk mcp`` driven by the official MCP SDK client, as a real subprocess on the offline snapshot:

- over stdio (no key): the tool list holds the data tools and every workflow with input schemas;
  ``get_quote`` and ``brief`` give the very figures the CLI gives; bad input (an unknown ticker, a
  malformed date, an unknown tool, wrong arguments) is a one-line error result and the server goes on;
  a workflow call with a progressToken receives its run's events as progress notifications;
- over HTTP on 127.0.0.1: no key, a malformed, unknown or revoked key is a 401; a valid key works; a
  key's tier limits calls as the HTTP API's (the next call past its requests per minute is refused).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from typer.testing import CliRunner

from findesk.core.access import open_key_store
from findesk.core.config import Settings
from findesk.interfaces.api.app import MAX_BODY_BYTES
from serve_kit import free_port

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)

AS_OF = "2025-08-29"
WORKFLOWS = {"brief", "ask", "research", "etf-weekly", "trade", "scan", "backtest", "movers"}
CALL_S = 120.0


def _cli_json(args: list[str]) -> Any:
    from findesk.interfaces.cli.main import app

    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _text(result: Any) -> str:
    return str(result.content[0].text)


async def _stdio_session_checks(env: dict[str, str]) -> dict[str, Any]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "findesk", "mcp"], env=env)
    seen: dict[str, Any] = {"progress": []}

    async def progress(value: float, total: float | None, message: str | None) -> None:
        seen["progress"].append((value, message))

    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        seen["tools"] = (await session.list_tools()).tools
        seen["quote"] = await session.call_tool("get_quote", {"symbol": "AAPL", "as_of": AS_OF})
        seen["unknown_ticker"] = await session.call_tool("get_quote", {"symbol": "ZZZZQ", "as_of": AS_OF})
        seen["bad_date"] = await session.call_tool("get_quote", {"symbol": "AAPL", "as_of": "2025-13-45"})
        seen["unknown_tool"] = await session.call_tool("get_price_of_everything", {"symbol": "AAPL"})
        seen["bad_args"] = await session.call_tool("get_quote", {"ticker": 7})
        seen["bad_workflow_date"] = await session.call_tool("brief", {"ticker": "AAPL", "as_of": "soon"})
        seen["brief"] = await session.call_tool(
            "brief", {"ticker": "AAPL", "as_of": AS_OF}, progress_callback=progress
        )
        seen["after"] = await session.call_tool("get_quote", {"symbol": "MSFT", "as_of": AS_OF})
    return seen


@pytest.fixture(scope="module")
def stdio_run(snapshot_dir: Path) -> dict[str, Any]:
    # os.environ holds this test's FINDESK_* (state, cache, config) from conftest's _isolated_env
    started = time.perf_counter()
    seen = asyncio.run(asyncio.wait_for(_stdio_session_checks(dict(os.environ)), CALL_S))
    seen["seconds"] = time.perf_counter() - started
    return seen


def test_stdio_lists_every_data_tool_and_workflow_with_a_schema(stdio_run: dict[str, Any]) -> None:
    from findesk.tools.catalog import default_registry

    tools = {t.name: t for t in stdio_run["tools"]}
    assert set(default_registry().names()) <= set(tools)
    assert tools.keys() >= WORKFLOWS
    for tool in tools.values():
        assert tool.input_schema["type"] == "object" and "properties" in tool.input_schema, tool.name
        assert tool.description, tool.name
    # the tool's own schema, reused: the quote's symbol field and the run's as-of option
    assert "symbol" in tools["get_quote"].input_schema["required"]
    assert {"ticker", "as_of", "mode"} <= set(tools["brief"].input_schema["properties"])
    assert "never" in tools["brief"].description.lower() and "advice" in tools["brief"].description.lower()


def test_stdio_quote_is_the_clis_quote(stdio_run: dict[str, Any]) -> None:
    result = stdio_run["quote"]
    assert not result.is_error, _text(result)
    body = result.structured_content
    assert (body["as_of"], body["data_mode"]) == (AS_OF, "snapshot")
    assert body["sources"] and body["sources"][0].startswith("snapshot:prices/")
    cli = _cli_json(["data", "quote", "AAPL", "--as-of", AS_OF, "--json"])["data"]
    for field in ("price", "previous_close", "change", "change_pct", "volume", "market_cap", "session_date"):
        assert body["result"][field] == cli[field], field
    assert body["result"]["price"] == 232.14
    assert "232.14" in _text(result) and "offline snapshot as of 2025-08-29" in _text(result)


def test_stdio_brief_is_the_clis_brief_with_progress(stdio_run: dict[str, Any]) -> None:
    result = stdio_run["brief"]
    assert not result.is_error, _text(result)
    body = result.structured_content
    assert (body["workflow"], body["as_of"], body["data_mode"]) == ("brief", AS_OF, "snapshot")
    report = body["report"]
    cli = _cli_json(["brief", "AAPL", "--as-of", AS_OF, "--format", "json", "--quiet"])
    assert report["headline"] == cli["headline"]
    assert report["snapshot"]["quote"]["price"] == cli["snapshot"]["quote"]["price"] == 232.14
    assert report["snapshot"]["quote"]["market_cap"] == cli["snapshot"]["quote"]["market_cap"]
    assert [f["value"] for f in report["business"]["facts"]] == [f["value"] for f in cli["business"]["facts"]]
    assert report["sources"] == cli["sources"]  # the report keeps its citations
    assert any(s.startswith("https://www.sec.gov/") for s in body["sources"])
    assert body["run_id"] in _text(result) and "offline snapshot as of 2025-08-29" in _text(result)
    # its events arrived as progress notifications, in order, while it ran
    progress = stdio_run["progress"]
    values = [v for v, _ in progress]
    assert values == sorted(values) and len(values) >= 5
    messages = [m or "" for _, m in progress]
    assert messages[0].startswith("brief: started")
    assert any("tool get_quote" in m for m in messages)
    assert any(m.startswith("section ") for m in messages)
    assert any("finished" in m for m in messages)


@pytest.mark.parametrize(
    ("call", "code", "words"),
    [
        ("unknown_ticker", "not_found", "ZZZZQ"),
        ("bad_date", "invalid_input", "2025-13-45"),
        ("unknown_tool", "not_found", "no tool called 'get_price_of_everything'"),
        ("bad_args", "invalid_input", "symbol"),
        ("bad_workflow_date", "invalid_input", "soon"),
    ],
)
def test_stdio_bad_input_is_a_one_line_error(
    stdio_run: dict[str, Any], call: str, code: str, words: str
) -> None:
    result = stdio_run[call]
    assert result.is_error
    text = _text(result)
    assert "\n" not in text and "Traceback" not in text
    assert text.startswith(code) and words in text
    assert result.structured_content["error"]["code"] == code
    # and the server carried on
    assert not stdio_run["after"].is_error


def test_stdio_session_is_fast(stdio_run: dict[str, Any]) -> None:
    assert stdio_run["seconds"] < 90


# --- HTTP -------------------------------------------------------------------------------------------


class HttpServer:
    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.log = log
        command = [sys.executable, "-m", "findesk", "mcp", "--transport", "http", "--port", str(self.port)]
        with log.open("wb") as out:
            self.proc = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)

    def wait_listening(self, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            if self.proc.poll() is not None:
                pytest.fail(f"findesk mcp exited ({self.proc.returncode}):\n{self.log.read_text()}")
            try:
                httpx.post(self.url, json={}, timeout=2)
                return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"findesk mcp never listened:\n{self.log.read_text()}")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture
def http_server(
    tmp_path: Path, snapshot_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[HttpServer, dict[str, str]]]:
    config = tmp_path / "findesk.toml"
    config.write_text(
        "[api.tiers.tiny]\nrpm = 3\ndaily_cost_usd = 1.0\n[api.tiers.pro]\nrpm = 60\ndaily_cost_usd = 5.0\n"
    )
    monkeypatch.setenv("FINDESK_CONFIG", str(config))  # the server and the key store below read it
    keys = open_key_store(Settings()).unwrap()
    tiers = ("tiny", "pro")
    _, pro = keys.create("pro client", "pro", tiers=tiers).unwrap()
    _, tiny = keys.create("tiny client", "tiny", tiers=tiers).unwrap()
    gone, revoked = keys.create("old client", "pro", tiers=tiers).unwrap()
    keys.revoke(gone.id).unwrap()
    keys.close()
    server = HttpServer(dict(os.environ), tmp_path / "mcp.log")
    try:
        server.wait_listening()
        yield server, {"pro": pro, "tiny": tiny, "revoked": revoked}
    finally:
        server.stop()


async def _http_calls(url: str, secret: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    out = []
    async with (
        create_mcp_http_client(headers={"Authorization": f"Bearer {secret}"}) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        out.append((await session.list_tools()).tools)
        for name, args in calls:
            out.append(await session.call_tool(name, args))
    return out


def test_http_needs_a_valid_key_and_keeps_the_tier_limits(
    http_server: tuple[HttpServer, dict[str, str]],
) -> None:
    server, secrets = http_server
    hello = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    refused = {
        "no key": {},
        "malformed header": {"Authorization": "Token abc"},
        "malformed key": {"Authorization": "Bearer nope"},
        "unknown key": {"Authorization": "Bearer " + secrets["pro"][:-4] + "AAAA"},
        "revoked key": {"X-API-Key": secrets["revoked"]},
    }
    for why, headers in refused.items():
        answer = httpx.post(server.url, json=hello, headers=headers, timeout=10)
        assert answer.status_code == 401, why
        assert answer.json()["error"]["code"] == "unauthorized", why
    revoked = httpx.post(server.url, json=hello, headers=refused["revoked key"], timeout=10).json()
    assert "revoked" in revoked["error"]["message"]

    # a keyed caller's oversized body is refused unread, and an endless header is cut off, as by the API
    keyed = {"Authorization": f"Bearer {secrets['pro']}", "Accept": "application/json, text/event-stream"}
    huge = {**hello, "params": {"padding": "x" * (2 * MAX_BODY_BYTES)}}
    too_large = httpx.post(server.url, json=huge, headers=keyed, timeout=10)
    assert too_large.status_code == 413
    assert too_large.json()["error"]["code"] == "payload_too_large"
    long_header = httpx.post(server.url, json=hello, headers={**keyed, "X-Pad": "y" * 64_000}, timeout=10)
    assert long_header.status_code == 431

    quote = ("get_quote", {"symbol": "AAPL", "as_of": AS_OF})
    tools, result = asyncio.run(asyncio.wait_for(_http_calls(server.url, secrets["pro"], [quote]), CALL_S))
    assert {t.name for t in tools} >= WORKFLOWS
    assert not result.is_error, _text(result)
    assert result.structured_content["result"]["price"] == 232.14
    assert result.structured_content["data_mode"] == "snapshot"
    # the remote schema leaves out fields naming files on the server
    # a tool that acts on the server (mails anyone, writes files) is neither listed nor callable remotely
    assert "send_report_email" not in {t.name for t in tools}
    mail = ("send_report_email", {"subject": "hi", "text": "x", "html": "x", "to": ["victim@example.com"]})
    _, mailed = asyncio.run(asyncio.wait_for(_http_calls(server.url, secrets["pro"], [mail]), CALL_S))
    assert mailed.is_error and "send_report_email" in _text(mailed)
    etf = next(t for t in tools if t.name == "etf-weekly")
    assert "config" not in etf.input_schema["properties"] and "out" not in etf.input_schema["properties"]

    # a tier of 3 requests per minute: the fourth call is refused, as the API refuses it (429 there)
    _, *calls = asyncio.run(asyncio.wait_for(_http_calls(server.url, secrets["tiny"], [quote] * 4), CALL_S))
    assert [c.is_error for c in calls] == [False, False, False, True]
    assert _text(calls[3]).startswith("limit_reached:") and "per minute" in _text(calls[3])
    assert "retry in" in _text(calls[3])
