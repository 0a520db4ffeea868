"""``deploy/compose.yaml`` stays true to the code: every ``FINDESK_*`` variable it sets is a setting findesk
accepts with that value, and every findesk command its services run exists with those options.

Docker cannot run on these machines, so this is what keeps the deployment description from drifting:
a renamed setting or command fails here instead of in someone's deployment.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from findesk.core.config import load_settings
from findesk.core.result import Err
from findesk.interfaces.cli.main import app

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
COMPOSE = DEPLOY / "compose.yaml"


def _compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return loaded


def _expand(value: str) -> str:
    """Compose's ``${VAR}``, ``${VAR:-default}`` and ``${VAR:?message}`` with a stand-in value."""
    return re.sub(r"\$\{[A-Z_]+(?::[-?][^}]*)?\}", "secret", value)


def _findesk_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for service in _compose()["services"].values():
        for key, value in (service.get("environment") or {}).items():
            if key.startswith("FINDESK_"):
                env[key] = _expand(str(value))
    return env


def test_the_compose_file_names_the_shared_services() -> None:
    services = _compose()["services"]
    assert {"postgres", "migrate", "api-1", "api-2", "mcp", "ray-head", "ray-worker"} <= set(services)
    assert "pgvector" in services["postgres"]["image"]
    assert services["api-1"]["healthcheck"]["test"][-1].endswith("/healthz")
    assert services["migrate"]["command"] == ["findesk", "db", "upgrade"]


def test_every_findesk_variable_is_a_real_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    env = _findesk_env()
    assert {"FINDESK_AUDIT_URL", "FINDESK_RETRIEVAL_URL", "FINDESK_STATE_DIR"} <= set(env)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    loaded = load_settings()
    assert not isinstance(loaded, Err), loaded.message() if isinstance(loaded, Err) else ""
    settings = loaded.value
    assert settings.resolved_audit_url().startswith("postgresql+psycopg://findesk:")
    assert settings.retrieval_url == env["FINDESK_RETRIEVAL_URL"]
    assert settings.api.require_keys is True
    assert str(settings.state_dir) == "/state"


def test_a_misspelt_variable_would_be_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # the check above means something only if a name that is no setting is refused, not skipped
    monkeypatch.setenv("FINDESK_API__REQUIRE_KEY", "true")
    refused = load_settings()
    assert isinstance(refused, Err)
    assert "did you mean FINDESK_API__REQUIRE_KEYS?" in refused.reason


@pytest.mark.parametrize(
    "service", ["migrate", "api-1", "mcp", "index-build"], ids=lambda s: f"{s}-command-exists"
)
def test_each_findesk_command_of_the_compose_file_exists(service: str) -> None:
    command = _compose()["services"][service]["command"]
    assert command[0] == "findesk"
    words = [w for w in command[1:] if not w.startswith("-")]
    # the command words (before any option) with --help: exit 0 and the usage line of that command
    path = words[: 2 if words[:1] in (["db"], ["index"]) else 1]
    got = CliRunner().invoke(app, [*path, "--help"])
    assert got.exit_code == 0, got.output
    for option in (w.split("=")[0] for w in command[1:] if w.startswith("--")):
        assert option in got.output, f"{' '.join(path)} has no option {option}"
