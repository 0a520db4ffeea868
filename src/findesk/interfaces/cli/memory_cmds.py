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
"""

from __future__ import annotations

import typer
from rich.table import Table
from rich.text import Text

from findesk.core.result import Err, ErrorCode
from findesk.interfaces.cli import session as ses
from findesk.knowledge.memory.models import Fact
from findesk.knowledge.memory.store import MemoryStore
from findesk.workflows.spec import LOCAL_CALLER

memory_app = typer.Typer(
    help="What the research desk remembers: facts about you (list, forget), sessions, templates.",
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
