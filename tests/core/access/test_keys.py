"""API keys: the secret is shown once and never stored, verification, revocation, bad input."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from findesk.core.access.keys import ApiKey, KeyStore
from findesk.core.result import Err, ErrorCode
from state_kit import rows, sqlite_file, tables

TIERS = ("free", "pro", "team")


@pytest.fixture
def store(state_db: str) -> Iterator[KeyStore]:
    opened = KeyStore.open(state_db).unwrap()
    yield opened
    opened.close()


def stored_bytes(url: str) -> bytes:
    """What the database keeps: SQLite's file and any WAL / journal beside it; PostgreSQL's key rows."""
    db = sqlite_file(url)
    if db is None:
        return repr(rows(url, "SELECT * FROM api_keys")).encode()
    return b"".join(path.read_bytes() for path in sorted(db.parent.glob(db.name + "*")))


def refused(result: object) -> Err:
    assert isinstance(result, Err), result
    return result


def test_the_database_holds_the_hash_never_the_secret(store: KeyStore, state_db: str) -> None:
    key, secret = store.create("Alice's desk", "pro", tiers=TIERS).unwrap()
    token = secret.split("_", 2)[2]  # the token itself may contain "_"
    assert secret == f"fdk_{key.id}_{token}" and len(token) == 43
    store.close()

    stored = stored_bytes(state_db)
    assert secret.encode() not in stored and token.encode() not in stored
    assert hashlib.sha256(secret.encode()).hexdigest().encode() in stored  # we read the right bytes
    assert key.id.encode() in stored  # the id is public


def test_a_secret_verifies_and_a_one_character_change_does_not(store: KeyStore, state_db: str) -> None:
    key, secret = store.create("desk", "free", tiers=TIERS).unwrap()
    other = KeyStore.open(state_db).unwrap()  # another server process sees the same keys
    try:
        found = other.verify(f"  {secret}\n").unwrap()  # surrounding whitespace from a header is fine
    finally:
        other.close()
    assert (found.id, found.name, found.tier, found.active) == (key.id, "desk", "free", True)

    last = secret[-1]
    changed = secret[:-1] + ("A" if last != "A" else "B")
    wrong = refused(store.verify(changed))
    assert (wrong.code, wrong.reason) == (ErrorCode.UNAUTHORIZED, "unknown API key")
    assert changed not in wrong.reason

    for malformed in (secret[:-1], secret + "x", "Bearer " + secret, "", secret.replace("fdk_", "fdx_")):
        bad = refused(store.verify(malformed))
        assert bad.code is ErrorCode.UNAUTHORIZED and "malformed API key" in bad.reason
        assert secret not in bad.reason

    forged = refused(store.verify(f"fdk_{'0' * 12}_{secret.split('_', 2)[2]}"))  # real token, other id
    assert forged.reason == "unknown API key"


def test_a_revoked_key_is_refused_with_the_date_it_was_revoked(store: KeyStore) -> None:
    key, secret = store.create("desk", "free", tiers=TIERS).unwrap()
    when = datetime(2025, 3, 4, 5, 6, 7, tzinfo=UTC)
    revoked = store.revoke(key.id, now=when).unwrap()
    assert revoked.revoked_at == when and not revoked.active

    reason = refused(store.verify(secret))
    assert reason.code is ErrorCode.UNAUTHORIZED
    assert reason.reason == f"API key {key.id} revoked on 2025-03-04 05:06 UTC"

    again = store.revoke(key.id, now=datetime(2026, 1, 1, tzinfo=UTC)).unwrap()
    assert again.revoked_at == when  # revoking twice changes nothing
    assert store.get(key.id).unwrap().revoked_at == when


def test_revoking_an_unknown_id_is_not_found(store: KeyStore) -> None:
    missing = refused(store.revoke("0123456789ab"))
    assert missing.code is ErrorCode.NOT_FOUND and "0123456789ab" in missing.reason
    assert refused(store.get("0123456789ab")).code is ErrorCode.NOT_FOUND


def test_list_shows_every_key_oldest_first(store: KeyStore) -> None:
    first, _ = store.create("first", "free", tiers=TIERS, now=datetime(2025, 1, 1, tzinfo=UTC)).unwrap()
    second, _ = store.create("second", "team", tiers=TIERS, now=datetime(2025, 1, 2, tzinfo=UTC)).unwrap()
    store.revoke(first.id)
    listed = store.list().unwrap()
    assert [(k.name, k.tier, k.active) for k in listed] == [
        ("first", "free", False),
        ("second", "team", True),
    ]
    assert listed[1] == second
    assert all(isinstance(k, ApiKey) for k in listed)


@pytest.mark.parametrize(
    ("name", "tier", "needle"),
    [
        ("desk", "gold", "unknown tier 'gold': the configured tiers are free, pro, team"),
        ("   ", "free", "a key needs a name"),
        ("x" * 81, "free", "at most 80 characters"),
        ("two\nlines", "free", "control characters"),
    ],
)
def test_bad_names_and_tiers_are_refused_before_anything_is_stored(
    store: KeyStore, name: str, tier: str, needle: str
) -> None:
    error = refused(store.create(name, tier, tiers=TIERS))
    assert error.code is ErrorCode.INVALID_INPUT and needle in error.reason
    assert store.list().unwrap() == []


def test_names_are_trimmed_and_eighty_characters_are_allowed(store: KeyStore) -> None:
    key, _ = store.create(f"  {'n' * 80}  ", "free", tiers=TIERS).unwrap()
    assert key.name == "n" * 80


def test_opening_read_only_creates_nothing(state_db: str) -> None:
    missing = refused(KeyStore.open(state_db, read_only=True))
    assert missing.code is ErrorCode.NOT_FOUND
    db = sqlite_file(state_db)
    if db is None:
        assert tables(state_db) == set()  # an empty PostgreSQL database stays empty
    else:
        assert not db.parent.exists()


@pytest.mark.parametrize(
    ("url", "needle"),
    [
        ("mysql://db/findesk", "'mysql' is not supported"),
        ("sqlite://", "needs a file"),
        ("not a url", "not a database URL"),
    ],
)
def test_unusable_urls_are_invalid_input(url: str, needle: str) -> None:
    error = refused(KeyStore.open(url))
    assert error.code is ErrorCode.INVALID_INPUT and needle in error.reason
