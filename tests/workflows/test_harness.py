"""One harness for every workflow: a workflow defined in a test module (``HARNESS`` in
``plugin_workflows``) is served by the CLI and the Python API through ``FINDESK_WORKFLOWS`` with no
change to findesk, recorded in the audit log, replayed, and — killed mid-graph — resumed from its
checkpoint to the same report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from findesk.core.config import Settings
from findesk.core.result import Err
from findesk.workflows import inprocess, registry
from plugin_workflows import KILL_ENV, plugin_env, target
from snapshot_kit import env_without_settings

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)

PLUGIN = target("HARNESS")
VOLATILE = ("run_id",)


def findesk(*args: str, **extra_env: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in env_without_settings().items() if k != KILL_ENV}
    for key in ("FINDESK_CACHE_DIR", "FINDESK_CONFIG", "FINDESK_STATE_DIR", "FINDESK_SNAPSHOT_DIR"):
        if key in os.environ:
            env[key] = os.environ[key]
    env |= plugin_env("HARNESS") | extra_env
    return subprocess.run(
        [sys.executable, "-m", "findesk", *args], capture_output=True, text=True, env=env, timeout=300
    )


def _runs() -> list[dict[str, Any]]:
    listed = findesk("runs", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    return json.loads(listed.stdout)["data"]  # type: ignore[no-any-return]


def test_the_cli_serves_a_plugged_in_workflow_and_the_run_replays(snapshot_dir: Path) -> None:
    assert "test" in findesk("--help").stdout  # listed with the built-in commands
    proc = findesk("test", "AAPL", "--format", "json", "-q")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["price"] == 232.14 and report["agents"] == ["scout", "writer"]
    assert report["summary"] == "AAPL: $232.14; 5 recent filings." and report["tool_calls"] == 2
    run = next(r for r in _runs() if r["title"].startswith("test AAPL"))
    assert run["status"] == "done" and run["tool_calls"] == 2
    shown = json.loads(findesk("runs", "show", run["run_id"], "--json").stdout)
    kinds = [e["data"]["type"] for e in shown["events"]]
    assert kinds[0] == "agent_start" and kinds[-1] == "done" and kinds.count("section") == 2
    assert shown["events"][-1]["data"]["result"]["summary"] == report["summary"]


def test_the_cli_refuses_bad_input_for_a_plugged_in_workflow(snapshot_dir: Path) -> None:
    proc = findesk("test", "AAPL", "--input", '{"symbol": "AAPL", "extra": 1}')
    assert proc.returncode == 2 and "extra" in proc.stderr
    proc = findesk("test", "AAPL", "--input", "[1, 2")
    assert proc.returncode == 2 and "--input is not valid JSON" in proc.stderr


def test_the_python_api_runs_the_same_workflow(snapshot_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FINDESK_WORKFLOWS", PLUGIN)
    settings = Settings(snapshot_dir=snapshot_dir)
    first = inprocess.run("test", {"symbol": "MSFT"}, settings=settings, as_of="2025-08-29")
    assert not isinstance(first, Err), first
    assert first.value.agents == ["scout", "writer"] and first.value.filings == 5
    again = inprocess.run("test", {"symbol": "MSFT"}, settings=settings, as_of="2025-08-29")
    assert not isinstance(again, Err) and again.value == first.value
    unknown = inprocess.run("nope", {}, settings=settings)
    known = "known workflows: brief, etf-weekly, movers, pipeline, research, scan, test, trade"
    assert isinstance(unknown, Err) and known in unknown.reason


def test_a_plugin_cannot_shadow_a_built_in_workflow(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FINDESK_WORKFLOWS", f"{PLUGIN},{PLUGIN}")
    found = registry.entries()
    assert isinstance(found, Err) and "reuses the workflow name 'test'" in found.reason
    monkeypatch.setenv("FINDESK_WORKFLOWS", "no_such_module:SPEC")
    loaded = registry.load("brief")
    assert isinstance(loaded, Err) and "cannot be loaded" in loaded.reason


def test_aliases_come_from_the_spec_for_built_ins_and_plug_ins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FINDESK_WORKFLOWS", target("ALIASED"))
    found = registry.entries()
    assert not isinstance(found, Err), found
    assert found.value["aliased"].aliases == ("aliased-too",)  # a plug-in's, read from its spec
    for name in ("brief", "research"):  # a built-in's, known without importing it, equal its spec's
        spec = registry.load(name)
        assert not isinstance(spec, Err), spec
        assert found.value[name].aliases == tuple(spec.value.aliases)


def test_a_run_killed_mid_graph_resumes_from_its_checkpoint_with_the_same_result(snapshot_dir: Path) -> None:
    clean = findesk("test", "NVDA", "--format", "json", "-q")
    assert clean.returncode == 0, clean.stderr
    killed = findesk("test", "NVDA", "--format", "json", "-q", **{KILL_ENV: "1"})
    assert killed.returncode == -9, killed.stderr  # SIGKILL: no closing event, no cleanup
    run = next(r for r in _runs() if r["status"] == "error" and r["title"].startswith("test NVDA"))
    assert run["error"].startswith("interrupted: ")  # its process is gone: read as interrupted at once
    before = json.loads(findesk("runs", "show", run["run_id"], "--json").stdout)["events"]
    assert [e["data"]["name"] for e in before if e["data"]["type"] == "tool_call"] == ["get_quote"]

    resumed = findesk("runs", "resume", run["run_id"], "--format", "json", "-q")
    assert resumed.returncode == 0, resumed.stderr
    expected = json.loads(clean.stdout)
    assert json.loads(resumed.stdout) == expected  # the scout's step is not run again, the report is the same
    after = json.loads(findesk("runs", "show", run["run_id"], "--json").stdout)
    assert after["run"]["status"] == "done"
    calls = [e["data"]["name"] for e in after["events"] if e["data"]["type"] == "tool_call"]
    assert calls == ["get_quote", "list_filings"]  # one quote call in all: resumed, not restarted
    seqs = [e["seq"] for e in after["events"]]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)  # the sequence continues, no duplicates

    again = findesk("runs", "resume", run["run_id"])
    assert again.returncode == 2 and "already done" in again.stderr


@pytest.mark.parametrize("bad", ["notadict", None, [["symbol", "AAPL"]], 5])
def test_the_python_api_refuses_input_that_is_not_an_object(bad: Any, snapshot_dir: Path) -> None:
    result = inprocess.run("agents.quote_filings", bad, settings=Settings(snapshot_dir=snapshot_dir))
    assert isinstance(result, Err) and "the input must be a JSON object" in result.reason
