"""``findesk keys``: create → list → revoke → list, as a person and as a program sees it."""

from __future__ import annotations

import json
import os
from pathlib import Path

from typer.testing import CliRunner, Result

from findesk.core.access.keys import KeyStore
from findesk.core.config import Settings
from findesk.core.result import Err, ErrorCode
from findesk.interfaces.cli.main import app

runner = CliRunner()


def findesk(*args: str) -> Result:
    return runner.invoke(app, list(args))


def test_create_list_revoke_round_trip() -> None:
    created = findesk("keys", "create", "Alice desk", "--tier", "pro")
    assert created.exit_code == 0, created.output
    secret = next(line.split()[1] for line in created.stdout.splitlines() if line.startswith("secret: "))
    assert "cannot be shown again" in created.stdout
    assert "60 requests/min" in created.stdout  # the pro tier's limits
    key_id = secret.split("_")[1]

    store = KeyStore.open(Settings().resolved_audit_url()).unwrap()  # what `findesk serve` will do
    try:
        assert store.verify(secret).unwrap().name == "Alice desk"
    finally:
        store.close()

    listed = findesk("keys", "list")
    assert listed.exit_code == 0, listed.output
    row = next(line for line in listed.stdout.splitlines() if key_id in line)
    assert "Alice desk" in row and "pro" in row and "active" in row
    assert secret not in listed.output and secret.split("_", 2)[2] not in listed.output

    as_json = json.loads(findesk("keys", "list", "--json").stdout)["data"]
    assert [(k["id"], k["name"], k["tier"], k["active"]) for k in as_json] == [
        (key_id, "Alice desk", "pro", True)
    ]
    assert "secret" not in json.dumps(as_json) and "sha256" not in json.dumps(as_json)

    revoked = findesk("keys", "revoke", key_id)
    assert revoked.exit_code == 0, revoked.output
    assert f"revoked API key {key_id} (Alice desk)" in revoked.stdout

    after = findesk("keys", "list")
    row = next(line for line in after.stdout.splitlines() if key_id in line)
    assert "revoked" in row and "active" not in row
    assert json.loads(findesk("keys", "list", "--json").stdout)["data"][0]["active"] is False

    store = KeyStore.open(Settings().resolved_audit_url()).unwrap()
    try:
        refused = store.verify(secret)
    finally:
        store.close()
    assert isinstance(refused, Err) and refused.code is ErrorCode.UNAUTHORIZED

    again = findesk("keys", "revoke", key_id)
    assert again.exit_code == 0 and "already revoked" in again.stdout


def test_create_uses_the_default_tier_and_json_carries_the_secret_once() -> None:
    created = findesk("keys", "create", "bot", "--json")
    assert created.exit_code == 0, created.output
    data = json.loads(created.stdout)["data"]
    assert data["key"]["tier"] == "free" and data["secret"].startswith(f"fdk_{data['key']['id']}_")


def test_a_bad_tier_is_a_clear_error_and_stores_nothing() -> None:
    result = findesk("keys", "create", "desk", "--tier", "gold")
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "findesk: invalid_input: unknown tier 'gold': the configured tiers are free, pro, team "
        "(add one under [api.tiers])"
    )
    assert "Traceback" not in result.output
    assert list(Path(os.environ["FINDESK_STATE_DIR"]).iterdir()) == []

    as_json = findesk("keys", "create", "desk", "--tier", "gold", "--json")
    assert as_json.exit_code == 2
    assert json.loads(as_json.stdout)["error"]["code"] == "invalid_input"


def test_without_keys_list_is_friendly_and_revoke_is_not_found() -> None:
    state = Path(os.environ["FINDESK_STATE_DIR"])
    listed = findesk("keys", "list")
    assert listed.exit_code == 0
    assert f"no API keys yet in {state / 'audit.sqlite3'}" in listed.stdout
    assert json.loads(findesk("keys", "list", "--json").stdout) == {"data": []}

    missing = findesk("keys", "revoke", "0123456789ab")
    assert missing.exit_code == 4
    assert missing.stderr.startswith("findesk: not_found: no API key '0123456789ab'")
    assert list(state.iterdir()) == []  # neither command created the database

    assert findesk("keys", "create", "desk").exit_code == 0  # now the store exists
    unknown = findesk("keys", "revoke", "0123456789ab")
    assert unknown.exit_code == 4 and "not_found" in unknown.stderr
