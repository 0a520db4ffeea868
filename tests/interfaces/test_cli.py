"""The findesk command as a person runs it: real process, real exit codes, no tracebacks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def findesk(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("FINDESK_")}
    full_env["FINDESK_CACHE_DIR"] = os.environ["FINDESK_CACHE_DIR"]
    full_env["FINDESK_CONFIG"] = os.environ["FINDESK_CONFIG"]
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "findesk", *args], capture_output=True, text=True, env=full_env, timeout=120
    )


def assert_clean_failure(proc: subprocess.CompletedProcess[str], code: int, *needles: str) -> None:
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr
    for needle in needles:
        assert needle in lines[0]


def test_help_and_version() -> None:
    assert "data" in findesk("--help").stdout
    assert findesk("version").stdout.strip() == "findesk 0.1.0"


def test_quote_json_prints_the_real_close_with_source_and_date(snapshot_dir: Path) -> None:
    proc = findesk("data", "quote", "AAPL", "--as-of", "2025-08-29", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["context"] == "offline snapshot as of 2025-08-29"
    quote = out["data"]
    assert quote["price"] == 232.14
    assert quote["session_date"] == "2025-08-29"
    assert quote["source"]["vendor"] == "snapshot"
    assert quote["source"]["ref"].startswith("prices/")


def test_quote_table_states_the_data_mode(snapshot_dir: Path) -> None:
    proc = findesk("data", "quote", "NVDA")
    assert proc.returncode == 0, proc.stderr
    assert "offline snapshot as of 2025-08-29" in proc.stdout
    assert "NVDA" in proc.stdout


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (("data", "quote", "VOD.L"), 2, "out_of_scope"),
        (("data", "quote", "AAPL", "--as-of", "2025-02-30"), 2, "not a date"),
        (("data", "quote", "AAPL", "--as-of", "2999-01-01"), 2, "future"),
        (("data", "quote", "ZZZZZQ"), 4, "ZZZZZQ"),
        (("data", "bars", "SPY", "--start", "2025-08-29", "--end", "2025-08-01"), 2, "after"),
    ],
)
def test_bad_input_gets_one_line_and_an_exit_code(
    snapshot_dir: Path, args: tuple[str, ...], code: int, needle: str
) -> None:
    assert_clean_failure(findesk(*args), code, needle)


def test_missing_snapshot_directory(tmp_path: Path) -> None:
    proc = findesk(
        "data", "quote", "AAPL", "--snapshot", env={"FINDESK_SNAPSHOT_DIR": str(tmp_path / "gone")}
    )
    assert_clean_failure(proc, 3, "FINDESK_SNAPSHOT_DIR")


def test_live_sec_without_user_agent_is_refused() -> None:
    proc = findesk("data", "filings", "AAPL", "--live")
    assert_clean_failure(proc, 3, "not_configured", "FINDESK_SEC_USER_AGENT")


def test_live_fred_without_key_is_refused() -> None:
    proc = findesk("data", "macro", "DGS10", "--live")
    assert_clean_failure(proc, 3, "not_configured", "FINDESK_FRED_API_KEY")


def test_json_errors_are_json(snapshot_dir: Path) -> None:
    proc = findesk("data", "quote", "VOD.L", "--json")
    assert proc.returncode == 2
    assert json.loads(proc.stdout)["error"]["code"] == "out_of_scope"


def test_config_show_masks_secrets() -> None:
    proc = findesk("config", "show", "--json", env={"FINDESK_ETHERSCAN_API_KEY": "supersecretkey123456"})
    assert proc.returncode == 0, proc.stderr
    shown = json.loads(proc.stdout)["data"]
    assert shown["etherscan_api_key"] == "****3456"
    assert "supersecretkey" not in proc.stdout
