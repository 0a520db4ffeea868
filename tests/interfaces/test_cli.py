"""The findesk command as a person runs it: real process, real exit codes, no tracebacks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from snapshot_kit import env_without_settings

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)


def findesk(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = env_without_settings()
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
    assert shown["etherscan_api_key"] == "***"
    assert "supersecretkey" not in proc.stdout


def _data(*args: str) -> object:
    proc = findesk("data", *args, "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["as_of"] == "2025-08-29" and out["data_mode"] == "snapshot"
    return out["data"]


def test_data_commands_answer_from_the_snapshot_with_citations(snapshot_dir: Path) -> None:
    section = _data("section", "AAPL", "10-K", "1A")
    assert isinstance(section, dict)
    assert section["title"] == "Risk Factors" and section["filing_date"] == "2024-11-01"
    assert section["url"].startswith("https://www.sec.gov/Archives/edgar/data/320193/")

    filings = _data("filings", "NVDA", "--form", "8-K", "--limit", "5")
    assert isinstance(filings, list) and len(filings) == 5
    assert all(f["form"] == "8-K" and f["filing_date"] <= "2025-08-29" for f in filings)

    events = _data("events", "NVDA", "--limit", "1")
    assert isinstance(events, list)
    earnings = ("2.02", "Results of Operations and Financial Condition")
    assert earnings in {(e["item"], e["title"]) for e in events}

    facts = _data("facts", "NVDA", "Revenues", "--limit", "50")
    assert isinstance(facts, list)
    assert any(f["value"] == 46_743_000_000 and f["period_end"] == "2025-07-27" for f in facts)
    assert all(f["filed"] <= "2025-08-29" for f in facts)

    macro = _data("macro", "DGS10")
    assert isinstance(macro, dict)
    assert macro["observations"][-1] == {"date": "2025-08-29", "value": 4.23}

    news = _data("news", "AAPL")
    assert isinstance(news, list) and news
    assert all(n["published_at"][:10] <= "2025-08-29" for n in news)

    posts = _data("posts", "AAPL")
    assert isinstance(posts, dict)
    platforms = {p["platform"] for p in posts["posts"]}
    assert platforms == {"reddit", "stocktwits"}  # the AAPL stream of 2020-04-24 is before the as-of
    assert all(p["published_at"][:10] <= "2025-08-29" for p in posts["posts"])
    assert posts["posts"][0]["published_at"] >= posts["posts"][-1]["published_at"]

    screen = _data("sanctions", "0x722122dF12D4e14e13Ac3b6895a86e84145b6967")
    assert isinstance(screen, dict)
    assert screen["matches"] and screen["matches"][0]["entity"] == "TORNADO CASH"


def test_bars_between_dates(snapshot_dir: Path) -> None:
    bars = _data("bars", "SPY", "--start", "2025-08-25", "--end", "2025-08-29")
    assert isinstance(bars, dict)
    assert [b["date"] for b in bars["bars"]] == [f"2025-08-{d}" for d in (25, 26, 27, 28, 29)]
