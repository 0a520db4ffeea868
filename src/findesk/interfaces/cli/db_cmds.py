"""``findesk db …``: the state database's schema (Alembic migrations): ``upgrade`` and ``current``.

Rules:
- the database is the one every store uses (``audit_url``: the SQLite file under ``state_dir`` by
  default, PostgreSQL by URL); passwords are never printed.
- ``upgrade`` is what every open for writing does anyway, done up front: for a deployment that migrates
  before it starts its servers, or to see what would change. Running it again changes nothing.
- ``current`` only reads: a SQLite file that does not exist yet is ``not_found`` (exit 4) and is not
  created.
"""

from __future__ import annotations

import typer

from findesk.core.migrations import Revisions, migrate, revision
from findesk.interfaces.cli import session as ses

db_app = typer.Typer(
    help="The state database's schema (Alembic migrations): upgrade, current.",
    no_args_is_help=True,
)

JSON = typer.Option(False, "--json", help="Print one JSON document instead of text.")


def _shown(rev: str | None) -> str:
    return rev or "none (new, or made before migrations)"


def _json(found: Revisions) -> dict[str, object]:
    return {
        "location": found.location,
        "before": found.before,
        "revision": found.after,
        "head": found.head,
        "at_head": found.after == found.head,
    }


@db_app.command("upgrade")
def upgrade(as_json: bool = JSON) -> None:
    """Bring the state database to the newest schema (creating it, or adopting one made before migrations)."""
    settings = ses.load(as_json)
    done = ses.unwrap(migrate(settings.resolved_audit_url()), as_json)
    if as_json:
        ses.emit_json(None, _json(done))
        return
    if done.before == done.after:
        ses.say(f"{done.location}: already at revision {done.after} (head)")
    else:
        ses.say(f"{done.location}: upgraded from {_shown(done.before)} to {done.after} (head)")


@db_app.command("current")
def current(as_json: bool = JSON) -> None:
    """Show the state database's schema revision and the newest this findesk knows. Changes nothing."""
    settings = ses.load(as_json)
    found = ses.unwrap(revision(settings.resolved_audit_url()), as_json)
    if as_json:
        ses.emit_json(None, _json(found))
        return
    state = "at head" if found.after == found.head else "`findesk db upgrade` (or any write) upgrades it"
    ses.say(f"{found.location}: revision {_shown(found.after)}; head {found.head}: {state}")
