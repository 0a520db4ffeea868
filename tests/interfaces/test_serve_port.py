"""``findesk serve`` on a port another program already listens on: one clear line, a non-zero exit,
and no start-up banner claiming a URL that nothing of ours serves."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from snapshot_kit import env_without_settings

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)


def _serve(port: int, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = env_without_settings()
    env |= {"FINDESK_STATE_DIR": str(tmp_path / "state"), "FINDESK_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run(
        [sys.executable, "-m", "findesk", "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_busy_port_is_refused_before_the_banner(tmp_path: Path) -> None:
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = int(other.getsockname()[1])
        proc = _serve(port, tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert f"port {port} on 127.0.0.1 is in use; pass --port" in out
    assert "findesk API on http://" not in out  # no banner for a server that never listened
    assert "Errno 98" not in out and "Traceback" not in out
