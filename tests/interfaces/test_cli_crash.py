"""``kill -9`` of a CLI run (``findesk <workflow> …``) in the middle of its work, with no ``findesk serve``
ever started: ``findesk runs list`` and ``runs show`` read the run as ``interrupted`` at once (derived
from its owner being gone; they write nothing), and the next CLI run closes it in the audit log with one
``interrupted`` event naming the dead process.

The run is the gated test workflow (``GATED`` in ``tests/plugin_workflows.py``): it waits, inside the
CLI process, until the test has killed that process.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from plugin_workflows import GATE_ENV, plugin_env
from snapshot_kit import env_without_settings

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)


def _env(gates: Path) -> dict[str, str]:
    env = {k: v for k, v in env_without_settings().items() if not k.startswith("GATED_")}
    for key in ("FINDESK_CACHE_DIR", "FINDESK_STATE_DIR", "FINDESK_CONFIG", "FINDESK_SNAPSHOT_DIR"):
        if key in os.environ:
            env[key] = os.environ[key]
    return env | plugin_env("GATED") | {GATE_ENV: str(gates), "COLUMNS": "250"}


def _findesk(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "findesk", *args], env=env, capture_output=True, text=True, timeout=120
    )


def _show(env: dict[str, str], run_id: str) -> dict[str, Any]:
    shown = _findesk(env, "runs", "show", run_id, "--json")
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)  # type: ignore[no-any-return]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="kill -9 and /proc")
def test_a_killed_cli_run_reads_interrupted_at_once_and_the_next_run_closes_it(
    snapshot_dir: Path, tmp_path: Path
) -> None:
    gates = tmp_path / "gates"
    gates.mkdir()
    env = _env(gates)
    said = tmp_path / "victim.log"
    log = said.open("wb")
    victim = subprocess.Popen(
        [sys.executable, "-m", "findesk", "gated", "--gate", "x", "-q", "--format", "json"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    try:
        deadline = time.monotonic() + 60
        while not (gates / "x.pid").exists():
            assert victim.poll() is None and time.monotonic() < deadline, said.read_text()
            time.sleep(0.05)
        assert int((gates / "x.pid").read_text()) == victim.pid  # the CLI runs it itself: no worker
        victim.send_signal(signal.SIGKILL)
        assert victim.wait(10) == -signal.SIGKILL
    finally:
        (gates / "x").touch()  # a run that outlived a failed assertion finishes instead of waiting
        if victim.poll() is None:
            victim.kill()
            victim.wait()
        log.close()

    # read-only commands, before anything has closed the run: interrupted, naming the dead process
    listed = _findesk(env, "runs", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    run = next(r for r in json.loads(listed.stdout)["data"] if r["title"].startswith("gated x "))
    assert run["status"] == "error", run
    assert run["error"].startswith(f"interrupted: the process running it (pid {victim.pid} on ")
    table = _findesk(env, "runs", "list")
    line = next(line for line in table.stdout.splitlines() if run["run_id"] in line)
    assert "interrupted" in line and "running" not in line
    shown = _show(env, run["run_id"])
    assert shown["run"]["status"] == "error" and shown["run"]["error"] == run["error"]
    recorded = [e["data"]["type"] for e in shown["events"]]
    assert "error" not in recorded  # derived: reading wrote nothing

    # the next CLI run closes it for good: one interrupted event, after the run's own
    (gates / "y").touch()
    later = _findesk(env, "gated", "--gate", "y", "-q", "--format", "json")
    assert later.returncode == 0, later.stderr
    closed = _show(env, run["run_id"])
    assert closed["run"]["status"] == "error" and closed["run"]["error"] == run["error"]
    assert [e["seq"] for e in closed["events"]] == list(range(1, len(recorded) + 2))
    last = closed["events"][-1]["data"]
    assert last["type"] == "error" and last["code"] == "interrupted"
    assert closed["run"]["event_count"] == len(recorded) + 1
    assert closed["run"]["duration_ms"] == shown["run"]["duration_ms"]  # the time it ran, not until closed
