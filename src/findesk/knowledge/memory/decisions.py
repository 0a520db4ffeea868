"""The trading desk's decision log and reflection memory, per user, in the state database.

Rules:
- every decision is logged once (unique per user and run id: a resumed run logs nothing twice) as
  ``pending``; once its horizon has passed, ``score`` fills in the realised outcome (return, SPY return,
  alpha, stop/target touches) and marks it ``scored``. Scoring twice changes nothing.
- a reflection is one role's lesson from one scored decision (id ``<run_id>.<role>``, stored once). It
  carries ``outcome_known``, the exit session: before that day nobody could have known the lesson, so
  ``reflections(…, known_before=D)`` returns only those with ``outcome_known < D`` (point in time).
- ``pending(user, known_by=D)`` returns only decisions made before D: a run at an earlier date never
  scores (and so never learns from) a decision made after it.
- per user, always: every read, update and delete filters on the user id first; another user's
  decision is ``not_found`` exactly like a missing one.
- bounded: texts are cleaned and capped (situation, role lines, lessons); a user's log holds at most
  ``MAX_DECISIONS_PER_USER`` decisions, beyond which logging is refused (``limit_reached``) until
  ``findesk memory clear``.
- the log is its own store in the state database beside the memory store (a tool-context service,
  ``tools.catalog``), opened on first use; errors are ``Result`` (a locked database is
  ``unavailable``); methods are synchronous, async callers use ``asyncio.to_thread``. Mutating a
  read-only log raises ``RuntimeError``.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.knowledge.memory.lazy_tables import LazyTables
from findesk.knowledge.memory.models import MAX_ID_CHARS, check_user, clean_text
from findesk.knowledge.memory.schema import decision_schema

if TYPE_CHECKING:
    from sqlalchemy import MetaData, RowMapping

    from findesk.core.config import Settings

ROLES: tuple[str, ...] = ("bull", "bear", "trader", "research_manager", "risk_manager")
MemoryRating = Literal["BUY", "OVERWEIGHT", "HOLD", "UNDERWEIGHT", "SELL", "REVIEW"]
MemoryDirection = Literal["long", "short", "flat"]
DecisionStatus = Literal["pending", "scored"]
ExitReason = Literal["stop", "target", "horizon", "flat"]

MAX_DECISIONS_PER_USER = 10_000
MAX_SITUATION_CHARS = 2_000
MAX_ROLE_LINE_CHARS = 600
MAX_LESSON_CHARS = 300
MAX_REFLECTIONS = 500  # per role and query: the newest known lessons


class Outcome(BaseModel):
    """What happened to a decision over its horizon (``analytics.trading.outcome.realised``).

    ``return_pct`` is the stock's close-to-close return from the entry session to the exit session;
    ``alpha_pp`` = return_pct − spy_return_pct (None when SPY has no close for those sessions);
    ``position_return_pct`` is the plan's own return (long: the stock's; short: its negative; flat: 0),
    exiting at the stop or target when touched first; ``stop_hit``/``target_hit``: touched on the way."""

    model_config = ConfigDict(frozen=True)

    entry_session: date
    entry_close: float
    exit_date: date
    exit_close: float
    sessions: int = Field(ge=1)
    return_pct: float
    spy_return_pct: float | None = None
    alpha_pp: float | None = None
    position_return_pct: float
    exit_reason: ExitReason
    stop_hit: bool = False
    target_hit: bool = False


class LoggedDecision(BaseModel):
    """One desk decision as logged: the call, the plan's levels, the case and each role's line."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    ticker: str = Field(min_length=1, max_length=16)
    decided_on: date  # the decision (as-of) date
    session: date  # the session of the entry close (the last session at or before decided_on)
    rating: MemoryRating  # the final (risk manager's) rating
    manager_rating: MemoryRating | None = None  # the research manager's, when it differs in role
    position_pct: float = Field(ge=0.0, le=100.0)
    direction: MemoryDirection
    entry: float | None = None
    stop: float | None = None
    target: float | None = None
    horizon_days: int = Field(ge=1, le=1_000)  # sessions
    situation: str = ""  # a compact text of the case: what BM25 matches later situations against
    roles: dict[str, str] = Field(default_factory=dict)  # bull, bear, trader, research_manager, …
    status: DecisionStatus = "pending"
    exit_date: date | None = None
    return_pct: float | None = None
    spy_return_pct: float | None = None
    alpha_pp: float | None = None
    position_return_pct: float | None = None
    stop_hit: bool | None = None
    target_hit: bool | None = None
    logged_at: datetime | None = None  # set by the log
    scored_at: datetime | None = None

    def cleaned(self) -> LoggedDecision:
        """The decision with its texts cleaned and capped (what the log keeps)."""
        return self.model_copy(
            update={
                "run_id": clean_text(self.run_id, MAX_ID_CHARS),
                "ticker": clean_text(self.ticker, 16).upper(),
                "situation": clean_text(self.situation, MAX_SITUATION_CHARS),
                "roles": {
                    clean_text(role, 24): clean_text(line, MAX_ROLE_LINE_CHARS)
                    for role, line in self.roles.items()
                    if role.strip()
                },
            }
        )


class Reflection(BaseModel):
    """One role's lesson from one scored decision, visible from the day after ``outcome_known``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, max_length=96)  # "<run_id>.<role>"
    role: str = Field(min_length=1, max_length=24)
    ticker: str = Field(min_length=1, max_length=16)
    decided_on: date
    outcome_known: date  # the exit session of the decision
    situation: str = ""
    lesson: str = Field(min_length=1)
    return_pct: float | None = None
    alpha_pp: float | None = None

    def cleaned(self) -> Reflection:
        return self.model_copy(
            update={
                "situation": clean_text(self.situation, MAX_SITUATION_CHARS),
                "lesson": clean_text(self.lesson, MAX_LESSON_CHARS),
            }
        )


class DecisionLog(LazyTables):
    """Logged decisions and reflections of every user. ``DecisionLog(url)`` connects nothing."""

    what = "decision log"

    @classmethod
    def from_settings(cls, settings: Settings, *, read_only: bool = False) -> DecisionLog:
        return cls(settings.resolved_audit_url(), read_only=read_only)

    def _metadata(self) -> MetaData:
        return decision_schema().metadata

    # ---- decisions ----

    def log(self, user: str, decision: LoggedDecision, *, now: datetime | None = None) -> Result[bool]:
        """Log ``decision`` as pending; False when this run's decision was logged already (idempotent)."""
        from sqlalchemy import func, insert, select
        from sqlalchemy.exc import IntegrityError, SQLAlchemyError

        from findesk.core.storage import database_error, utc

        checked = check_user(user)
        if isinstance(checked, Err):
            return checked
        user_id = checked.value
        kept = decision.cleaned()
        row = _decision_row(kept) | {
            "status": "pending",
            "logged_at": utc(now or datetime.now(UTC)),
            "scored_at": None,
        }
        row.update(dict.fromkeys(_OUTCOME_COLUMNS))
        engine = self._writer()
        if isinstance(engine, Err):
            return engine
        table = decision_schema().decisions
        same = (table.c.user_id == user_id) & (table.c.run_id == kept.run_id)
        try:
            with engine.value.begin() as conn:
                if conn.execute(select(table.c.id).where(same)).first() is not None:
                    return Ok(False)
                held = conn.execute(
                    select(func.count()).select_from(table).where(table.c.user_id == user_id)
                ).scalar_one()
                if held >= MAX_DECISIONS_PER_USER:
                    return Err(
                        ErrorCode.LIMIT_REACHED,
                        f"the decision log holds its maximum of {MAX_DECISIONS_PER_USER} decisions for "
                        f"{user_id}; clear it first (`findesk memory clear --yes`)",
                    )
                try:
                    # a savepoint: a concurrent writer that logged the same run first (PostgreSQL)
                    # wins, and this log is a no-op, not a failed transaction
                    with conn.begin_nested():
                        conn.execute(insert(table).values(user_id=user_id, **row))
                except IntegrityError:
                    return Ok(False)
        except SQLAlchemyError as exc:
            return database_error(exc, "log a decision", self.location)
        return Ok(True)

    def pending(self, user: str, known_by: date) -> Result[list[LoggedDecision]]:
        """The user's pending decisions made before ``known_by``, oldest first."""
        table = decision_schema().decisions
        return self._decisions(
            user,
            lambda mine: mine & (table.c.status == "pending") & (table.c.decided_on < known_by),
            newest_first=False,
            limit=MAX_DECISIONS_PER_USER,
            doing="read pending decisions",
        )

    def decisions(self, user: str, limit: int = 50) -> Result[list[LoggedDecision]]:
        """The user's newest ``limit`` decisions (by decision date), newest first."""
        return self._decisions(
            user, lambda mine: mine, newest_first=True, limit=limit, doing="read decisions"
        )

    def decision(self, user: str, run_id: str) -> Result[LoggedDecision]:
        """One of the user's decisions by run id; another user's is ``not_found`` like a missing one."""
        table = decision_schema().decisions
        found = self._decisions(
            user,
            lambda mine: mine & (table.c.run_id == run_id),
            newest_first=True,
            limit=1,
            doing="read a decision",
        )
        if isinstance(found, Err):
            return found
        if not found.value:
            return Err(ErrorCode.NOT_FOUND, f"no decision of run {run_id[:64]!r} in the decision log")
        return Ok(found.value[0])

    def _decisions(
        self, user: str, where: Any, *, newest_first: bool, limit: int, doing: str
    ) -> Result[list[LoggedDecision]]:
        from sqlalchemy import select
        from sqlalchemy.exc import SQLAlchemyError

        from findesk.core.storage import database_error

        checked = check_user(user)
        if isinstance(checked, Err):
            return checked
        engine = self._reader()
        if isinstance(engine, Err):
            return engine
        if engine.value is None or limit <= 0:
            return Ok([])
        table = decision_schema().decisions
        order = (
            (table.c.decided_on.desc(), table.c.id.desc())
            if newest_first
            else (table.c.decided_on, table.c.id)
        )
        query = select(table).where(where(table.c.user_id == checked.value)).order_by(*order).limit(limit)
        try:
            with engine.value.connect() as conn:
                return Ok([_decision(row) for row in conn.execute(query).mappings()])
        except SQLAlchemyError as exc:
            return database_error(exc, doing, self.location)

    def score(
        self, user: str, run_id: str, outcome: Outcome, *, now: datetime | None = None
    ) -> Result[LoggedDecision]:
        """Fill in a pending decision's outcome and mark it scored; a scored one is returned unchanged."""
        from sqlalchemy import select, update
        from sqlalchemy.exc import SQLAlchemyError

        from findesk.core.storage import database_error, utc

        checked = check_user(user)
        if isinstance(checked, Err):
            return checked
        engine = self._writer()
        if isinstance(engine, Err):
            return engine
        table = decision_schema().decisions
        mine = (table.c.user_id == checked.value) & (table.c.run_id == run_id)
        values = {
            "status": "scored",
            "exit_date": outcome.exit_date,
            "return_pct": outcome.return_pct,
            "spy_return_pct": outcome.spy_return_pct,
            "alpha_pp": outcome.alpha_pp,
            "position_return_pct": outcome.position_return_pct,
            "stop_hit": outcome.stop_hit,
            "target_hit": outcome.target_hit,
            "scored_at": utc(now or datetime.now(UTC)),
        }
        try:
            with engine.value.begin() as conn:
                row = conn.execute(select(table).where(mine)).mappings().first()
                if row is None:
                    return Err(ErrorCode.NOT_FOUND, f"no decision of run {run_id[:64]!r} in the decision log")
                if row["status"] == "scored":
                    return Ok(_decision(row))
                if outcome.exit_date <= row["decided_on"]:
                    return Err(
                        ErrorCode.INVALID_INPUT,
                        f"an outcome known on {outcome.exit_date} cannot score a decision "
                        f"of {row['decided_on']}",
                    )
                conn.execute(update(table).where(mine).values(**values))
        except SQLAlchemyError as exc:
            return database_error(exc, "score a decision", self.location)
        return Ok(_decision({**row, **values}))

    # ---- reflections ----

    def add_reflections(
        self, user: str, reflections: list[Reflection], *, now: datetime | None = None
    ) -> Result[int]:
        """Store reflections (cleaned and capped); one already stored (same id) is kept as it was.
        Returns how many were new."""
        from sqlalchemy import insert, select
        from sqlalchemy.exc import IntegrityError, SQLAlchemyError

        from findesk.core.storage import database_error, utc

        checked = check_user(user)
        if isinstance(checked, Err):
            return checked
        if not reflections:
            return Ok(0)
        engine = self._writer()
        if isinstance(engine, Err):
            return engine
        table = decision_schema().reflections
        created = utc(now or datetime.now(UTC))
        added = 0
        try:
            with engine.value.begin() as conn:
                for reflection in reflections:
                    kept = reflection.cleaned()
                    same = (table.c.user_id == checked.value) & (table.c.id == kept.id)
                    if conn.execute(select(table.c.row_id).where(same)).first() is not None:
                        continue
                    try:
                        with conn.begin_nested():
                            conn.execute(
                                insert(table).values(
                                    user_id=checked.value, created_at=created, **kept.model_dump()
                                )
                            )
                    except IntegrityError:
                        continue  # stored concurrently by another settle: that one stands
                    added += 1
        except SQLAlchemyError as exc:
            return database_error(exc, "store reflections", self.location)
        return Ok(added)

    def reflections(
        self, user: str, role: str | None, known_before: date, limit: int = MAX_REFLECTIONS
    ) -> Result[list[Reflection]]:
        """The user's reflections of ``role`` (every role with None) whose outcome was known before
        ``known_before``, newest outcome first (then by id), at most ``limit``."""
        from sqlalchemy import select
        from sqlalchemy.exc import SQLAlchemyError

        from findesk.core.storage import database_error

        checked = check_user(user)
        if isinstance(checked, Err):
            return checked
        engine = self._reader()
        if isinstance(engine, Err):
            return engine
        if engine.value is None or limit <= 0:
            return Ok([])
        table = decision_schema().reflections
        where = (table.c.user_id == checked.value) & (table.c.outcome_known < known_before)
        if role is not None:
            where = where & (table.c.role == role)
        query = select(table).where(where).order_by(table.c.outcome_known.desc(), table.c.id).limit(limit)
        try:
            with engine.value.connect() as conn:
                return Ok([_reflection(row) for row in conn.execute(query).mappings()])
        except SQLAlchemyError as exc:
            return database_error(exc, "read reflections", self.location)

    def clear(self, user: str) -> Result[int]:
        """Delete every decision and reflection of ``user``; how many rows there were in all."""
        from sqlalchemy import delete
        from sqlalchemy.exc import SQLAlchemyError

        from findesk.core.storage import database_error

        checked = check_user(user)
        if isinstance(checked, Err):
            return checked
        engine = self._writer()
        if isinstance(engine, Err):
            return engine
        tables = decision_schema()
        try:
            with engine.value.begin() as conn:
                gone = 0
                for table in (tables.reflections, tables.decisions):
                    gone += int(
                        conn.execute(delete(table).where(table.c.user_id == checked.value)).rowcount or 0
                    )
        except SQLAlchemyError as exc:
            return database_error(exc, "clear the decision log", self.location)
        return Ok(gone)


_OUTCOME_COLUMNS = (
    "exit_date",
    "return_pct",
    "spy_return_pct",
    "alpha_pp",
    "position_return_pct",
    "stop_hit",
    "target_hit",
)
_PLAN_COLUMNS = (
    "run_id",
    "ticker",
    "decided_on",
    "session",
    "rating",
    "manager_rating",
    "position_pct",
    "direction",
    "entry",
    "stop",
    "target",
    "horizon_days",
    "situation",
)


def _decision_row(decision: LoggedDecision) -> dict[str, Any]:
    row = {name: getattr(decision, name) for name in _PLAN_COLUMNS}
    row["roles"] = json.dumps(decision.roles, ensure_ascii=False, sort_keys=True)
    return row


def _decision(row: RowMapping | dict[str, Any]) -> LoggedDecision:
    from findesk.core.storage import utc

    roles = json.loads(row["roles"])
    return LoggedDecision(
        **{name: row[name] for name in _PLAN_COLUMNS},
        roles={str(k): str(v) for k, v in roles.items()} if isinstance(roles, dict) else {},
        status=row["status"],
        **{name: row[name] for name in _OUTCOME_COLUMNS},
        logged_at=utc(row["logged_at"]),
        scored_at=utc(row["scored_at"]) if row["scored_at"] is not None else None,
    )


def _reflection(row: RowMapping) -> Reflection:
    return Reflection(
        id=row["id"],
        role=row["role"],
        ticker=row["ticker"],
        decided_on=row["decided_on"],
        outcome_known=row["outcome_known"],
        situation=row["situation"],
        lesson=row["lesson"],
        return_pct=row["return_pct"],
        alpha_pp=row["alpha_pp"],
    )
