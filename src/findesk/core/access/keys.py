"""API keys: create, list, revoke and verify the keys that callers of ``findesk serve`` present.

Rules:
- a secret (``fdk_<id>_<token>``) is returned once, by ``create``, and never stored: the database
  holds its SHA-256 hash; the id part is public.
- ``verify`` compares hashes in constant time and tells only the holder of the real secret that
  its key was revoked; no reason ever repeats the secret it was given (reasons end up in logs).
- errors are data: every method that touches the database returns ``Result``; a database that is
  locked or down is ``unavailable``, bad input ``invalid_input``, a bad key ``unauthorized``.
- mutating a store opened ``read_only`` is a programming error and raises ``RuntimeError``.
- SQLAlchemy (and ``core.storage``) are imported by the methods that touch the database, so importing
  ``ApiKey`` or ``check_new_key`` costs no database layer.
"""

from __future__ import annotations

import builtins
import hashlib
import hmac
import re
import secrets
from collections.abc import Collection
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, computed_field

from findesk.core.access.schema import schema
from findesk.core.result import Err, ErrorCode, Ok, Result

if TYPE_CHECKING:
    from sqlalchemy import Engine, RowMapping

    from findesk.core.config import Settings

NAME_MAX = 80
PREFIX = "fdk"
_ID_BYTES = 6  # 12 hex characters: short enough to read out, and a collision is simply retried
_SECRET = re.compile(rf"{PREFIX}_([0-9a-f]{{{2 * _ID_BYTES}}})_([A-Za-z0-9_-]{{43}})")  # token_urlsafe(32)
_WHAT = "API key store"


class ApiKey(BaseModel):
    """A key as the store knows it: everything but the secret."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    tier: str
    created_at: datetime
    revoked_at: datetime | None = None
    last_used_at: datetime | None = None

    @computed_field  # type: ignore[prop-decorator]  # pydantic's documented way; mypy dislikes it
    @property
    def active(self) -> bool:
        return self.revoked_at is None


def check_new_key(name: str, tier: str, tiers: Collection[str]) -> Result[str]:
    """The cleaned name of a key about to be created, or ``invalid_input`` saying what to change."""
    clean = name.strip()
    if not clean:
        return Err(ErrorCode.INVALID_INPUT, "a key needs a name, e.g. the client or person it is for")
    if len(clean) > NAME_MAX:
        return Err(
            ErrorCode.INVALID_INPUT, f"a key name has at most {NAME_MAX} characters (got {len(clean)})"
        )
    if any(not ch.isprintable() for ch in clean):
        return Err(ErrorCode.INVALID_INPUT, "a key name cannot contain control characters or line breaks")
    if tier not in tiers:
        known = ", ".join(sorted(tiers)) or "none"
        return Err(
            ErrorCode.INVALID_INPUT,
            f"unknown tier {tier!r}: the configured tiers are {known} (add one under [api.tiers])",
        )
    return Ok(clean)


def revoked_reason(key_id: str, revoked_at: datetime) -> str:
    from findesk.core.storage import utc

    return f"API key {key_id} revoked on {utc(revoked_at):%Y-%m-%d %H:%M} UTC"


def _digest(secret: str) -> str:
    # A fast hash is right here, unlike for passwords: the secret carries 256 random bits, so even
    # billions of guesses per second against a stolen hash never find it, and a slow KDF (bcrypt,
    # argon2) would only add ~100 ms to every API request. GitHub and Stripe tokens work the same way.
    return hashlib.sha256(secret.encode()).hexdigest()


class KeyStore:
    """The ``api_keys`` and ``api_requests`` tables. Create with ``KeyStore.open``; ``close`` when done.

    ``reader`` serves lookups; ``writer`` (None when opened read-only) runs every write in a locked
    transaction. ``limits`` uses both.
    """

    def __init__(self, location: str, reader: Engine, writer: Engine | None) -> None:
        self.location = location  # file path, or the URL without its password
        self.reader = reader
        self.writer = writer

    @classmethod
    def open(cls, url: str, *, read_only: bool = False, busy_timeout_s: float = 10.0) -> Result[KeyStore]:
        """Open (and, unless ``read_only``, create) the key store at a SQLAlchemy URL.

        ``read_only`` creates nothing: a missing file or missing tables are ``not_found``.
        """
        from findesk.core.storage import open_store

        opened = open_store(
            url, what=_WHAT, metadata=schema().metadata, read_only=read_only, busy_timeout_s=busy_timeout_s
        )
        if isinstance(opened, Err):
            return opened
        return Ok(cls(opened.value.location, opened.value.reader, opened.value.writer))

    def close(self) -> None:
        """Release the database connections. Idempotent."""
        if self.writer is not None:
            self.writer.dispose()
        self.reader.dispose()

    def write_engine(self) -> Engine:
        if self.writer is None:
            raise RuntimeError(f"the {_WHAT} {self.location} was opened read-only")
        return self.writer

    def create(
        self, name: str, tier: str, *, tiers: Collection[str], now: datetime | None = None
    ) -> Result[tuple[ApiKey, str]]:
        """A new key and its secret, which is shown to the user once and is not kept anywhere.

        ``tiers`` are the configured tier names (``settings.api.tiers``); ``tier`` must be one of them.
        """
        from sqlalchemy import insert
        from sqlalchemy.exc import IntegrityError, SQLAlchemyError

        from findesk.core.storage import database_error, utc

        checked = check_new_key(name, tier, tiers)
        if isinstance(checked, Err):
            return checked
        api_keys = schema().api_keys
        created = utc(now or datetime.now(UTC))
        engine = self.write_engine()
        try:
            for _ in range(3):
                key = ApiKey(
                    id=secrets.token_hex(_ID_BYTES), name=checked.value, tier=tier, created_at=created
                )
                secret = f"{PREFIX}_{key.id}_{secrets.token_urlsafe(32)}"
                row = {"id": key.id, "name": key.name, "tier": tier, "created_at": created}
                try:
                    with engine.begin() as conn:
                        conn.execute(insert(api_keys).values(**row, secret_sha256=_digest(secret)))
                except IntegrityError:  # the random id is taken (1 in 2^48): draw another
                    continue
                return Ok((key, secret))
        except SQLAlchemyError as exc:
            return database_error(exc, "create an API key", self.location)
        return Err(ErrorCode.UNAVAILABLE, f"could not find a free key id in {self.location}; try again")

    def get(self, key_id: str) -> Result[ApiKey]:
        """A key by its id; unknown is ``not_found``."""
        from sqlalchemy import select
        from sqlalchemy.exc import SQLAlchemyError

        from findesk.core.storage import database_error

        api_keys = schema().api_keys
        try:
            with self.reader.connect() as conn:
                row = conn.execute(select(api_keys).where(api_keys.c.id == key_id.strip())).mappings().first()
        except SQLAlchemyError as exc:
            return database_error(exc, "read API keys", self.location)
        if row is None:
            return Err(ErrorCode.NOT_FOUND, f"no API key {key_id.strip()!r} in {self.location}")
        return Ok(_key(row))

    def revoke(self, key_id: str, *, now: datetime | None = None) -> Result[ApiKey]:
        """Revoke a key for good; an already revoked key is returned unchanged, an unknown id is
        ``not_found``."""
        from sqlalchemy import select, update
        from sqlalchemy.exc import SQLAlchemyError

        from findesk.core.storage import database_error, utc

        api_keys = schema().api_keys
        key_id = key_id.strip()
        try:
            with self.write_engine().begin() as conn:
                row = conn.execute(select(api_keys).where(api_keys.c.id == key_id)).mappings().first()
                if row is None:
                    return Err(ErrorCode.NOT_FOUND, f"no API key {key_id!r} in {self.location}")
                key = _key(row)
                if not key.active:
                    return Ok(key)
                revoked = utc(now or datetime.now(UTC))
                conn.execute(update(api_keys).where(api_keys.c.id == key_id).values(revoked_at=revoked))
        except SQLAlchemyError as exc:
            return database_error(exc, "revoke an API key", self.location)
        return Ok(key.model_copy(update={"revoked_at": revoked}))

    def verify(self, secret: str) -> Result[ApiKey]:
        """The active key a secret belongs to; anything else is ``unauthorized`` with the reason."""
        match = _SECRET.fullmatch(secret.strip())
        if match is None:
            return Err(
                ErrorCode.UNAUTHORIZED,
                f"malformed API key: expected {PREFIX}_<id>_<token> as printed by `findesk keys create`",
            )
        from sqlalchemy import select
        from sqlalchemy.exc import SQLAlchemyError

        from findesk.core.storage import database_error

        api_keys = schema().api_keys
        key_id = match[1]
        try:
            with self.reader.connect() as conn:
                row = conn.execute(select(api_keys).where(api_keys.c.id == key_id)).mappings().first()
        except SQLAlchemyError as exc:
            return database_error(exc, "check an API key", self.location)
        # The id is public, so answering "unknown" early for an unknown id leaks nothing; the hash
        # comparison itself is constant-time so a near miss cannot be found byte by byte.
        if row is None or not hmac.compare_digest(str(row["secret_sha256"]), _digest(secret.strip())):
            return Err(ErrorCode.UNAUTHORIZED, "unknown API key")
        key = _key(row)
        if key.revoked_at is not None:
            return Err(ErrorCode.UNAUTHORIZED, revoked_reason(key.id, key.revoked_at))
        return Ok(key)

    def list(self) -> Result[builtins.list[ApiKey]]:
        """Every key, revoked ones included, oldest first."""
        from sqlalchemy import select
        from sqlalchemy.exc import SQLAlchemyError

        from findesk.core.storage import database_error

        api_keys = schema().api_keys
        query = select(api_keys).order_by(api_keys.c.created_at, api_keys.c.id)
        try:
            with self.reader.connect() as conn:
                return Ok([_key(row) for row in conn.execute(query).mappings()])
        except SQLAlchemyError as exc:
            return database_error(exc, "read API keys", self.location)


def open_key_store(settings: Settings, *, read_only: bool = False) -> Result[KeyStore]:
    """The key store in the state database (the audit log's URL)."""
    return KeyStore.open(settings.resolved_audit_url(), read_only=read_only)


def _key(row: RowMapping) -> ApiKey:
    from findesk.core.storage import utc

    def when(name: str) -> datetime | None:
        value: Any = row[name]
        return None if value is None else utc(value)

    return ApiKey(
        id=row["id"],
        name=row["name"],
        tier=row["tier"],
        created_at=utc(row["created_at"]),
        revoked_at=when("revoked_at"),
        last_used_at=when("last_used_at"),
    )
