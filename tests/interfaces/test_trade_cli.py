"""``findesk trade`` as a trader types it: a ticker and a date; JSON with the final rating and size; the
rounds as options; bad input refused in one line before anything runs."""

from __future__ import annotations

import json

from typer.testing import CliRunner, Result

from findesk.interfaces.cli.main import app

runner = CliRunner()
RATINGS = {"BUY", "OVERWEIGHT", "HOLD", "UNDERWEIGHT", "SELL"}


def findesk(*args: str) -> Result:
    return runner.invoke(app, list(args))


def test_help_names_the_date_and_rounds() -> None:
    shown = findesk("trade", "--help").stdout
    for option in ("--date", "--debate-rounds", "--risk-rounds", "--as-of", "--format", "--mode"):
        assert option in shown, option
    assert "--user" not in shown  # bound to the caller, never typed


def test_json_carries_the_final_rating_and_size() -> None:
    got = findesk("trade", "NVDA", "--date", "2024-05-10", "--debate-rounds", "3", "-f", "json", "-q")
    assert got.exit_code == 0, got.stderr
    report = json.loads(got.stdout)
    assert report["identity"]["cik"] == 1045810 and report["as_of"] == "2024-05-10"
    assert report["final_decision"]["rating"] in RATINGS
    assert isinstance(report["final_decision"]["position_pct"], float)
    assert len(report["investment_debate"]) == 6


def test_the_terminal_view_names_the_company_and_the_decision_first() -> None:
    got = findesk("trade", "AAPL", "--date", "2025-08-29", "-q")
    assert got.exit_code == 0, got.stderr
    lines = got.stdout.splitlines()
    assert lines[0].startswith("AAPL — Apple Inc.") and "CIK 320193" in lines[0]
    assert any(line.startswith("FINAL DECISION: ") for line in lines[:4])


def test_bad_input_is_one_line_and_runs_nothing() -> None:
    for args, says in (
        (["trade", "NVDA", "--date", "2024-13-01"], "date"),
        (["trade", "NVDA", "--debate-rounds", "9"], "debate_rounds"),
        (["trade", "VOD.L"], "VOD.L"),
        (["trade", "ZZZZQ", "--date", "2024-05-10"], "ZZZZQ"),
        (["trade", "SPY", "--date", "2024-05-10"], "SPY"),
        (["trade", "NVDA", "--date", "2030-01-02"], "--as-of 2030-01-02"),
    ):
        got = findesk(*args, "-q")
        assert got.exit_code != 0, args
        assert says in got.stderr, (args, got.stderr)
        assert "Traceback" not in got.stderr


def test_params_travel_as_json_and_change_the_plan() -> None:
    got = findesk(
        "trade",
        "NVDA",
        "--date",
        "2024-05-10",
        "--params",
        '{"plan": {"max_position_pct": 3}}',
        "-f",
        "json",
        "-q",
    )
    assert got.exit_code == 0, got.stderr
    report = json.loads(got.stdout)
    assert report["params"]["plan"]["max_position_pct"] == 3
    assert 0 < report["final_decision"]["position_pct"] <= 3
    bad = findesk(
        "trade", "NVDA", "--date", "2024-05-10", "--params", '{"plan": {"max_position_pct": 500}}', "-q"
    )
    assert bad.exit_code != 0 and "max_position_pct" in bad.stderr
