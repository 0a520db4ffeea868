"""``findesk memory``: facts the desk took from your questions, listed and forgotten; sessions and
templates shown; another user's memory untouched."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner, Result

from findesk.core.config import Settings
from findesk.interfaces.cli.main import app
from findesk.knowledge.memory import MemoryStore, Turn, extract_facts

runner = CliRunner()


def findesk(*args: str) -> Result:
    return runner.invoke(app, list(args))


def remember(user: str, question: str) -> list[str]:
    store = MemoryStore.from_settings(Settings())
    try:
        return [f.id for f in store.add_facts(user, extract_facts(question)).unwrap().stored]
    finally:
        store.close()


def state_db() -> Path:
    return Settings().state_dir / "audit.sqlite3"


def test_listing_with_no_memory_creates_nothing() -> None:
    listed = findesk("memory", "facts")
    assert listed.exit_code == 0 and "nothing remembered about local" in listed.stdout
    assert json.loads(findesk("memory", "facts", "--format", "json").stdout)["data"] == []
    gone = findesk("memory", "forget", "abcdef123456")
    assert gone.exit_code == 4 and "no fact 'abcdef123456'" in gone.stderr
    assert not state_db().exists()


def test_facts_are_listed_and_forgotten_one_by_one_and_all_at_once() -> None:
    aapl, btc = remember("local", "I own 200 shares of AAPL and 1.5 BTC")
    (bobs,) = remember("key:bob", "I follow semiconductors")

    listed = findesk("memory", "facts")
    assert listed.exit_code == 0, listed.output
    row = next(line for line in listed.stdout.splitlines() if aapl in line)
    assert "holding" in row and "AAPL" in row and "200 shares" in row
    assert "semiconductors" not in listed.stdout  # another user's fact
    data = json.loads(findesk("memory", "facts", "--format", "json").stdout)["data"]
    assert [(f["id"], f["kind"], f["subject"], f["detail"]) for f in data] == [
        (aapl, "holding", "AAPL", "200 shares"),
        (btc, "holding", "BTC", "1.5"),
    ]
    assert data[0]["source"] == "I own 200 shares of AAPL and 1.5 BTC"

    other = findesk("memory", "forget", bobs)  # bob's fact, asked for as the local user
    assert other.exit_code == 4 and "no fact" in other.stderr
    forgot = findesk("memory", "forget", aapl)
    assert forgot.exit_code == 0 and f"forgot {aapl}: holding AAPL (200 shares)" in forgot.stdout
    assert aapl not in findesk("memory", "facts").stdout

    everything = json.loads(findesk("memory", "forget", "--all", "--format", "json").stdout)
    assert everything["data"] == {"forgotten": 1}
    assert "nothing remembered" in findesk("memory", "facts").stdout
    bob = json.loads(findesk("memory", "facts", "--user", "key:bob", "--format", "json").stdout)["data"]
    assert [f["id"] for f in bob] == [bobs]  # forgetting all of mine left bob's alone


def test_forget_needs_exactly_one_of_an_id_or_all() -> None:
    for args in (("memory", "forget"), ("memory", "forget", "abc", "--all")):
        refused = findesk(*args)
        assert refused.exit_code == 2 and "give one FACT_ID or --all" in refused.stderr
    json_error = json.loads(findesk("memory", "forget", "--format", "json").stdout)
    assert json_error["error"]["code"] == "invalid_input"
    bad_user = findesk("memory", "facts", "--user", "bob; DROP TABLE memory_facts")
    assert bad_user.exit_code == 2 and "user id" in bad_user.stderr


def test_a_session_shows_its_turns_and_markup_in_them_stays_text() -> None:
    store = MemoryStore.from_settings(Settings())
    try:
        store.add_turn(
            "local", "s1", Turn(question="NVDA revenue [bold]x[/bold]", resolved="NVDA revenue")
        ).unwrap()
        store.add_turn(
            "local",
            "s1",
            Turn(question="and AMD?", resolved="NVDA revenue Follow-up: AMD", answer_line="NVDA grew 56%."),
        ).unwrap()
    finally:
        store.close()
    shown = findesk("memory", "session", "s1")
    assert shown.exit_code == 0, shown.output
    assert "[bold]x[/bold]" in shown.stdout and "resolved: NVDA revenue Follow-up: AMD" in shown.stdout
    assert "answer: NVDA grew 56%." in shown.stdout
    assert "no turns" in findesk("memory", "session", "s1", "--user", "key:bob").stdout


def test_templates_are_listed() -> None:
    listed = findesk("memory", "templates", "--format", "json")
    names = {t["name"] for t in json.loads(listed.stdout)["data"]}
    assert {"full_equity_analysis"} <= names
    assert "full analysis of" in findesk("memory", "templates").stdout


def test_every_memory_command_takes_json_like_the_other_commands() -> None:
    (aapl,) = remember("local", "I own 200 shares of AAPL")
    listed = findesk("memory", "facts", "--json")
    assert listed.exit_code == 0, listed.output
    assert [f["id"] for f in json.loads(listed.stdout)["data"]] == [aapl]
    assert json.loads(findesk("memory", "session", "s1", "--json").stdout)["data"] == []
    assert json.loads(findesk("memory", "templates", "--json").stdout)["data"]
    refused = json.loads(findesk("memory", "forget", "--json").stdout)
    assert refused["error"]["code"] == "invalid_input"
    forgot = json.loads(findesk("memory", "forget", aapl, "--json").stdout)["data"]
    assert forgot["forgotten"] == 1 and forgot["fact"]["id"] == aapl
