"""``findesk serve`` as a real subprocess, for the tests that need the server a user runs.

Rules:
- It listens on 127.0.0.1 only, on a port that was free a moment before.
- Its environment is the one the caller builds (``environment``: the caller's own minus the prefixes
  that would leak the developer's or the test session's settings, plus the given values); its output
  goes to a log file that every failure quotes.
- ``wait_healthy`` fails (with the log) as soon as the process has exited, or when ``/healthz`` has not
  answered 200 in time: a server that cannot start never hangs a test.
- ``stop`` terminates the server (its workers end with it), then kills it if it is still there after
  ``STOP_S``; ``serving`` stops it whatever the test did.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from snapshot_kit import env_without_settings

STOP_S = 30.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def environment(drop: tuple[str, ...] = (), **values: str) -> dict[str, str]:
    """The caller's environment without its ``FINDESK_*`` settings (but the session's shared snapshot
    indexes) and the variables starting with ``drop``, plus ``values``."""
    return {k: v for k, v in env_without_settings().items() if not (drop and k.startswith(drop))} | values


class Server:
    """``findesk serve`` started on a free loopback port (not yet answering: see ``wait_healthy``)."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        command = [sys.executable, "-m", "findesk", "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        with log.open("wb") as out:  # the child keeps its own copy of the descriptor
            self.proc = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait_healthy(self, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            if self.proc.poll() is not None:
                pytest.fail(f"findesk serve exited ({self.proc.returncode}):\n{self.log.read_text()}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"findesk serve never answered /healthz:\n{self.log.read_text()}")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(STOP_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


@contextmanager
def serving(env: dict[str, str], log: Path, timeout_s: float = 60.0) -> Iterator[Server]:
    """A server answering ``/healthz``, stopped when the block ends."""
    server = Server(env, log)
    try:
        server.wait_healthy(timeout_s)
        yield server
    finally:
        server.stop()
