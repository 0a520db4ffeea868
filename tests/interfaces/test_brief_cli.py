"""``findesk brief``: the briefing end to end as a real process, in every format, recorded for replay."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from findesk.interfaces.cli.brief_view import SCREEN_LINES
from findesk.workflows.brief.models import SECTION_TITLES, Briefing
from snapshot_kit import env_without_settings

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)


def findesk(*args: str) -> subprocess.CompletedProcess[str]:
    env = env_without_settings()
    for key in ("FINDESK_CACHE_DIR", "FINDESK_CONFIG", "FINDESK_STATE_DIR"):
        env[key] = os.environ[key]
    return subprocess.run(
        [sys.executable, "-m", "findesk", *args], capture_output=True, text=True, env=env, timeout=300
    )


def test_json_briefing_is_typed_complete_and_replayable(snapshot_dir: Path) -> None:
    proc = findesk("brief", "AAPL", "--as-of", "2025-08-29", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    b = Briefing.model_validate_json(proc.stdout)
    assert b.snapshot.quote is not None and b.snapshot.quote.price == 232.14
    assert b.audit.data_mode == "offline snapshot as of 2025-08-29"
    shown = findesk("runs", "show", b.audit.run_id, "--json")
    assert shown.returncode == 0, shown.stderr
    assert b.audit.run_id in shown.stdout and "get_risk_factors" in shown.stdout


def test_markdown_and_html_hold_every_section_and_terminal_fits_one_screen(
    snapshot_dir: Path, tmp_path: Path
) -> None:
    md = findesk("brief", "NVDA", "--format", "markdown")
    assert md.returncode == 0, md.stderr
    positions = [md.stdout.index(title) for title in SECTION_TITLES]
    assert positions == sorted(positions)
    page = tmp_path / "nvda.html"
    html = findesk("brief", "NVDA", "--format", "html", "--output", str(page))
    assert html.returncode == 0, html.stderr
    assert "<script" not in page.read_text(encoding="utf-8") and "Divergences" in page.read_text(
        encoding="utf-8"
    )
    term = findesk("brief", "NVDA", "--quiet")
    assert term.returncode == 0, term.stderr
    assert len(term.stdout.splitlines()) <= SCREEN_LINES and "--details" in term.stdout
    details = findesk("brief", "NVDA", "--quiet", "--details")
    assert len(details.stdout.splitlines()) > len(term.stdout.splitlines())


def test_refusals_are_one_line_errors_with_exit_code_two(snapshot_dir: Path) -> None:
    out_of_scope = findesk("brief", "VOD.L")
    assert out_of_scope.returncode == 2 and "out_of_scope" in out_of_scope.stderr
    advice = findesk("brief", "AAPL", "--question", "Should I sell my Apple shares now?")
    assert advice.returncode == 2 and "refused" in advice.stderr and "investment advice" in advice.stderr
    bad = findesk("brief", "AAPL", "--format", "pdf")
    assert bad.returncode == 2 and "--format must be one of" in bad.stderr
    as_json = findesk("brief", "VOD.L", "--format", "json")
    assert as_json.returncode == 2 and json.loads(as_json.stdout)["error"]["code"] == "out_of_scope"


def test_unknown_ticker_exits_non_zero_with_not_found(snapshot_dir: Path) -> None:
    proc = findesk("brief", "NESN", "--as-of", "2025-08-29", "--quiet")
    assert proc.returncode == 4, proc.stdout
    assert "not_found" in proc.stderr and "NESN" in proc.stderr
    assert "Snapshot" not in proc.stdout
