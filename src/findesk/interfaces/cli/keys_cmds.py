"""``findesk keys …``: create, list and revoke the API keys that ``findesk serve`` accepts.

Rules:
- a secret is printed once, by ``create``, with a line saying it cannot be shown again; ``list`` and
  ``revoke`` never show secrets or their hashes.
- ``list`` and ``revoke`` create nothing: a state database without keys simply holds none.
- a name or tier is checked before the database is touched, so a typo leaves no trace; a bad tier
  names the configured ones (exit 2), an unknown key id is ``not_found`` (exit 4).
"""

from __future__ import annotations

import typer
from rich.table import Table
from rich.text import Text

from findesk.core.access.keys import ApiKey, KeyStore, check_new_key, open_key_store
from findesk.core.config import Settings
from findesk.core.events.audit import audit_location
from findesk.core.formatting import usd
from findesk.core.result import Err, ErrorCode
from findesk.interfaces.cli import session as ses

keys_app = typer.Typer(
    help="API keys for `findesk serve`: create, list, revoke (tiers and limits: api.tiers).",
    no_args_is_help=True,
)

JSON = typer.Option(False, "--json", help="Print one JSON document instead of text.")


def _open(settings: Settings, as_json: bool, *, write: bool) -> KeyStore | None:
    """The key store; None when it does not exist yet and ``write`` is False."""
    opened = open_key_store(settings, read_only=not write)
    if isinstance(opened, Err):
        if opened.code is ErrorCode.NOT_FOUND and not write:
            return None
        ses.fail(opened, as_json)
    return opened.value


def _status(key: ApiKey) -> Text:
    if key.revoked_at is None:
        return Text("active", style="green")
    return Text(f"revoked {ses.when(key.revoked_at)}", style="red")


def _limits(settings: Settings, tier: str) -> str:
    limits = settings.api.tiers[tier]
    return f"{limits.rpm} requests/min, {usd(limits.daily_cost_usd)} of model cost per UTC day"


@keys_app.command("create")
def create(
    name: str = typer.Argument(..., metavar="NAME", help="Who or what the key is for (≤ 80 characters)."),
    tier: str | None = typer.Option(None, "--tier", help="The key's tier (default: api.default_tier)."),
    as_json: bool = JSON,
) -> None:
    """Create a key and print its secret, once."""
    settings = ses.load(as_json)
    chosen = tier or settings.api.default_tier
    ses.unwrap(check_new_key(name, chosen, settings.api.tiers), as_json)
    store = _open(settings, as_json, write=True)
    assert store is not None  # opened for writing: created when missing
    try:
        key, secret = ses.unwrap(store.create(name, chosen, tiers=settings.api.tiers), as_json)
    finally:
        store.close()
    if as_json:
        ses.emit_json(None, {"key": key, "secret": secret})
        return
    ses.say(f"created API key {key.id} ({key.name}), tier {key.tier}: {_limits(settings, key.tier)}")
    ses.say(f"secret: {secret}")
    ses.say("Store the secret now: it cannot be shown again (only its hash is kept).")
    ses.say("Send it as `Authorization: Bearer <secret>`; revoke it with `findesk keys revoke ID`.")


@keys_app.command("list")
def list_keys(as_json: bool = JSON) -> None:
    """Every key: id, name, tier, created, last used, status. Never the secrets."""
    settings = ses.load(as_json)
    store = _open(settings, as_json, write=False)
    keys: list[ApiKey] = []
    if store is not None:
        try:
            keys = ses.unwrap(store.list(), as_json)
        finally:
            store.close()
    if as_json:
        ses.emit_json(None, keys)
        return
    where = audit_location(settings.resolved_audit_url())
    if not keys:
        ses.say(f"no API keys yet in {where}; create one with `findesk keys create NAME`")
        return
    table = Table(title=Text(f"API keys in {where}"))
    for column in ("id", "name", "tier", "created", "last used", "status"):
        table.add_column(column)
    for key in keys:
        table.add_row(
            key.id,
            Text(key.name),
            key.tier,
            ses.when(key.created_at),
            ses.when(key.last_used_at),
            _status(key),
        )
    ses.stdout.print(table)


@keys_app.command("revoke")
def revoke(
    key_id: str = typer.Argument(..., metavar="ID", help="The key's id, as shown by `findesk keys list`."),
    as_json: bool = JSON,
) -> None:
    """Revoke a key for good: requests with it are refused from now on."""
    settings = ses.load(as_json)
    existing = _open(settings, as_json, write=False)  # revoking nothing must not create the database
    if existing is None:
        ses.fail(Err(ErrorCode.NOT_FOUND, f"no API key {key_id.strip()!r}: no keys created yet"), as_json)
    existing.close()
    store = _open(settings, as_json, write=True)
    assert store is not None  # opened for writing: created when missing
    try:
        before = ses.unwrap(store.get(key_id), as_json)
        key = ses.unwrap(store.revoke(before.id), as_json)
    finally:
        store.close()
    if as_json:
        ses.emit_json(None, key)
    elif not before.active:
        ses.say(f"API key {key.id} ({key.name}) was already revoked on {ses.when(key.revoked_at)}")
    else:
        ses.say(f"revoked API key {key.id} ({key.name}): requests with it are refused from now on")
