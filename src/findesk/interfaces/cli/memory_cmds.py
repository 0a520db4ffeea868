"""``findesk memory …``: what the research desk remembers about you, shown and deleted on request.

Rules:
- the CLI's user is the local user (``local``, the same user ``findesk ask`` runs as); ``--user``
  reads or deletes another user's memory (an API key's is ``key:<id>``): whoever runs the CLI holds
  the state database anyway.
- listing creates nothing: without a memory store there is simply nothing remembered.
- ``forget`` takes one fact id, or ``--all``, never both; an unknown id (or another user's) is
  ``not_found`` (exit 4), and nothing is written.
- text from memory (questions, facts) is printed as text, never as markup.
- ``--json`` prints one JSON document, as every other command; ``--format json`` is the same.
- the trading desk's decision log: ``list`` shows the user's logged decisions and reflections (creating
  nothing); ``reflect [--as-of D]`` scores the pending decisions whose horizon has passed, with data as
  of D (a decision made on or after D is never scored at D); ``clear`` deletes the user's decisions and
  reflections only with ``--yes`` (without it, exit 2 and nothing is deleted).
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

import typer
from rich.table import Table
from rich.text import Text

from findesk.core.result import Err, ErrorCode
from findesk.interfaces.cli import session as ses
from findesk.knowledge.memory.decisions import MAX_DECISIONS_PER_USER, ROLES, DecisionLog
from findesk.knowledge.memory.models import Fact
from findesk.knowledge.memory.store import MemoryStore
from findesk.workflows.spec import LOCAL_CALLER

if TYPE_CHECKING:
    from findesk.knowledge.memory.decisions import LoggedDecision

memory_app = typer.Typer(
    help=(
        "What the desks remember: facts about you (facts, forget), sessions, templates, and the trading "
        "desk's decision log and reflections (list, reflect, clear)."
    ),
    no_args_is_help=True,
)

USER = typer.Option(LOCAL_CALLER.user, "--user", "-u", help="Whose memory (an API key's is key:<id>).")
FORMAT = typer.Option("terminal", "--format", "-f", help="terminal | json (--json is the same as json)")
JSON = typer.Option(False, "--json", help="Print one JSON document instead of text.")


def _json(fmt: str, as_json: bool) -> bool:
    if fmt not in ("terminal", "json"):
        ses.fail(Err(ErrorCode.INVALID_INPUT, f"unknown format {fmt!r}: use terminal or json"), as_json)
    return as_json or fmt == "json"


def _store(as_json: bool, *, write: bool) -> MemoryStore:
    return MemoryStore.from_settings(ses.load(as_json), read_only=not write)


def _what(fact: Fact) -> str:
    return f"{fact.kind} {fact.subject}" + (f" ({fact.detail})" if fact.detail else "")


@memory_app.command("facts")
def facts(user: str = USER, fmt: str = FORMAT, json_flag: bool = JSON) -> None:
    """The facts remembered about you: holdings, assets and themes you follow, each with its id."""
    as_json = _json(fmt, json_flag)
    store = _store(as_json, write=False)
    try:
        found = ses.unwrap(store.facts(user), as_json)
    finally:
        store.close()
    if as_json:
        ses.emit_json(None, found)
        return
    if not found:
        ses.say(f"nothing remembered about {user}")
        return
    table = Table(title=Text(f"Facts remembered about {user}"))
    for column in ("id", "kind", "subject", "detail", "from the question", "when"):
        table.add_column(column)
    for fact in found:
        table.add_row(
            fact.id,
            fact.kind,
            Text(fact.subject),
            Text(fact.detail),
            Text(fact.source),
            ses.when(fact.created_at),
        )
    ses.stdout.print(table)
    ses.say("Delete one with `findesk memory forget ID`, all with `findesk memory forget --all`.")


@memory_app.command("forget")
def forget(
    fact_id: str | None = typer.Argument(None, metavar="[FACT_ID]", help="A fact's id, from `memory facts`."),
    every: bool = typer.Option(False, "--all", help="Forget every fact about the user."),
    user: str = USER,
    fmt: str = FORMAT,
    json_flag: bool = JSON,
) -> None:
    """Forget one fact (by id) or all of them (--all)."""
    as_json = _json(fmt, json_flag)
    if (fact_id is None) == (not every):
        ses.fail(Err(ErrorCode.INVALID_INPUT, "give one FACT_ID or --all (not both)"), as_json)
    reader = _store(as_json, write=False)
    try:
        held = ses.unwrap(reader.facts(user), as_json)
    finally:
        reader.close()
    if fact_id is not None and not any(f.id == fact_id.strip().lower() for f in held):
        # checked before opening for writing, so forgetting nothing never creates the database
        ses.fail(
            Err(ErrorCode.NOT_FOUND, f"no fact {fact_id.strip()[:40]!r} remembered about {user}"), as_json
        )
    if not held:
        if as_json:
            ses.emit_json(None, {"forgotten": 0})
        else:
            ses.say(f"nothing remembered about {user}")
        return
    store = _store(as_json, write=True)
    try:
        if fact_id is not None:
            gone = ses.unwrap(store.forget(user, fact_id), as_json)
            if as_json:
                ses.emit_json(None, {"forgotten": 1, "fact": gone})
            else:
                ses.say(f"forgot {gone.id}: {_what(gone)}")
            return
        count = ses.unwrap(store.forget_all(user), as_json)
    finally:
        store.close()
    if as_json:
        ses.emit_json(None, {"forgotten": count})
    else:
        ses.say(f"forgot {count} fact{'s' if count != 1 else ''} about {user}")


@memory_app.command("session")
def session(
    session_id: str = typer.Argument(..., metavar="SESSION", help="The session id given to `ask --session`."),
    limit: int = typer.Option(10, "--limit", "-n", min=1, max=50, help="The newest N turns."),
    user: str = USER,
    fmt: str = FORMAT,
    json_flag: bool = JSON,
) -> None:
    """A session's turns, oldest first: the question, how it was resolved, the answer's first line."""
    as_json = _json(fmt, json_flag)
    store = _store(as_json, write=False)
    try:
        turns = ses.unwrap(store.session_turns(user, session_id, limit), as_json)
    finally:
        store.close()
    if as_json:
        ses.emit_json(None, turns)
        return
    if not turns:
        ses.say(f"no turns in session {session_id!r} of {user}")
        return
    for number, turn in enumerate(turns, 1):
        ses.say(f"{number}. [{ses.when(turn.at)}] {turn.question}")
        if turn.resolved != turn.question:
            ses.say(f"   resolved: {turn.resolved}")
        if turn.answer_line:
            ses.say(f"   answer: {turn.answer_line}")


@memory_app.command("templates")
def templates(fmt: str = FORMAT, json_flag: bool = JSON) -> None:
    """The procedural templates a specialist can run instead of planning, and their trigger phrases."""
    from findesk.knowledge.memory.templates import default_templates

    as_json = _json(fmt, json_flag)
    shipped = ses.unwrap(default_templates(), as_json)
    found = list(shipped.by_name.values())
    if as_json:
        ses.emit_json(None, found)
        return
    table = Table(title="Procedural templates")
    for column in ("name", "specialist", "triggers", "steps"):
        table.add_column(column)
    for t in found:
        table.add_row(t.name, t.specialist, ", ".join(t.triggers), " → ".join(s.tool for s in t.steps))
    ses.stdout.print(table)


# ---- the trading desk's decision log ----

AS_OF = typer.Option(
    None, "--as-of", help="Score with data as of this date (YYYY-MM-DD); default: the data's."
)
SNAPSHOT = typer.Option(None, "--snapshot/--live", help="Data mode (default: configured)")


def _decision_log(as_json: bool, *, write: bool) -> DecisionLog:
    return DecisionLog.from_settings(ses.load(as_json), read_only=not write)


def _pct(value: float | None, unit: str = "%") -> str:
    return "—" if value is None else f"{value:+.1f}{unit}"


def _outcome_cells(d: LoggedDecision) -> tuple[str, str, str, str]:
    return (
        d.exit_date.isoformat() if d.exit_date else "—",
        _pct(d.return_pct),
        _pct(d.spy_return_pct),
        _pct(d.alpha_pp, " pp"),
    )


@memory_app.command("list")
def list_decisions(
    limit: int = typer.Option(50, "--limit", "-n", min=1, max=1000, help="The newest N decisions."),
    user: str = USER,
    fmt: str = FORMAT,
    json_flag: bool = JSON,
) -> None:
    """The trading desk's logged decisions (pending or scored) and the reflections drawn from them."""
    as_json = _json(fmt, json_flag)
    log = _decision_log(as_json, write=False)
    try:
        decisions = ses.unwrap(log.decisions(user, limit), as_json)
        reflections = ses.unwrap(log.reflections(user, None, date.max, limit=limit * 5), as_json)
    finally:
        log.close()
    if as_json:
        ses.emit_json(None, {"decisions": decisions, "reflections": reflections})
        return
    if not decisions and not reflections:
        ses.say(f"no trading decisions logged for {user}")
        return
    table = Table(title=Text(f"Trading decisions logged for {user}"))
    for column in ("decided", "ticker", "rating", "size", "plan", "status", "exit", "return", "SPY", "alpha"):
        table.add_column(column)
    for d in decisions:
        table.add_row(
            d.decided_on.isoformat(),
            Text(d.ticker),
            d.rating,
            f"{d.position_pct:.1f}%",
            d.direction,
            d.status,
            *_outcome_cells(d),
        )
    ses.stdout.print(table)
    if not reflections:
        ses.say(
            "no reflections yet: a decision is scored once its horizon has passed (`findesk memory reflect`)"
        )
        return
    lessons = Table(title=Text(f"Reflections of {user}"))
    for column in ("known", "role", "decision", "lesson"):
        lessons.add_column(column)
    for r in reflections:
        lessons.add_row(
            r.outcome_known.isoformat(), r.role, f"{r.ticker} {r.decided_on.isoformat()}", Text(r.lesson)
        )
    ses.stdout.print(lessons)


@memory_app.command("reflect")
def reflect(
    as_of: str | None = AS_OF,
    snapshot: bool | None = SNAPSHOT,
    user: str = USER,
    fmt: str = FORMAT,
    json_flag: bool = JSON,
) -> None:
    """Score the pending decisions whose horizon has passed (data as of --as-of) and store each role's
    reflection."""
    from findesk.workflows.trading.memory_hooks import Settled, settle_log

    as_json = _json(fmt, json_flag)
    session = ses.open_session(as_of, snapshot, as_json)
    day = session.context.as_of
    reader = _decision_log(as_json, write=False)
    try:
        pending = ses.unwrap(reader.pending(user, day), as_json)
    finally:
        reader.close()
    settled = Settled()
    if pending:  # checked read-only first: nothing to score never creates the database
        log = _decision_log(as_json, write=True)
        try:
            settled = ses.run_async(session, lambda: settle_log(log, session.router, user, day))
        finally:
            log.close()
    else:
        ses.run_async(session, _nothing)
    if as_json:
        ses.emit_json(
            session,
            {
                "scored": [
                    {"decision": s.decision, "outcome": s.outcome, "reflections": s.reflections}
                    for s in settled.scored
                ],
                "still_pending": settled.still_pending,
                "warnings": settled.warnings,
            },
        )
        return
    ses.header(session)
    for warning in settled.warnings:
        ses.warn(warning)
    if not settled.scored:
        ses.say(
            f"nothing scored as of {day}: {settled.still_pending} decision"
            f"{'s' if settled.still_pending != 1 else ''} of {user} still pending"
        )
        return
    table = Table(title=Text(f"Decisions scored as of {day}"))
    for column in ("decided", "ticker", "rating", "exit", "return", "SPY", "alpha", "trade", "reflections"):
        table.add_column(column)
    for s in settled.scored:
        table.add_row(
            s.decision.decided_on.isoformat(),
            Text(s.decision.ticker),
            s.decision.rating,
            *_outcome_cells(s.decision),
            _pct(s.outcome.position_return_pct),
            str(s.reflections),
        )
    ses.stdout.print(table)
    if settled.still_pending:
        ses.say(f"{settled.still_pending} still pending (horizon not passed as of {day})")


async def _nothing() -> None:
    return None


@memory_app.command("clear")
def clear(
    yes: bool = typer.Option(False, "--yes", help="Confirm: delete every logged decision and reflection."),
    user: str = USER,
    fmt: str = FORMAT,
    json_flag: bool = JSON,
) -> None:
    """Delete the user's logged trading decisions and reflections (needs --yes)."""
    as_json = _json(fmt, json_flag)
    if not yes:
        ses.fail(
            Err(
                ErrorCode.INVALID_INPUT,
                f"memory clear deletes every logged trading decision and reflection of {user}; "
                "nothing was deleted: run it again with --yes to confirm",
            ),
            as_json,
        )
    reader = _decision_log(as_json, write=False)
    try:
        held = len(ses.unwrap(reader.decisions(user, MAX_DECISIONS_PER_USER), as_json))
        every = reader.reflections(user, None, date.max, limit=len(ROLES) * MAX_DECISIONS_PER_USER)
        lessons = len(ses.unwrap(every, as_json))
    finally:
        reader.close()
    if held or lessons:  # nothing to delete never creates the database
        log = _decision_log(as_json, write=True)
        try:
            ses.unwrap(log.clear(user), as_json)
        finally:
            log.close()
    if as_json:
        ses.emit_json(None, {"decisions": held, "reflections": lessons})
    else:
        ses.say(
            f"cleared {held} decision{'s' if held != 1 else ''} and {lessons} "
            f"reflection{'s' if lessons != 1 else ''} of {user}"
        )
