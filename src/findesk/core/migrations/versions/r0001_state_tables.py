"""The state database's tables as findesk created them before migrations: audit log and run owners, API
keys and requests, memory turns and facts, decisions and reflections.

Revision ID: 0001
Revises:
Create Date: 2025-06-01

Rules: this revision also adopts a database created before migrations (``CreateTable(if_not_exists)``
on open): a table or index already there is kept with its rows, a missing one is created (an older
database may lack the tables added later, such as the decision log's or the run owners'), and a table
lacking one of the columns below is refused with ``MigrationError`` rather than stamped as current.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

from findesk.core.migrations import MigrationError

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# BIGINT on PostgreSQL; on SQLite only INTEGER PRIMARY KEY is the auto-incrementing rowid
_ROW_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _table(name: str, *items: sa.Column[Any] | sa.Constraint, indexes: dict[str, list[str]]) -> None:
    """Create ``name`` and its indexes unless there; a table that is there must have every column."""
    found = sa.inspect(op.get_bind())
    if found.has_table(name):
        have = {column["name"] for column in found.get_columns(name)}
        wanted = [item.name for item in items if isinstance(item, sa.Column)]
        missing = [column for column in wanted if column not in have]
        if missing:
            raise MigrationError(
                f"cannot adopt the existing table {name!r}: it lacks the columns {', '.join(missing)} "
                "(written by an unknown or much older program); move the database aside or fix the table"
            )
    op.create_table(name, *items, if_not_exists=True)
    for index, columns in indexes.items():
        op.create_index(index, name, columns, if_not_exists=True)


def upgrade() -> None:
    # the audit log (core.events.audit)
    _table(
        "events",
        sa.Column("event_id", sa.String(), nullable=False),
        sa.Column("run_id", sa.String(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("parent_id", sa.String(), nullable=True),
        sa.Column("ts", sa.DateTime(timezone=True), nullable=False),
        sa.Column("type", sa.String(), nullable=False),
        sa.Column("agent", sa.String(), nullable=True),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("event_id"),
        indexes={"ix_events_run_seq": ["run_id", "seq"]},
    )
    _table(
        "runs",
        sa.Column("run_id", sa.String(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("title", sa.Text(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("mode", sa.String(), nullable=True),
        *(
            sa.Column(name, sa.Integer(), nullable=False)
            for name in (
                "event_count",
                "tool_calls",
                "tool_errors",
                "llm_calls",
                "input_tokens",
                "output_tokens",
                "cached_tokens",
            )
        ),
        sa.Column("cost_usd", sa.Float(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("run_id"),
        indexes={"ix_runs_started": ["started_at"]},
    )
    # which process owns a run (core.events.owners)
    _table(
        "owners",
        sa.Column("owner", sa.String(), nullable=False),
        sa.Column("host", sa.String(), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("started", sa.String(), nullable=True),
        sa.Column("space", sa.String(), nullable=True),
        sa.Column("seen_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("owner"),
        indexes={},
    )
    _table(
        "run_owners",
        sa.Column("run_id", sa.String(), nullable=False),
        sa.Column("owner", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("run_id"),
        indexes={},
    )
    # API keys and the requests they made (core.access.schema)
    _table(
        "api_keys",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("tier", sa.String(length=64), nullable=False),
        sa.Column("secret_sha256", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        indexes={},
    )
    _table(
        "api_requests",
        sa.Column("id", _ROW_ID, autoincrement=True, nullable=False),
        sa.Column("key_id", sa.String(length=32), nullable=False),
        sa.Column("ts", sa.DateTime(timezone=True), nullable=False),
        sa.Column("run_id", sa.String(), nullable=True),
        sa.Column("cost_usd", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["key_id"], ["api_keys.id"]),
        sa.PrimaryKeyConstraint("id"),
        indexes={
            "ix_api_requests_key_ts": ["key_id", "ts"],
            "ix_api_requests_ts": ["ts"],
            "ix_api_requests_run": ["run_id"],
        },
    )
    # memory: session turns and facts (knowledge.memory.schema)
    _table(
        "memory_turns",
        sa.Column("id", _ROW_ID, autoincrement=True, nullable=False),
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("session_id", sa.String(length=64), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("resolved", sa.Text(), nullable=False),
        sa.Column("subjects", sa.Text(), nullable=False),
        sa.Column("intents", sa.Text(), nullable=False),
        sa.Column("answer_line", sa.Text(), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        indexes={"ix_memory_turns_user_session": ["user_id", "session_id", "id"]},
    )
    _table(
        "memory_facts",
        sa.Column("id", sa.String(length=16), nullable=False),
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("subject", sa.String(length=60), nullable=False),
        sa.Column("detail", sa.String(length=120), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_id", "kind", "subject", name="uq_memory_facts_user_kind_subject"),
        indexes={"ix_memory_facts_user": ["user_id", "created_at"]},
    )
    # the trading desk's decision log and reflections (knowledge.memory.schema.decision_schema)
    _table(
        "memory_decisions",
        sa.Column("id", _ROW_ID, autoincrement=True, nullable=False),
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("ticker", sa.String(length=16), nullable=False),
        sa.Column("decided_on", sa.Date(), nullable=False),
        sa.Column("session", sa.Date(), nullable=False),
        sa.Column("rating", sa.String(length=12), nullable=False),
        sa.Column("manager_rating", sa.String(length=12), nullable=True),
        sa.Column("position_pct", sa.Float(), nullable=False),
        sa.Column("direction", sa.String(length=8), nullable=False),
        sa.Column("entry", sa.Float(), nullable=True),
        sa.Column("stop", sa.Float(), nullable=True),
        sa.Column("target", sa.Float(), nullable=True),
        sa.Column("horizon_days", sa.Integer(), nullable=False),
        sa.Column("situation", sa.Text(), nullable=False),
        sa.Column("roles", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=8), nullable=False),
        sa.Column("exit_date", sa.Date(), nullable=True),
        sa.Column("return_pct", sa.Float(), nullable=True),
        sa.Column("spy_return_pct", sa.Float(), nullable=True),
        sa.Column("alpha_pp", sa.Float(), nullable=True),
        sa.Column("position_return_pct", sa.Float(), nullable=True),
        sa.Column("stop_hit", sa.Boolean(), nullable=True),
        sa.Column("target_hit", sa.Boolean(), nullable=True),
        sa.Column("logged_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("scored_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_id", "run_id", name="uq_memory_decisions_user_run"),
        indexes={
            "ix_memory_decisions_user_status": ["user_id", "status", "decided_on"],
            "ix_memory_decisions_user_decided": ["user_id", "decided_on", "id"],
        },
    )
    _table(
        "memory_reflections",
        sa.Column("row_id", _ROW_ID, autoincrement=True, nullable=False),
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("id", sa.String(length=96), nullable=False),
        sa.Column("role", sa.String(length=24), nullable=False),
        sa.Column("ticker", sa.String(length=16), nullable=False),
        sa.Column("decided_on", sa.Date(), nullable=False),
        sa.Column("outcome_known", sa.Date(), nullable=False),
        sa.Column("situation", sa.Text(), nullable=False),
        sa.Column("lesson", sa.Text(), nullable=False),
        sa.Column("return_pct", sa.Float(), nullable=True),
        sa.Column("alpha_pp", sa.Float(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("row_id"),
        sa.UniqueConstraint("user_id", "id", name="uq_memory_reflections_user_id"),
        indexes={"ix_memory_reflections_user_role_known": ["user_id", "role", "outcome_known"]},
    )


def downgrade() -> None:
    for name in (
        "memory_reflections",
        "memory_decisions",
        "memory_facts",
        "memory_turns",
        "api_requests",
        "api_keys",
        "run_owners",
        "owners",
        "runs",
        "events",
    ):
        op.drop_table(name, if_exists=True)
