"""The memory store: session turns and long-term facts per user, in the state database.

Rules:
- opened through ``core.storage.open_store`` like the audit log and the API key store (SQLite by
  default, PostgreSQL by URL: ``audit_url``; the schema migrated on the first write open). The engines
  are opened on first use, so a tool context that never touches memory creates nothing; a failed open
  is retried on the next call.
- per user, always: every read and delete filters on the user id, so another user's fact is
  ``not_found`` exactly like one that does not exist, and a session id names a session of one user.
- bounded: a session keeps its newest ``MAX_TURNS_PER_SESSION`` turns, a user their newest
  ``MAX_SESSIONS_PER_USER`` sessions; facts beyond ``MAX_FACTS_PER_USER`` are refused with a warning
  (never silently dropping a fact the user can see), and every text is cleaned and capped.
- a fact is stored only if ``facts.vet`` accepts it, whoever proposed it (the rules or a model).
- errors are data: every method returns ``Result``; a locked or unreachable database is
  ``unavailable``, a bad user/session id ``invalid_input``. Methods are synchronous (SQLAlchemy Core);
  async callers run them with ``asyncio.to_thread``.
- mutating a store opened ``read_only`` is a programming error and raises ``RuntimeError``; reading a
  read-only store whose database does not exist yet reads as empty.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.knowledge.memory.facts import vet
from findesk.knowledge.memory.lazy_tables import LazyTables
from findesk.knowledge.memory.models import (
    MAX_FACTS_PER_USER,
    MAX_SESSIONS_PER_USER,
    MAX_TURNS_PER_SESSION,
    Fact,
    FactsAdded,
    NewFact,
    Turn,
    check_session,
    check_user,
)
from findesk.knowledge.memory.schema import schema

if TYPE_CHECKING:
    from sqlalchemy import MetaData, RowMapping

    from findesk.core.config import Settings

_FACT_ID_BYTES = 6
DEFAULT_TURNS = 10


class MemoryStore(LazyTables):
    """Sessions and facts of every user. ``MemoryStore(url)`` connects nothing; ``close`` when done."""

    what = "memory store"

    @classmethod
    def from_settings(cls, settings: Settings, *, read_only: bool = False) -> MemoryStore:
        """The memory store in the state database (the audit log's URL)."""
        return cls(settings.resolved_audit_url(), read_only=read_only)

    def _metadata(self) -> MetaData:
        return schema().metadata

    # ---- sessions ----

    def add_turn(self, user: str, session: str, turn: Turn, *, now: datetime | None = None) -> Result[Turn]:
        """Append ``turn`` to the user's session (cleaned and capped), then drop the session's turns
        beyond the newest ``MAX_TURNS_PER_SESSION`` and the user's sessions beyond the newest
        ``MAX_SESSIONS_PER_USER``. Returns the turn as stored."""
        from sqlalchemy import delete, func, insert, select
        from sqlalchemy.exc import SQLAlchemyError

        from findesk.core.storage import database_error, utc

        ids = _ids(user, session)
        if isinstance(ids, Err):
            return ids
        user_id, session_id = ids.value
        kept = turn.cleaned()
        kept = kept.model_copy(update={"at": utc(kept.at or now or datetime.now(UTC))})
        engine = self._writer()
        if isinstance(engine, Err):
            return engine
        turns = schema().turns
        mine = (turns.c.user_id == user_id) & (turns.c.session_id == session_id)
        try:
            with engine.value.begin() as conn:
                conn.execute(insert(turns).values(user_id=user_id, session_id=session_id, **_turn_row(kept)))
                cutoff = conn.execute(
                    select(turns.c.id).where(mine).order_by(turns.c.id.desc()).offset(MAX_TURNS_PER_SESSION)
                ).first()
                if cutoff is not None:
                    conn.execute(delete(turns).where(mine & (turns.c.id <= cutoff[0])))
                newest = func.max(turns.c.id)
                stale = [
                    row[0]
                    for row in conn.execute(
                        select(turns.c.session_id)
                        .where(turns.c.user_id == user_id)
                        .group_by(turns.c.session_id)
                        .order_by(newest.desc())
                        .offset(MAX_SESSIONS_PER_USER)
                    )
                ]
                if stale:
                    conn.execute(
                        delete(turns).where((turns.c.user_id == user_id) & turns.c.session_id.in_(stale))
                    )
        except SQLAlchemyError as exc:
            return database_error(exc, "record a session turn", self.location)
        return Ok(kept)

    def session_turns(self, user: str, session: str, limit: int = DEFAULT_TURNS) -> Result[list[Turn]]:
        """The user's newest ``limit`` turns of ``session``, oldest first; an unknown session has none."""
        from sqlalchemy import select
        from sqlalchemy.exc import SQLAlchemyError

        from findesk.core.storage import database_error

        ids = _ids(user, session)
        if isinstance(ids, Err):
            return ids
        user_id, session_id = ids.value
        engine = self._reader()
        if isinstance(engine, Err):
            return engine
        if engine.value is None or limit <= 0:
            return Ok([])
        turns = schema().turns
        query = (
            select(turns)
            .where((turns.c.user_id == user_id) & (turns.c.session_id == session_id))
            .order_by(turns.c.id.desc())
            .limit(min(limit, MAX_TURNS_PER_SESSION))
        )
        try:
            with engine.value.connect() as conn:
                rows = list(conn.execute(query).mappings())
        except SQLAlchemyError as exc:
            return database_error(exc, "read a session", self.location)
        return Ok([_turn(row) for row in reversed(rows)])

    # ---- facts ----

    def add_facts(
        self, user: str, facts: Sequence[NewFact], *, now: datetime | None = None
    ) -> Result[FactsAdded]:
        """Store facts about ``user``: each is vetted (``facts.vet``); one with the same kind and
        subject as a stored fact updates it (same id); beyond ``MAX_FACTS_PER_USER`` new facts are
        refused with a warning saying how to make room."""
        from sqlalchemy import func, insert, select, update
        from sqlalchemy.exc import IntegrityError, SQLAlchemyError

        from findesk.core.storage import database_error, utc

        checked = check_user(user)
        if isinstance(checked, Err):
            return checked
        user_id = checked.value
        added = FactsAdded()
        accepted: dict[tuple[str, str], NewFact] = {}
        for fact in facts:
            vetted = vet(fact)
            if isinstance(vetted, Err):
                added.warnings.append(vetted.reason)
            else:
                accepted[(vetted.value.kind, vetted.value.subject)] = vetted.value
        if not accepted:
            return Ok(added)
        engine = self._writer()
        if isinstance(engine, Err):
            return engine
        table = schema().facts
        created = utc(now or datetime.now(UTC))
        try:
            with engine.value.begin() as conn:
                held = conn.execute(
                    select(func.count()).select_from(table).where(table.c.user_id == user_id)
                ).scalar_one()
                for fact in accepted.values():
                    same = (
                        (table.c.user_id == user_id)
                        & (table.c.kind == fact.kind)
                        & (table.c.subject == fact.subject)
                    )
                    row = conn.execute(select(table).where(same)).mappings().first()
                    if row is not None:
                        values = {"detail": fact.detail, "source": fact.source, "created_at": created}
                        conn.execute(update(table).where(same).values(**values))
                        added.stored.append(_fact({**row, **values}))
                        continue
                    if held >= MAX_FACTS_PER_USER:
                        added.warnings.append(
                            f"not remembered ({fact.kind} {fact.subject}): memory holds its maximum of "
                            f"{MAX_FACTS_PER_USER} facts; forget some first (`findesk memory forget ID`)"
                        )
                        continue
                    stored = Fact(
                        **fact.model_dump(), id=secrets.token_hex(_FACT_ID_BYTES), created_at=created
                    )
                    try:
                        # a savepoint per new fact: when another writer stored the same subject at once
                        # (PostgreSQL; SQLite serialises writers), its fact stands and only this one
                        # is undone, never the question's other facts
                        with conn.begin_nested():
                            conn.execute(insert(table).values(user_id=user_id, **stored.model_dump()))
                    except IntegrityError:
                        added.warnings.append(
                            f"not remembered again ({fact.kind} {fact.subject}): it was stored "
                            "concurrently; kept that one"
                        )
                        continue
                    held += 1
                    added.stored.append(stored)
        except SQLAlchemyError as exc:
            return database_error(exc, "store facts", self.location)
        return Ok(added)

    def facts(self, user: str) -> Result[list[Fact]]:
        """Every fact about ``user``, oldest first (then by kind and subject)."""
        from sqlalchemy import select
        from sqlalchemy.exc import SQLAlchemyError

        from findesk.core.storage import database_error

        checked = check_user(user)
        if isinstance(checked, Err):
            return checked
        engine = self._reader()
        if isinstance(engine, Err):
            return engine
        if engine.value is None:
            return Ok([])
        table = schema().facts
        # facts stated in one question share a time: kind and subject order them, never the random id
        query = (
            select(table)
            .where(table.c.user_id == checked.value)
            .order_by(table.c.created_at, table.c.kind, table.c.subject)
        )
        try:
            with engine.value.connect() as conn:
                return Ok([_fact(row) for row in conn.execute(query).mappings()])
        except SQLAlchemyError as exc:
            return database_error(exc, "read facts", self.location)

    def forget(self, user: str, fact_id: str) -> Result[Fact]:
        """Delete one of ``user``'s facts; another user's fact is ``not_found`` like a missing one."""
        from sqlalchemy import delete, select
        from sqlalchemy.exc import SQLAlchemyError

        from findesk.core.storage import database_error

        checked = check_user(user)
        if isinstance(checked, Err):
            return checked
        wanted = fact_id.strip()
        missing = Err(ErrorCode.NOT_FOUND, f"no fact {wanted[:40]!r} in your memory")
        if not wanted.isascii() or not wanted.isalnum() or len(wanted) > 32:
            return missing  # not the shape of a fact id: never looked up
        engine = self._writer()
        if isinstance(engine, Err):
            return engine
        table = schema().facts
        mine = (table.c.user_id == checked.value) & (table.c.id == wanted.lower())
        try:
            with engine.value.begin() as conn:
                row = conn.execute(select(table).where(mine)).mappings().first()
                if row is None:
                    return missing
                conn.execute(delete(table).where(mine))
        except SQLAlchemyError as exc:
            return database_error(exc, "forget a fact", self.location)
        return Ok(_fact(row))

    def forget_all(self, user: str) -> Result[int]:
        """Delete every fact about ``user``; how many there were."""
        from sqlalchemy import delete
        from sqlalchemy.exc import SQLAlchemyError

        from findesk.core.storage import database_error

        checked = check_user(user)
        if isinstance(checked, Err):
            return checked
        engine = self._writer()
        if isinstance(engine, Err):
            return engine
        table = schema().facts
        try:
            with engine.value.begin() as conn:
                gone = conn.execute(delete(table).where(table.c.user_id == checked.value)).rowcount
        except SQLAlchemyError as exc:
            return database_error(exc, "forget facts", self.location)
        return Ok(int(gone or 0))


def _ids(user: str, session: str) -> Result[tuple[str, str]]:
    checked_user = check_user(user)
    if isinstance(checked_user, Err):
        return checked_user
    checked_session = check_session(session)
    if isinstance(checked_session, Err):
        return checked_session
    return Ok((checked_user.value, checked_session.value))


def _turn_row(turn: Turn) -> dict[str, Any]:
    return {
        "at": turn.at,
        "question": turn.question,
        "resolved": turn.resolved,
        "subjects": json.dumps(turn.subjects, ensure_ascii=False, default=str),
        "intents": json.dumps(turn.intents, ensure_ascii=False),
        "answer_line": turn.answer_line,
        "run_id": turn.run_id,
    }


def _turn(row: RowMapping) -> Turn:
    from findesk.core.storage import utc

    subjects = json.loads(row["subjects"])
    intents = json.loads(row["intents"])
    return Turn(
        question=row["question"],
        resolved=row["resolved"],
        subjects=subjects if isinstance(subjects, dict) else {},
        intents=[str(i) for i in intents] if isinstance(intents, list) else [],
        answer_line=row["answer_line"],
        run_id=row["run_id"],
        at=utc(row["at"]),
    )


def _fact(row: RowMapping | dict[str, Any]) -> Fact:
    from findesk.core.storage import utc

    return Fact(
        id=row["id"],
        kind=row["kind"],
        subject=row["subject"],
        detail=row["detail"],
        source=row["source"],
        created_at=utc(row["created_at"]),
    )
