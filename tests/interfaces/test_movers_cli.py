"""``findesk movers`` as a user types it: the session and --dry-run with --out; JSON naming the symbol and
its metrics; the .eml and the chart in the run folder; a bad recipient or a later date refused in one
line before anything runs."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner, Result

from findesk.interfaces.cli.main import app

runner = CliRunner()


def findesk(*args: str) -> Result:
    return runner.invoke(app, list(args))


def test_help_names_the_options_of_the_issue() -> None:
    shown = findesk("movers", "--help").stdout
    for option in ("--date", "--top", "--email", "--dry-run", "--out", "--format"):
        assert option in shown, option


def test_dry_run_json_names_the_symbol_and_writes_the_eml(tmp_path: Path) -> None:
    got = findesk("movers", "--date", "2025-08-29", "--dry-run", "--out", str(tmp_path), "-f", "json", "-q")
    assert got.exit_code == 0, got.stderr
    report = json.loads(got.stdout)
    assert report["symbol"] == "NEO"
    assert set(report["metrics"]) >= {"total_return_pct", "annualized_volatility_pct", "relative_return_pct"}
    folder = Path(report["output_dir"])
    assert folder.parent == tmp_path
    assert (folder / "report.eml").is_file() and (folder / "chart.png").is_file()
    assert json.loads((folder / "report.json").read_text())["symbol"] == "NEO"


def test_a_bad_recipient_or_a_later_date_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = findesk("movers", "--date", "2025-08-29", "--email", "not-an-address", "--out", str(tmp_path), "-q")
    assert bad.exit_code == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "email: 'not-an-address' is not an address" in bad.stderr
    later = findesk("movers", "--date", "2025-09-30", "--as-of", "2025-08-29", "-q")
    assert later.exit_code == 2 and "after the run's as-of date" in later.stderr
    assert not list(tmp_path.iterdir())
