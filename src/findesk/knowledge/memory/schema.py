"""Tables of the memory store, kept in the state database next to the audit log and the API keys.

Rules:
- every row belongs to one user (``user_id``) and every query filters on it first; the indexes lead
  with it, so a user's rows are found without reading anyone else's.
- a fact is unique per (user, kind, subject): stating a holding again updates it, it is not repeated.
- every timestamp is UTC (SQLite keeps them naive; ``core.storage.utc`` reads them back aware).
- the trading desk's decision log (``decision_schema``: ``memory_decisions``, ``memory_reflections``)
  is its own metadata, opened by ``decisions.DecisionLog``: a database written before the log existed
  still opens read-only for facts and sessions (a read-only open needs every table of its metadata).
- a decision is unique per (user, run_id), so a resumed run logs it once; a reflection is unique per
  (user, id) with id ``<run_id>.<role>``, so settling a decision twice stores its lessons once.
- built on first use (``schema()``), like ``core.access.schema``: importing memory's models costs no
  SQLAlchemy; opening the store does.
- created and changed only by the state database's migrations (``core.migrations``); a change here
  needs a revision there (a test compares the two).
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


@dataclass(frozen=True)
class DecisionSchema:
    metadata: MetaData
    decisions: Table
    reflections: Table


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


@functools.cache
def decision_schema() -> DecisionSchema:
    """The trading desk's decision log and reflections (built once)."""
    from sqlalchemy import (
        BigInteger,
        Boolean,
        Column,
        Date,
        DateTime,
        Float,
        Index,
        Integer,
        MetaData,
        String,
        Table,
        Text,
        UniqueConstraint,
    )

    metadata = MetaData()
    decisions = Table(
        "memory_decisions",
        metadata,
        Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
        Column("user_id", String(64), nullable=False),
        Column("run_id", String(64), nullable=False),
        Column("ticker", String(16), nullable=False),
        Column("decided_on", Date, nullable=False),
        Column("session", Date, nullable=False),  # the session of the entry close
        Column("rating", String(12), nullable=False),
        Column("manager_rating", String(12)),
        Column("position_pct", Float, nullable=False),
        Column("direction", String(8), nullable=False),
        Column("entry", Float),
        Column("stop", Float),
        Column("target", Float),
        Column("horizon_days", Integer, nullable=False),
        Column("situation", Text, nullable=False),
        Column("roles", Text, nullable=False),  # a JSON object: role -> its line
        Column("status", String(8), nullable=False),  # pending | scored
        Column("exit_date", Date),
        Column("return_pct", Float),
        Column("spy_return_pct", Float),
        Column("alpha_pp", Float),
        Column("position_return_pct", Float),
        Column("stop_hit", Boolean),
        Column("target_hit", Boolean),
        Column("logged_at", DateTime(timezone=True), nullable=False),
        Column("scored_at", DateTime(timezone=True)),
        UniqueConstraint("user_id", "run_id", name="uq_memory_decisions_user_run"),
        Index("ix_memory_decisions_user_status", "user_id", "status", "decided_on"),
        Index("ix_memory_decisions_user_decided", "user_id", "decided_on", "id"),
    )
    reflections = Table(
        "memory_reflections",
        metadata,
        Column("row_id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
        Column("user_id", String(64), nullable=False),
        Column("id", String(96), nullable=False),  # "<run_id>.<role>"
        Column("role", String(24), nullable=False),
        Column("ticker", String(16), nullable=False),
        Column("decided_on", Date, nullable=False),
        Column("outcome_known", Date, nullable=False),  # the exit session: before it, nobody knew
        Column("situation", Text, nullable=False),
        Column("lesson", Text, nullable=False),
        Column("return_pct", Float),
        Column("alpha_pp", Float),
        Column("created_at", DateTime(timezone=True), nullable=False),
        UniqueConstraint("user_id", "id", name="uq_memory_reflections_user_id"),
        Index("ix_memory_reflections_user_role_known", "user_id", "role", "outcome_known"),
    )
    return DecisionSchema(metadata, decisions, reflections)
