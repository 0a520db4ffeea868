"""``findesk ask`` as a researcher types it: switches that read as switches, no caller fields to spoof,
a session carried across two commands, JSON for scripts."""

from __future__ import annotations

import json

from typer.testing import CliRunner, Result

from findesk.interfaces.cli.main import app

runner = CliRunner()


def findesk(*args: str) -> Result:
    return runner.invoke(app, list(args))


def test_help_offers_a_disclaimer_switch_and_no_caller_fields() -> None:
    shown = findesk("ask", "--help").stdout
    assert "--no-disclaimer" in shown and "--session" in shown
    assert "--user" not in shown and "--caller-tier" not in shown  # set by the interface, never typed


def test_a_follow_up_across_two_commands_and_the_disclaimer_switch() -> None:
    first = findesk(
        "ask", "What was NVDA revenue over the last two quarters?", "--session", "s1", "-f", "json", "-q"
    )
    assert first.exit_code == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["intents"] == ["equity"] and report["disclaimer"].startswith("For research only")
    second = findesk(
        "ask", "and compare it with AMD", "--session", "s1", "--no-disclaimer", "-f", "json", "-q"
    )
    assert second.exit_code == 0, second.stderr
    follow = json.loads(second.stdout)
    assert follow["subjects"]["tickers"] == ["NVDA", "AMD"] and follow["disclaimer"] is None
    assert "AMD revenue" in follow["answer"] and "NVDA revenue" in follow["answer"]
