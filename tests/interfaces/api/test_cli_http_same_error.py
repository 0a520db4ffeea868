"""One mistake, one error body (issue 14, item 12): ``findesk <workflow> … --format json`` prints the very
``{"error": {"code", "message"}}`` document the HTTP API answers for the same bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from api_kit import MakeApi, brief

from snapshot_kit import env_without_settings

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)


def cli_error(*args: str) -> Any:
    env = env_without_settings()
    for key in ("FINDESK_CACHE_DIR", "FINDESK_CONFIG", "FINDESK_STATE_DIR"):
        env[key] = os.environ[key]
    proc = subprocess.run(
        [sys.executable, "-m", "findesk", "brief", *args, "--format", "json", "--quiet"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize(
    ("ticker", "question"),
    [
        ("BMW.DE", None),
        ("12345", None),
        ("ıbm", None),
        ("AAPL", "Should I buy AAPL now?"),
    ],
)
def test_the_cli_json_error_is_the_http_error_body(
    make_api: MakeApi, ticker: str, question: str | None
) -> None:
    body: dict[str, Any] = {"ticker": ticker, "as_of": "2025-08-29"}
    if question is not None:
        body["question"] = question
    status, _, http_error = brief(make_api(), body)
    assert status == 400
    args = [ticker, "--as-of", "2025-08-29", *(["--question", question] if question else [])]
    cli = cli_error(*args)
    assert cli == http_error
    assert set(cli["error"]) == {"code", "message"}
