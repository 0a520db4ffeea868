"""``findesk memory list|reflect|clear``: the trading desk's decision log as a user sees it: decisions
scored only once their horizon has passed as of the date asked, reflections listed, clearing confirmed,
another user's log untouched."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from typer.testing import CliRunner, Result

from findesk.core.config import Settings
from findesk.interfaces.cli.main import app
from findesk.knowledge.memory.decisions import DecisionLog, LoggedDecision

runner = CliRunner()


def findesk(*args: str) -> Result:
    return runner.invoke(app, list(args))


def state_db() -> Path:
    return Settings().state_dir / "audit.sqlite3"


def log_decision(user: str, run_id: str, decided_on: date, ticker: str = "NVDA") -> None:
    log = DecisionLog.from_settings(Settings())
    try:
        decision = LoggedDecision(
            run_id=run_id,
            ticker=ticker,
            decided_on=decided_on,
            session=decided_on,
            rating="BUY",
            manager_rating="BUY",
            position_pct=5.0,
            direction="long",
            horizon_days=20,
            situation=f"{ticker} semiconductors regime risk-on market bullish",
            roles={"bull": "data center demand", "bear": "valuation stretched"},
        )
        assert log.log(user, decision).unwrap() is True
    finally:
        log.close()


def test_listing_and_clearing_nothing_creates_nothing() -> None:
    listed = findesk("memory", "list")
    assert listed.exit_code == 0 and "no trading decisions logged for local" in listed.stdout
    assert json.loads(findesk("memory", "list", "--json").stdout)["data"] == {
        "decisions": [],
        "reflections": [],
    }
    cleared = findesk("memory", "clear", "--yes", "--json")
    assert cleared.exit_code == 0 and json.loads(cleared.stdout)["data"] == {"decisions": 0, "reflections": 0}
    assert not state_db().exists()


def test_clear_refuses_without_yes_and_then_deletes_only_the_users_log() -> None:
    log_decision("local", "mine", date(2024, 5, 10))
    log_decision("key:bob", "bobs", date(2024, 5, 10), ticker="XOM")

    refused = findesk("memory", "clear")
    assert refused.exit_code == 2 and "run it again with --yes" in refused.stderr
    assert "nothing was deleted" in refused.stderr
    assert len(json.loads(findesk("memory", "list", "--json").stdout)["data"]["decisions"]) == 1

    cleared = findesk("memory", "clear", "--yes")
    assert cleared.exit_code == 0 and "cleared 1 decision and 0 reflections of local" in cleared.stdout
    assert "no trading decisions logged" in findesk("memory", "list").stdout
    bob = json.loads(findesk("memory", "list", "--user", "key:bob", "--json").stdout)["data"]
    assert [(d["run_id"], d["ticker"], d["status"]) for d in bob["decisions"]] == [("bobs", "XOM", "pending")]


def test_reflect_scores_a_decision_only_once_its_horizon_has_passed_as_of_the_date(
    snapshot_dir: Path,
) -> None:
    log_decision("local", "nvda-may", date(2024, 5, 10))
    log_decision("local", "nvda-june", date(2024, 6, 20))  # made after the dates reflected on below
    log_decision("key:bob", "bobs", date(2024, 5, 10))

    early = findesk("memory", "reflect", "--as-of", "2024-06-07", "--snapshot")
    assert early.exit_code == 0, early.output
    assert "nothing scored as of 2024-06-07: 1 decision of local still pending" in early.stdout

    scored = findesk("memory", "reflect", "--as-of", "2024-06-10", "--snapshot", "--json")
    assert scored.exit_code == 0, scored.output
    data = json.loads(scored.stdout)["data"]
    assert data["still_pending"] == 0 and data["warnings"] == []
    (only,) = data["scored"]
    assert only["decision"]["run_id"] == "nvda-may" and only["reflections"] == 5
    assert only["outcome"]["exit_date"] == "2024-06-10" and only["outcome"]["sessions"] == 20
    assert round(only["outcome"]["return_pct"], 1) == 35.5  # NVDA 89.83 -> 121.73 (split-adjusted)
    assert only["outcome"]["alpha_pp"] == only["outcome"]["return_pct"] - only["outcome"]["spy_return_pct"]

    listed = findesk("memory", "list")
    assert listed.exit_code == 0, listed.output
    row = next(line for line in listed.stdout.splitlines() if "2024-05-10" in line and "scored" in line)
    assert "NVDA" in row and "+35.5%" in row and "2024-06-10" in row
    assert "pending" in next(line for line in listed.stdout.splitlines() if "2024-06-20" in line)
    reflections = json.loads(findesk("memory", "list", "--json").stdout)["data"]["reflections"]
    assert sorted(r["role"] for r in reflections) == sorted(
        ["bull", "bear", "trader", "research_manager", "risk_manager"]
    )
    assert {r["outcome_known"] for r in reflections} == {"2024-06-10"}
    bull = next(r for r in reflections if r["role"] == "bull")
    assert bull["lesson"].startswith("NVDA 2024-05-10 bull case, desk BUY: NVDA +35.5% vs SPY")

    again = findesk("memory", "reflect", "--as-of", "2024-06-10", "--snapshot", "--json")
    assert json.loads(again.stdout)["data"]["scored"] == []  # scored once
    bob = json.loads(findesk("memory", "list", "--user", "key:bob", "--json").stdout)["data"]
    assert [d["status"] for d in bob["decisions"]] == ["pending"] and bob["reflections"] == []
