"""Settings under attack (issue 14): ``config show`` never prints a credential, nonsense HTTP numbers fail
validation with the setting's name, a config path that is a folder is called a folder, and a missing
snapshot is an error that says where it was looked for instead of a silent switch to live sources."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from findesk.core.config import Settings, load_settings, masked_settings, snapshot_search_paths
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.context import resolve_context

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)

PASSWORDS = ("dbPa55word", "openaiUrlPw", "ollamaUrlPw", "routerUrlPw", "anthropicUrlPw")
KEYS = ("sk-ant-abcdefghijkl1234", "sk-openai-abcdefgh5678", "fredkey0123456789", "server-key-abcdef9999")

CONFIG = f"""
audit_url = "postgresql+psycopg://findesk:{PASSWORDS[0]}@db.internal:5432/audit?sslmode=require"
fred_api_key = "{KEYS[2]}"

[llm]
anthropic_api_key = "{KEYS[0]}"
openai_api_key = "{KEYS[1]}"
openai_base_url = "https://proxy:{PASSWORDS[1]}@llm.internal/v1"
anthropic_base_url = "https://user:{PASSWORDS[4]}@anthropic-proxy.internal/"

[llm.servers.ollama]
base_url = "http://admin:{PASSWORDS[2]}@127.0.0.1:11434/v1"

[llm.servers.router]
base_url = "https://openrouter.example/api/v1?api_key={PASSWORDS[3]}&region=us"
api_key = "{KEYS[3]}"
"""


def _write_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cfg = tmp_path / "findesk.toml"
    cfg.write_text(CONFIG)
    monkeypatch.setenv("FINDESK_CONFIG", str(cfg))
    return cfg


def test_masked_settings_hide_every_credential_and_keep_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write_config(tmp_path, monkeypatch)
    shown = masked_settings(load_settings().unwrap())
    text = json.dumps(shown)
    for secret in (*PASSWORDS, *KEYS):
        assert secret not in text
    # still readable: which database, which host, that a key is set
    assert shown["audit_url"] == "postgresql+psycopg://findesk:***@db.internal:5432/audit?sslmode=require"
    assert shown["llm"]["openai_base_url"] == "https://proxy:***@llm.internal/v1"
    assert shown["llm"]["servers"]["ollama"]["base_url"] == "http://admin:***@127.0.0.1:11434/v1"
    assert shown["llm"]["servers"]["router"]["base_url"] == (
        "https://openrouter.example/api/v1?api_key=***&region=us"
    )
    assert shown["llm"]["servers"]["router"]["api_key"] == "***"
    assert shown["fred_api_key"] == "***" and shown["llm"]["anthropic_api_key"] == "***"
    assert shown["newsapi_api_key"] is None  # not set stays visibly unset


@pytest.mark.parametrize("as_json", [True, False])
def test_config_show_prints_no_credential(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, as_json: bool
) -> None:
    _write_config(tmp_path, monkeypatch)
    env = {**os.environ, "FINDESK_LLM__SERVERS__VLLM__BASE_URL": "http://u:envUrlPw@127.0.0.1:8001/v1"}
    args = ["config", "show", *(["--json"] if as_json else [])]
    proc = subprocess.run(
        [sys.executable, "-m", "findesk", *args], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    for secret in (*PASSWORDS, *KEYS, "envUrlPw"):
        assert secret not in proc.stdout + proc.stderr
    assert "db.internal" in proc.stdout and "127.0.0.1:8001" in proc.stdout


@pytest.mark.parametrize(
    ("name", "value", "needle"),
    [
        ("timeout_s", -1, "http.timeout_s"),
        ("timeout_s", 0, "http.timeout_s"),
        ("timeout_s", "nan", "http.timeout_s"),
        ("backoff_base_s", -0.5, "http.backoff_base_s"),
        ("backoff_max_s", -1, "http.backoff_max_s"),
        ("breaker_failures", 0, "http.breaker_failures"),
        ("breaker_cooldown_s", -5, "http.breaker_cooldown_s"),
        ("default_rps", -1, "http.default_rps"),
        ("max_response_bytes", 0, "http.max_response_bytes"),
    ],
)
def test_nonsense_http_numbers_fail_validation_naming_the_setting(
    monkeypatch: pytest.MonkeyPatch, name: str, value: object, needle: str
) -> None:
    monkeypatch.setenv(f"FINDESK_HTTP__{name.upper()}", str(value))
    got = load_settings()
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT
    assert needle in got.reason


def test_nonsense_rate_limit_and_freshness_fail_validation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FINDESK_HTTP__RATE_LIMITS", '{"www.sec.gov": -10}')
    got = load_settings()
    assert isinstance(got, Err) and "http.rate_limits.www.sec.gov" in got.reason
    monkeypatch.delenv("FINDESK_HTTP__RATE_LIMITS")
    monkeypatch.setenv("FINDESK_HTTP__FRESHNESS", '{"quote": -60}')
    got = load_settings()
    assert isinstance(got, Err) and "http.freshness.quote" in got.reason


def test_a_config_path_that_is_a_folder_is_called_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FINDESK_CONFIG", str(tmp_path))
    got = load_settings()
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT
    assert "is a folder" in got.reason and "does not exist" not in got.reason
    monkeypatch.setenv("FINDESK_CONFIG", str(tmp_path / "missing.toml"))
    missing = load_settings()
    assert isinstance(missing, Err) and "does not exist" in missing.reason


def test_no_snapshot_found_is_an_error_naming_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A clone without ``../shared``: auto mode must not switch to live sources on its own."""
    monkeypatch.delenv("FINDESK_SNAPSHOT_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("findesk.core.config._CHECKOUT", tmp_path / "clone")
    searched = snapshot_search_paths()
    assert searched and all(not (p / "snapshot.json").is_file() for p in searched)
    got = resolve_context(Settings())
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_CONFIGURED
    for place in searched:
        assert str(place) in got.reason
    for hint in ("FINDESK_SNAPSHOT_DIR", "--live", "FINDESK_MODE=live"):
        assert hint in got.reason
    # live sources only when asked for, by flag or by setting
    assert isinstance(resolve_context(Settings(), mode="live"), Ok)
    assert isinstance(resolve_context(Settings(mode="live")), Ok)


def test_a_snapshot_setting_pointing_nowhere_names_the_path(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    for where in (empty, tmp_path / "nowhere"):
        got = resolve_context(Settings(snapshot_dir=where))
        assert isinstance(got, Err) and got.code is ErrorCode.NOT_CONFIGURED
        assert str(where) in got.reason and "FINDESK_SNAPSHOT_DIR" in got.reason


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("FINDESK_AUDITURL", "FINDESK_AUDIT_URL"),  # a server would get a private SQLite file
        ("FINDESK_TELEMETRY__OTLP_ENDPOINTS", "FINDESK_TELEMETRY__OTLP_ENDPOINT"),
        ("FINDESK_EXECUTOR__ADRESS", "FINDESK_EXECUTOR__ADDRESS"),
    ],
)
def test_a_findesk_variable_that_names_no_setting_is_refused_with_the_near_name(
    monkeypatch: pytest.MonkeyPatch, name: str, hint: str
) -> None:
    monkeypatch.setenv(name, "postgresql://db/findesk")
    refused = load_settings()
    assert isinstance(refused, Err) and refused.code is ErrorCode.INVALID_INPUT
    assert refused.reason.startswith(f"{name} is not a findesk setting (did you mean {hint}?)")


def test_free_keys_below_a_mapping_and_the_non_setting_variables_are_accepted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FINDESK_LLM__SERVERS__VLLM__BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("FINDESK_DEBUG", "1")
    monkeypatch.setenv("FINDESK_WORKFLOWS", "")
    loaded = load_settings()
    assert isinstance(loaded, Ok), loaded
    assert loaded.value.llm.servers["vllm"].base_url == "http://127.0.0.1:9/v1"


@pytest.mark.parametrize(
    "endpoint", ["not-a-url", "127.0.0.1:4318/v1/traces", "ftp://h/v1/traces", "http:// x"]
)
def test_an_otlp_endpoint_that_is_no_http_url_is_refused(
    monkeypatch: pytest.MonkeyPatch, endpoint: str
) -> None:
    # accepted, it would cost every run's trace with only a warning to show for it
    monkeypatch.setenv("FINDESK_TELEMETRY__OTLP_ENDPOINT", endpoint)
    refused = load_settings()
    assert isinstance(refused, Err) and "telemetry.otlp_endpoint" in refused.reason
    assert "is not an http(s) URL" in refused.reason
