"""``findesk agents``: a role runs end to end as a real process and lands in the audit log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from findesk.core.events.jsonl import read_jsonl
from snapshot_kit import env_without_settings

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)


def findesk(*args: str, **extra_env: str) -> subprocess.CompletedProcess[str]:
    env = env_without_settings()
    for key in ("FINDESK_CACHE_DIR", "FINDESK_CONFIG", "FINDESK_STATE_DIR"):
        env[key] = os.environ[key]
    env.update(extra_env)
    return subprocess.run(
        [sys.executable, "-m", "findesk", *args], capture_output=True, text=True, env=env, timeout=180
    )


def test_run_json_gives_the_typed_report_and_the_run_replays(snapshot_dir: Path, tmp_path: Path) -> None:
    events_file = tmp_path / "events.jsonl"
    proc = findesk("agents", "run", "quote_filings", "AAPL", "--json", "--events", str(events_file))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["data_mode"] == "offline snapshot as of 2025-08-29" and out["role"] == "quote_filings"
    assert out["mode"] == "deterministic" and "no model key configured" in out["mode_reason"]
    assert out["output"]["price"] == 232.14 and out["output"]["recent_filings"][0]["form"] == "10-Q"
    assert out["tool_calls"] == 3 and out["cost_usd"] == 0

    events = read_jsonl(events_file)
    assert events[0].type == "agent_start" and events[-1].type == "done"
    assert {e.run_id for e in events} == {out["run_id"]}

    shown = findesk("runs", "show", out["run_id"], "--json")
    assert shown.returncode == 0, shown.stderr
    stored = json.loads(shown.stdout)
    assert stored["run"]["status"] == "done" and stored["run"]["title"] == "agents.quote_filings AAPL"
    assert [e["id"] for e in stored["events"]] == [e.id for e in events]


def test_run_prints_a_live_trace_and_the_report(snapshot_dir: Path) -> None:
    proc = findesk("agents", "run", "quote_filings", "MSFT", "--as-of", "2025-06-30")
    assert proc.returncode == 0, proc.stderr
    assert "→ get_quote(symbol=MSFT)" in proc.stderr and "✓ get_quote" in proc.stderr
    assert "offline snapshot as of 2025-06-30 · mode: deterministic" in proc.stdout
    assert "findesk runs show" in proc.stdout


def test_bad_input_is_one_line_and_nothing_runs(snapshot_dir: Path) -> None:
    for args, code, needle in (
        (("agents", "run", "nope", "AAPL"), 2, "unknown role 'nope'"),
        (("agents", "run", "quote_filings", "VOD.L"), 2, "out_of_scope"),
        (("agents", "run", "quote_filings", "AAPL", "--mode", "fast"), 2, "'fast' is not one of"),
        (("agents", "run", "quote_filings", "--input", '{"symbol": 5}'), 2, "symbol"),
        (("agents", "run", "quote_filings", "--input", "[]"), 2, "--input must be a JSON object"),
    ):
        proc = findesk(*args)
        assert proc.returncode == code, (args, proc.stderr)
        assert needle in proc.stderr and "Traceback" not in proc.stderr
    listed = findesk("runs", "list", "--json")
    runs = json.loads(listed.stdout)["data"] if listed.returncode == 0 else []
    assert not any(r["tool_calls"] for r in runs if r["status"] == "error")  # refused before any tool


def test_list_names_every_role_with_its_inputs() -> None:
    proc = findesk("agents", "list", "--json")
    assert proc.returncode == 0
    roles = {r["name"]: r for r in json.loads(proc.stdout)["data"]}
    assert "get_quote" in roles["quote_filings"]["tools"]
    assert {"quote_filings", "official", "social", "coordinator"} <= set(roles)
    assert roles["social"]["inputs"] == ["symbol", "as_of"]


def test_a_role_runs_on_json_inputs(snapshot_dir: Path) -> None:
    proc = findesk(
        "agents", "run", "social", "--input", '{"symbol": "AAPL", "as_of": "2025-08-29"}', "--json"
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["role"] == "social" and out["tool_calls"] > 0 and out["guard"]["advice_removed"] == []
