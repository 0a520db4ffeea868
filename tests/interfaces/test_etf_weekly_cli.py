"""``findesk etf-weekly`` as the weekend analyst types it: a strategy file, a week, a folder; one run
folder with the dashboard, the Markdown and every agent's JSON; bad input refused in one line before
anything runs."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner, Result

from findesk.interfaces.cli.main import app

runner = CliRunner()
GROWTH = Path(__file__).parents[2] / "examples" / "strategy_growth.yaml"


def findesk(*args: str) -> Result:
    return runner.invoke(app, list(args))


def test_help_names_the_strategy_week_and_folder() -> None:
    shown = findesk("etf-weekly", "--help").stdout
    for option in ("--config", "--week-ending", "--out", "--as-of", "--format"):
        assert option in shown, option
    assert "--server" not in shown and "--watch" not in shown  # set by the interface, never typed


def test_a_week_writes_one_run_folder(tmp_path: Path) -> None:
    got = findesk(
        "etf-weekly",
        "--config",
        str(GROWTH),
        "--week-ending",
        "2025-05-23",
        "--as-of",
        "2025-05-23",
        "--out",
        str(tmp_path),
        "-f",
        "json",
        "-q",
    )
    assert got.exit_code == 0, got.stderr
    report = json.loads(got.stdout)
    assert report["strategy"]["name"] == "growth sectors pullback" and report["week_end"] == "2025-05-23"
    folders = [p for p in tmp_path.iterdir() if p.is_dir() and p.name.startswith("2025-05-23_")]
    assert len(folders) == 1 and str(folders[0].resolve()) == report["output_dir"]
    names = {p.name for p in folders[0].iterdir()} | {p.name for p in (folders[0] / "agents").iterdir()}
    assert {"dashboard.html", "report.md", "report.json", "quant.json", "news.json", "senior.json"} <= names
    assert (tmp_path / "history.jsonl").read_text().count("\n") == 1


def test_bad_input_is_one_line_and_runs_nothing(tmp_path: Path) -> None:
    typo = tmp_path / "s.yaml"
    typo.write_text("candidates:\n  include_leverage: true\n")
    for args, says in (
        (["--config", str(typo)], "include_leverage"),
        (["--config", str(tmp_path / "missing.yaml")], "does not exist"),
        (["--week-ending", "2025-13-01"], "week_ending"),
        (["--week-ending", "2025-09-05"], "after the run's as-of date"),
    ):
        got = findesk("etf-weekly", *args, "--out", str(tmp_path / "runs"), "-q")
        assert got.exit_code != 0, args
        assert says in got.stderr, (args, got.stderr)
        assert len(got.stderr.strip().splitlines()) <= 2, got.stderr
    assert not (tmp_path / "runs").exists()


def test_the_terminal_shows_the_week_on_one_screen(tmp_path: Path) -> None:
    got = findesk(
        "etf-weekly",
        "--config",
        str(GROWTH),
        "--week-ending",
        "2025-05-23",
        "--as-of",
        "2025-05-23",
        "--out",
        str(tmp_path),
        "-q",
    )
    assert got.exit_code == 0, got.stderr
    lines = got.stdout.strip().splitlines()
    assert lines[0] == "Weekly ETF analyst — week ending 2025-05-23"
    assert any(line.startswith("Candidates (flag") for line in lines) and "PTNQ" in got.stdout
    assert len(lines) < 60  # the compact view, not the whole Markdown report
