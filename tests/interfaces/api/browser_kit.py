"""Browser test kit: ``findesk serve`` as a subprocess on a free loopback port, and Debian Chromium
driven by Playwright.

Rules: the server gets its own state and cache directories and no ``FINDESK_*`` variable of the caller
(only those a test passes in ``env``, e.g. ``FINDESK_WORKFLOWS`` for a plug-in); it is stopped (terminate,
then kill) when the context ends. Outside CI a module using the kit is skipped when Chromium or Playwright
is missing; in CI (``CI=true``) it fails.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - the dev extra installs it
    sync_playwright = None  # type: ignore[assignment]


def require_browser() -> None:
    """Skip (or, in CI, fail) the calling module when the browser cannot run."""
    if sync_playwright is None or not CHROMIUM.exists():
        reason = "Playwright or /usr/bin/chromium (Debian package chromium) is not installed"
        if os.environ.get("CI"):
            pytest.fail(f"the browser test must run in CI: {reason}", pytrace=False)
        pytest.skip(reason, allow_module_level=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(
    snapshot: Path | None, workdir: Path, env: Mapping[str, str] | None = None
) -> Iterator[tuple[str, str]]:
    """``findesk serve`` on 127.0.0.1 (on ``snapshot``, else the configured one): (base URL, start-up log).
    ``env``: variables set for the server on top of the caller's (minus its ``FINDESK_*``)."""
    port = free_port()
    server_env = {k: v for k, v in os.environ.items() if not k.startswith("FINDESK_")}
    server_env |= {"FINDESK_STATE_DIR": str(workdir / "state"), "FINDESK_CACHE_DIR": str(workdir / "cache")}
    if snapshot is not None:
        server_env["FINDESK_SNAPSHOT_DIR"] = str(snapshot)
    server_env |= dict(env or {})
    log = workdir / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "findesk", "serve", "--port", str(port)],
            env=server_env,
            stdout=out,
            stderr=out,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"findesk serve did not start:\n{log.read_text()}")
            time.sleep(0.2)
        yield url, log.read_text()
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextmanager
def browser_page(**context: Any) -> Iterator[Any]:
    """A fresh Chromium page (keyword arguments go to ``new_page``, e.g. ``viewport``)."""
    assert sync_playwright is not None
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser.new_page(**context)
        finally:
            browser.close()
