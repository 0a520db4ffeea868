"""``findesk serve`` options that are refused before anything listens."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from findesk.core.config import Settings
from findesk.interfaces.api.services import is_loopback, keys_required
from findesk.interfaces.cli.main import app

runner = CliRunner()


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::"])
def test_serving_without_keys_off_loopback_is_refused(host: str) -> None:
    result = runner.invoke(app, ["serve", "--host", host, "--no-keys", "--port", "0"])
    assert result.exit_code == 2
    assert "refusing to serve without API keys" in result.output


@pytest.mark.parametrize(
    ("host", "forced", "required"),
    [
        ("127.0.0.1", None, False),
        ("localhost", None, False),
        ("::1", None, False),
        ("0.0.0.0", None, True),
        ("10.0.0.5", None, True),
        ("127.0.0.1", True, True),
    ],
)
def test_keys_are_required_unless_only_loopback_listens(
    host: str, forced: bool | None, required: bool
) -> None:
    settings = Settings()
    settings = settings.model_copy(update={"api": settings.api.model_copy(update={"require_keys": forced})})
    assert keys_required(settings, host) is required
    assert is_loopback(host) is (host in ("127.0.0.1", "localhost", "::1"))
