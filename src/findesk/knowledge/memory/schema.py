"""Tables of the memory store, kept in the state database next to the audit log and the API keys.

Rules:
- every row belongs to one user (``user_id``) and every query filters on it first; the indexes lead
  with it, so a user's rows are found without reading anyone else's.
- a fact is unique per (user, kind, subject): stating a holding again updates it, it is not repeated.
- every timestamp is UTC (SQLite keeps them naive; ``core.storage.utc`` reads them back aware).
- built on first use (``schema()``), like ``core.access.schema``: importing memory's models costs no
  SQLAlchemy; opening the store does.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy import MetaData, Table


@dataclass(frozen=True)
class Schema:
    metadata: MetaData
    turns: Table
    facts: Table


@functools.cache
def schema() -> Schema:
    """The memory store's tables (built once)."""
    from sqlalchemy import (
        BigInteger,
        Column,
        DateTime,
        Index,
        Integer,
        MetaData,
        String,
        Table,
        Text,
        UniqueConstraint,
    )

    metadata = MetaData()
    turns = Table(
        "memory_turns",
        metadata,
        # BIGINT on PostgreSQL; on SQLite only INTEGER PRIMARY KEY is the auto-incrementing rowid
        Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
        Column("user_id", String(64), nullable=False),
        Column("session_id", String(64), nullable=False),
        Column("at", DateTime(timezone=True), nullable=False),
        Column("question", Text, nullable=False),
        Column("resolved", Text, nullable=False),
        Column("subjects", Text, nullable=False),  # the Subjects JSON object
        Column("intents", Text, nullable=False),  # a JSON list
        Column("answer_line", Text, nullable=False),
        Column("run_id", String(64)),
        Index("ix_memory_turns_user_session", "user_id", "session_id", "id"),
    )
    facts = Table(
        "memory_facts",
        metadata,
        Column("id", String(16), primary_key=True),  # random, shown to the user to forget it by
        Column("user_id", String(64), nullable=False),
        Column("kind", String(16), nullable=False),
        Column("subject", String(60), nullable=False),
        Column("detail", String(120), nullable=False),
        Column("source", Text, nullable=False),
        Column("created_at", DateTime(timezone=True), nullable=False),
        UniqueConstraint("user_id", "kind", "subject", name="uq_memory_facts_user_kind_subject"),
        Index("ix_memory_facts_user", "user_id", "created_at"),
    )
    return Schema(metadata, turns, facts)
