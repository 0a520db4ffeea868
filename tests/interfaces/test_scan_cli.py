"""``findesk scan`` and ``findesk pipeline`` as a user types them: a date (and N); JSON with every phase and
8-10 stocks to investigate; the terminal view leads with the list; a later date or a bad N is refused in
one line before anything runs."""

from __future__ import annotations

import json

from typer.testing import CliRunner, Result

from findesk.interfaces.cli.main import app

runner = CliRunner()


def findesk(*args: str) -> Result:
    return runner.invoke(app, list(args))


def test_help_names_the_date_and_top() -> None:
    shown = findesk("scan", "--help").stdout
    for option in ("--date", "--as-of", "--format", "--mode"):
        assert option in shown, option
    piped = findesk("pipeline", "--help").stdout
    assert "--top" in piped and "--date" in piped and "--user" not in piped


def test_scan_json_has_every_phase_and_8_to_10_candidates() -> None:
    got = findesk("scan", "--date", "2025-08-29", "--mode", "deterministic", "-f", "json", "-q")
    assert got.exit_code == 0, got.stderr
    report = json.loads(got.stdout)
    assert report["date"] == "2025-08-29"
    for phase in ("geopolitical", "movers", "sectors", "industries"):
        assert report[phase]["phase"] == phase and report[phase]["board"] is not None
    picks = report["synthesis"]["stocks_to_investigate"]
    assert 8 <= len(picks) <= 10
    assert {"ticker", "sector", "rationale", "angle", "conviction", "catalysts", "risks"} <= set(picks[0])
    assert report["guard"]["untraced_numbers"] == []


def test_scan_terminal_leads_with_the_list() -> None:
    got = findesk("scan", "--date", "2025-08-29", "--mode", "deterministic", "-q")
    assert got.exit_code == 0, got.stderr
    lines = got.stdout.splitlines()
    assert lines[0] == "Market scan — 2025-08-29" and lines[3] == "STOCKS TO INVESTIGATE"
    assert lines[4].startswith(" 1. ")


def test_pipeline_top_2_prints_one_table_naming_the_runs() -> None:
    got = findesk(
        "pipeline", "--date", "2025-08-29", "--top", "2", "--mode", "deterministic", "-f", "json", "-q"
    )
    assert got.exit_code == 0, got.stderr
    report = json.loads(got.stdout)
    assert len(report["rows"]) == 2 and all(r["status"] == "ok" and r["run_id"] for r in report["rows"])
    shown = findesk("runs", "show", report["rows"][0]["run_id"])
    assert shown.exit_code == 0, shown.stderr  # each desk run is a recorded run of its own


def test_bad_input_is_one_line_and_runs_nothing() -> None:
    for args, says in (
        (["scan", "--date", "2025-13-01"], "date"),
        (["scan", "--date", "2030-01-02"], "--as-of 2030-01-02"),
        (["pipeline", "--top", "9"], "top"),
    ):
        got = findesk(*args, "-q")
        assert got.exit_code != 0, args
        assert says in got.stderr, (args, got.stderr)
        assert "Traceback" not in got.stderr
