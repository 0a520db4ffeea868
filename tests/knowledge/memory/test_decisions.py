"""The decision log on a real database, a SQLite file and a PostgreSQL database (``state_db``): logged
once per run, scored once, per user, and lessons that exist only from the day after their outcome was
known."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from findesk.core.result import Err, ErrorCode
from findesk.knowledge.memory import MemoryStore, extract_facts
from findesk.knowledge.memory.decisions import (
    MAX_LESSON_CHARS,
    MAX_SITUATION_CHARS,
    DecisionLog,
    LoggedDecision,
    Outcome,
    Reflection,
)
from findesk.workflows.trading import memory_hooks
from findesk.workflows.trading.memory_hooks import recall_log
from state_kit import execute, sqlite_file, tables

DECIDED = date(2024, 5, 10)
EXIT = date(2024, 6, 10)


@pytest.fixture
def url(state_db: str) -> str:
    return state_db


@pytest.fixture
def log(url: str) -> Iterator[DecisionLog]:
    opened = DecisionLog(url)
    yield opened
    opened.close()


def decision(run_id: str = "run-1", **update: Any) -> LoggedDecision:
    base = LoggedDecision(
        run_id=run_id,
        ticker="NVDA",
        decided_on=DECIDED,
        session=DECIDED,
        rating="BUY",
        manager_rating="OVERWEIGHT",
        position_pct=5.0,
        direction="long",
        entry=89.83,
        stop=80.0,
        target=100.0,
        horizon_days=20,
        situation="NVDA NVIDIA semiconductors. regime risk-on. market bullish +1.20: RSI(14) 71 overbought",
        roles={"bull": "data center demand", "bear": "valuation stretched"},
    )
    return base.model_copy(update=update)


def outcome(exit_date: date = EXIT) -> Outcome:
    return Outcome(
        entry_session=DECIDED,
        entry_close=89.83,
        exit_date=exit_date,
        exit_close=121.73,
        sessions=20,
        return_pct=35.5,
        spy_return_pct=2.85,
        alpha_pp=32.65,
        position_return_pct=11.3,
        exit_reason="target",
        stop_hit=False,
        target_hit=True,
    )


def reflection(run_id: str, role: str, known: date, situation: str, lesson: str) -> Reflection:
    return Reflection(
        id=f"{run_id}.{role}",
        role=role,
        ticker="NVDA",
        decided_on=DECIDED,
        outcome_known=known,
        situation=situation,
        lesson=lesson,
        return_pct=35.5,
        alpha_pp=32.65,
    )


def test_a_decision_is_logged_once_per_run_and_scored_once(log: DecisionLog) -> None:
    assert log.log("alice", decision()).unwrap() is True
    assert log.log("alice", decision(rating="SELL")).unwrap() is False  # a resumed run: nothing twice
    (logged,) = log.decisions("alice").unwrap()
    assert logged.rating == "BUY" and logged.status == "pending" and logged.logged_at is not None
    assert logged.roles == {"bull": "data center demand", "bear": "valuation stretched"}

    assert [d.run_id for d in log.pending("alice", known_by=date(2024, 6, 20)).unwrap()] == ["run-1"]
    scored = log.score("alice", "run-1", outcome()).unwrap()
    assert scored.status == "scored" and scored.exit_date == EXIT
    assert (scored.return_pct, scored.spy_return_pct, scored.alpha_pp) == (35.5, 2.85, 32.65)
    assert scored.target_hit is True and scored.stop_hit is False and scored.position_return_pct == 11.3
    assert log.pending("alice", known_by=date(2024, 6, 20)).unwrap() == []
    again = log.score("alice", "run-1", outcome(date(2024, 6, 11))).unwrap()
    assert again.exit_date == EXIT  # scoring twice changes nothing
    assert log.decision("alice", "run-1").unwrap().status == "scored"


def test_pending_never_offers_a_decision_made_on_or_after_the_date(log: DecisionLog) -> None:
    log.log("alice", decision("early")).unwrap()
    log.log("alice", decision("late", decided_on=date(2024, 7, 1), session=date(2024, 7, 1))).unwrap()
    assert [d.run_id for d in log.pending("alice", known_by=date(2024, 7, 1)).unwrap()] == ["early"]
    assert [d.run_id for d in log.pending("alice", known_by=date(2024, 7, 2)).unwrap()] == ["early", "late"]
    assert log.pending("alice", known_by=DECIDED).unwrap() == []
    bad = log.score("alice", "early", outcome(DECIDED))
    assert isinstance(bad, Err) and bad.code is ErrorCode.INVALID_INPUT  # no outcome before the horizon


def test_another_users_decisions_and_reflections_are_invisible(log: DecisionLog) -> None:
    log.log("key:bob", decision("bobs-run", ticker="XOM")).unwrap()
    log.add_reflections(
        "key:bob", [reflection("bobs-run", "bull", EXIT, "XOM energy", "bob's lesson")]
    ).unwrap()
    log.log("alice", decision("alices-run")).unwrap()

    assert [d.ticker for d in log.decisions("alice").unwrap()] == ["NVDA"]
    assert log.reflections("alice", "bull", date(2030, 1, 1)).unwrap() == []
    assert [d.run_id for d in log.pending("alice", date(2030, 1, 1)).unwrap()] == ["alices-run"]
    missing = log.score("alice", "bobs-run", outcome())
    assert isinstance(missing, Err) and missing.code is ErrorCode.NOT_FOUND
    assert isinstance(log.decision("alice", "bobs-run"), Err)
    # the same run id under two users is two decisions
    assert log.log("alice", decision("bobs-run")).unwrap() is True

    assert log.clear("alice").unwrap() == 2
    assert log.decisions("alice").unwrap() == []
    assert [d.run_id for d in log.decisions("key:bob").unwrap()] == ["bobs-run"]
    assert len(log.reflections("key:bob", None, date(2030, 1, 1)).unwrap()) == 1
    bad = log.decisions("bob; DROP TABLE memory_decisions")
    assert isinstance(bad, Err) and bad.code is ErrorCode.INVALID_INPUT


def test_a_reflection_known_after_the_date_is_invisible_then_visible_later(log: DecisionLog) -> None:
    lesson = "NVDA 2024-05-10 rated OVERWEIGHT: NVDA +35.5% vs SPY +2.8%; the rating was right."
    added = log.add_reflections(
        "alice", [reflection("run-1", "research_manager", EXIT, "NVDA semiconductors risk-on", lesson)]
    )
    assert added.unwrap() == 1
    assert (
        log.add_reflections("alice", [reflection("run-1", "research_manager", EXIT, "x", "again")]).unwrap()
        == 0
    )

    # known on the exit session 2024-06-10: not before, not on that day, from the next day on
    assert log.reflections("alice", "research_manager", date(2024, 6, 1)).unwrap() == []
    assert log.reflections("alice", "research_manager", EXIT).unwrap() == []
    (seen,) = log.reflections("alice", "research_manager", date(2024, 6, 11)).unwrap()
    assert seen.lesson == lesson and seen.outcome_known == EXIT
    assert log.reflections("alice", "bull", date(2024, 6, 11)).unwrap() == []  # another role's

    query = "AMD semiconductors risk-on overbought"
    at_exit, warnings = asyncio.run(recall_log(log, "alice", EXIT, query))
    assert at_exit == {} and warnings == []
    later, warnings = asyncio.run(recall_log(log, "alice", date(2024, 6, 11), query))
    assert later == {"research_manager": [f"(NVDA 2024-05-10) {lesson}"]} and warnings == []


def test_recall_injects_the_two_most_similar_lessons_per_role(log: DecisionLog) -> None:
    cases = {
        "a": "XOM energy oil risk-off oversold",
        "b": "NVDA semiconductors risk-on overbought data center",
        "c": "JPM banks credit losses transition",
        "d": "AMD semiconductors risk-on data center",
    }
    log.add_reflections(
        "alice", [reflection(run, "bull", EXIT, text, f"lesson {run}") for run, text in cases.items()]
    ).unwrap()
    found, _ = asyncio.run(
        recall_log(log, "alice", date(2025, 1, 1), "AVGO semiconductors risk-on data center")
    )
    assert found == {"bull": ["(NVDA 2024-05-10) lesson d", "(NVDA 2024-05-10) lesson b"]}


def test_texts_are_cleaned_and_capped(log: DecisionLog) -> None:
    noisy = "NVDA\x1b[31m risk-on\u202e " + "word " * 2_000
    log.log("alice", decision(situation=noisy, roles={"bull": "line\nbreak"})).unwrap()
    (kept,) = log.decisions("alice").unwrap()
    assert len(kept.situation) <= MAX_SITUATION_CHARS and "\x1b" not in kept.situation
    assert "\u202e" not in kept.situation and kept.roles == {"bull": "line break"}
    long_lesson = "x " * 400
    log.add_reflections("alice", [reflection("r", "bull", EXIT, "s", long_lesson)]).unwrap()
    (stored,) = log.reflections("alice", "bull", date(2030, 1, 1)).unwrap()
    assert len(stored.lesson) <= MAX_LESSON_CHARS


def test_reading_creates_nothing_and_an_older_database_still_lists_its_facts(url: str) -> None:
    reader = DecisionLog(url, read_only=True)
    assert reader.decisions("alice").unwrap() == []
    assert reader.reflections("alice", None, date(2030, 1, 1)).unwrap() == []
    reader.close()
    path = sqlite_file(url)
    assert not path.exists() if path is not None else tables(url) == set()

    store = MemoryStore(url)
    store.add_facts("alice", extract_facts("I own 200 shares of AAPL")).unwrap()
    store.close()
    # a database written before the decision log existed, only ever read since (a write would migrate it)
    execute(url, "DROP TABLE memory_reflections", "DROP TABLE memory_decisions")
    assert "memory_decisions" not in tables(url)
    facts = MemoryStore(url, read_only=True)
    assert [f.subject for f in facts.facts("alice").unwrap()] == ["AAPL"]  # read-only facts still read
    facts.close()
    reader = DecisionLog(url, read_only=True)
    assert reader.decisions("alice").unwrap() == []
    reader.close()


def test_a_run_without_a_memory_store_gets_warnings_never_an_error() -> None:
    kit: Any = SimpleNamespace(runtime=SimpleNamespace(ctx=SimpleNamespace(service=lambda _key: None)))
    lessons, warnings = asyncio.run(memory_hooks.recall(kit, "local", DECIDED, "NVDA"))
    assert lessons == {} and warnings[0].startswith("memory unavailable:")
    assert asyncio.run(memory_hooks.settle(kit, "local", DECIDED))[0].startswith("memory unavailable:")
    assert asyncio.run(memory_hooks.record(kit, "local", decision()))[0].startswith("memory unavailable:")


def test_a_failing_database_is_a_warning_for_the_run(tmp_path: Path) -> None:
    folder = tmp_path / "not-a-file.sqlite3"
    folder.mkdir()  # a directory where the database file should be: every open fails
    store = DecisionLog(f"sqlite:///{folder}")
    kit: Any = SimpleNamespace(runtime=SimpleNamespace(ctx=SimpleNamespace(service=lambda _key: store)))
    lessons, warnings = asyncio.run(memory_hooks.recall(kit, "local", DECIDED, "NVDA"))
    assert lessons == {} and warnings and warnings[0].startswith("memory unavailable:")
    recorded = asyncio.run(memory_hooks.record(kit, "local", decision()))
    assert recorded and "not logged" in recorded[0]
