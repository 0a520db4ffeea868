"""``kill -9`` of ``findesk serve`` in the middle of a run: no worker process outlives the server, and
the next server on the same state directory closes the run as interrupted, so ``GET /v1/runs/{id}``
and ``findesk runs list`` no longer show it running forever.

The run is the gated test workflow (``GATED`` in ``tests/plugin_workflows.py``, plugged in through
``FINDESK_WORKFLOWS``): it waits in its worker until the test kills the server.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from plugin_workflows import GATE_ENV, plugin_env
from serve_kit import Server, environment

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)


def _state(pid: int) -> str | None:
    """The process's state letter (R, S, Z …), None when there is no such process."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return None


def _alive(pid: int) -> bool:
    return _state(pid) not in (None, "Z", "X")  # a zombie has exited; only its entry waits to be reaped


def _descendants(root: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


@pytest.fixture
def env(tmp_path: Path, snapshot_dir: Path) -> Iterator[dict[str, str]]:
    gates = tmp_path / "gates"
    gates.mkdir()
    yield environment(
        (GATE_ENV,),
        FINDESK_SNAPSHOT_DIR=str(snapshot_dir),
        FINDESK_STATE_DIR=str(tmp_path / "state"),
        FINDESK_CACHE_DIR=os.environ["FINDESK_CACHE_DIR"],
        FINDESK_CONFIG=os.environ["FINDESK_CONFIG"],
        FINDESK_API__WORKERS="1",
        COLUMNS="250",
        **{GATE_ENV: str(gates)},
    ) | plugin_env("GATED")
    (gates / "x").touch()  # lets a stray run finish rather than wait out its gate


def _wait_for(what: str, check: object, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if callable(check) and check():
            return
        time.sleep(0.05)
    raise AssertionError(what)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_killing_the_server_leaves_no_worker_and_its_run_reads_interrupted_after_restart(
    env: dict[str, str], tmp_path: Path
) -> None:
    gates = Path(env[GATE_ENV])
    server = Server(env, tmp_path / "serve-1.log")
    try:
        server.wait_healthy()
        with (
            httpx.Client(timeout=30) as client,
            client.stream(
                "POST", f"{server.url}/v1/runs/gated", json={"input": {"gate": "x"}, "mode": "deterministic"}
            ) as response,
        ):
            assert response.status_code == 200, response.read()
            run_id = response.headers["X-Run-Id"]
            _wait_for("the run never reached its gate", (gates / "x.pid").exists, 60)
            family = _descendants(server.proc.pid)
            assert int((gates / "x.pid").read_text()) in family  # the worker running it
            server.proc.kill()
            server.proc.wait(10)
    finally:
        server.stop()
    _wait_for(
        f"worker processes outlived the server: {sorted(p for p in family if _alive(p))}",
        lambda: not any(_alive(pid) for pid in family),
        5,
    )

    # the restarted server needs no worker to close the run (and starts faster without one)
    again = Server(env | {"FINDESK_API__WORKERS": "0"}, tmp_path / "serve-2.log")
    try:
        again.wait_healthy()
        banner = again.log.read_text()
        assert "closed 1 run(s) left running by a process that ended" in banner
        # the banner advertises only what answers: no HTML docs (they would load from a CDN)
        assert "/docs" not in banner and "OpenAPI: /openapi.json" in banner
        assert httpx.get(f"{again.url}/openapi.json", timeout=10).status_code == 200
        shown = httpx.get(f"{again.url}/v1/runs/{run_id}", timeout=10)
        assert shown.status_code == 200, shown.text
        run = shown.json()["run"]
        assert run["status"] == "error", run
        assert run["error"].startswith("interrupted: the process running it (pid ")
        events = httpx.get(f"{again.url}/v1/runs/{run_id}/events", timeout=10).json()["events"]
        assert [e["data"]["type"] for e in events].count("error") == 1
        assert events[-1]["data"]["code"] == "interrupted"
    finally:
        again.stop()

    listed = subprocess.run(
        [sys.executable, "-m", "findesk", "runs", "list"], env=env, capture_output=True, text=True, timeout=60
    )
    assert listed.returncode == 0, listed.stderr
    line = next(line for line in listed.stdout.splitlines() if run_id in line)
    assert "interrupted" in line and "running" not in line
