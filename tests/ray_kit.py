"""A Ray head on loopback for the tests that fan work out on a cluster, and a free port where nothing
listens.

``ray_head()`` starts ``ray start --head --block`` in a new process group, every port on 127.0.0.1, and
stops it by that group's id, so a test reaches no server it did not start and leaves no process behind.
Without Ray installed (or without its command beside the interpreter) it skips, except under ``CI``,
where it fails. A test module that uses it sets ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` at import,
before anything imports Ray (``LOOPBACK_ENV``): Ray reads it when it is imported, and without it swaps
the head's loopback address for the machine's own.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
HEAD_START_S = 60.0  # a cold head on a busy 2-core runner takes 5-15 s
STOP_WAIT_S = 10.0


def free_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _stop(process: subprocess.Popen[bytes]) -> None:
    """The head and every process it started (one process group, ours): TERM, then KILL."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            continue
        if sig is signal.SIGTERM:
            time.sleep(1.0)  # the raylet's children leave after the head; KILL any that stayed


def ray_head(num_cpus: int = 2) -> Iterator[str]:
    """A running Ray head's "127.0.0.1:PORT", stopped after; ``yield from`` it in a fixture."""
    ray_cli = Path(sys.executable).with_name("ray")
    missing = (
        "Ray is an optional extra: pip install 'findesk[ray]'"
        if importlib.util.find_spec("ray") is None
        else f"no ray command beside {sys.executable}"
        if not ray_cli.exists()
        else None
    )
    if missing is not None:
        if os.environ.get("CI"):  # CI installs .[dev]: a skip there would hide the cluster tests
            pytest.fail(f"the Ray tests must run in CI: {missing}", pytrace=False)
        pytest.skip(missing)
    # a short temp dir: Ray's Unix socket paths under it must stay under 107 bytes
    temp = tempfile.mkdtemp(prefix="fdray", dir="/tmp")
    port = free_port()
    env = {**os.environ, LOOPBACK_ENV: "0", "RAY_USAGE_STATS_ENABLED": "0"}
    command = [
        str(ray_cli),
        "start",
        "--head",
        "--block",
        "--node-ip-address=127.0.0.1",
        f"--port={port}",
        f"--num-cpus={num_cpus}",
        "--object-store-memory=100000000",
        "--include-dashboard=false",
        "--disable-usage-stats",
        f"--temp-dir={temp}",
    ]
    log = Path(temp) / "head.log"
    with log.open("wb") as out:
        head = subprocess.Popen(
            command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + HEAD_START_S
        while not _listening(port):
            if head.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the Ray head did not start: {log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.25)
        yield f"127.0.0.1:{port}"
    finally:
        _stop(head)
        shutil.rmtree(temp, ignore_errors=True)
