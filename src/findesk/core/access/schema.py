"""Tables of the API key store, kept in the state database next to the audit log.

Rules:
- only a SHA-256 hash of each secret is stored, never the secret (see ``keys.py`` for why a fast hash).
- every timestamp is UTC (SQLite keeps them naive; ``core.storage.utc`` reads them back aware).
- created and changed only by the state database's migrations (``core.migrations``, run when a store
  opens for writing); a change here needs a revision there (a test compares the two).
- built on first use (``schema()``): SQLAlchemy costs ~0.2 s to import, and importing this package
  (for ``ApiKey`` or a tier check) must not pay it; opening the store does. ``metadata``,
  ``api_keys`` and ``api_requests`` stay readable as module attributes.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy import MetaData, Table


@dataclass(frozen=True)
class Schema:
    metadata: MetaData
    api_keys: Table
    api_requests: Table


@functools.cache
def schema() -> Schema:
    """The key store's tables (built once)."""
    from sqlalchemy import (
        BigInteger,
        Column,
        DateTime,
        Float,
        ForeignKey,
        Index,
        Integer,
        MetaData,
        String,
        Table,
    )

    metadata = MetaData()
    api_keys = Table(
        "api_keys",
        metadata,
        Column("id", String(32), primary_key=True),  # public: shown in lists, logs and the secret itself
        Column("name", String(80), nullable=False),
        Column("tier", String(64), nullable=False),
        Column("secret_sha256", String(64), nullable=False),
        Column("created_at", DateTime(timezone=True), nullable=False),
        Column("revoked_at", DateTime(timezone=True)),
        Column("last_used_at", DateTime(timezone=True)),
    )
    # One row per admitted request. Rows without a run are pruned after two days (see ``limits.py``);
    # rows with a run are kept: they record which key owns which run.
    api_requests = Table(
        "api_requests",
        metadata,
        # BIGINT on PostgreSQL; on SQLite only INTEGER PRIMARY KEY is the auto-incrementing rowid
        Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
        Column("key_id", String(32), ForeignKey("api_keys.id"), nullable=False),
        Column("ts", DateTime(timezone=True), nullable=False),
        Column("run_id", String),
        Column("cost_usd", Float, nullable=False, default=0.0),
        Index("ix_api_requests_key_ts", "key_id", "ts"),  # the per-minute and per-day sums
        Index("ix_api_requests_ts", "ts"),  # pruning
        Index("ix_api_requests_run", "run_id"),  # run ownership
    )
    return Schema(metadata, api_keys, api_requests)


def __getattr__(name: str) -> Any:
    """``metadata``, ``api_keys`` and ``api_requests`` as module attributes, built on first use."""
    if name in ("metadata", "api_keys", "api_requests"):
        return getattr(schema(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
