"""Per-key limits: requests per minute and dollars of model cost per UTC day, counted in the database.

Rules:
- shared: the counts live in ``api_requests``, so every server process behind a load balancer
  (and the CLI) sees the same numbers.
- atomic: ``admit`` checks and records in one transaction that first locks the key (SQLite: the
  writer's ``BEGIN IMMEDIATE``; PostgreSQL: ``SELECT … FOR UPDATE`` on the key row), so concurrent
  requests can never both take the last slot.
- requests per minute: the key's admitted requests in the 60 s before ``now``; refused requests are
  not recorded and do not count.
- daily cost: the ``cost_usd`` of the key's requests admitted since 00:00 UTC of ``now``'s day (a
  run's cost counts on the day it was admitted); only ``costly`` requests (runs) are refused by it,
  reads go on.
- reservations: a costly request reserves its model budget (``reserve_usd``, capped to what is left
  of the cap) in its row's ``cost_usd`` as it is admitted, so runs still in flight count against the
  cap and N runs admitted at once can never spend N times what is left. The run's end settles the
  row to the real cost (``record_cost``). A reservation nobody settles (the server died mid-run)
  stays charged: the run may have spent all of it, and the key, not the desk, carries that risk.
- a refusal is ``Err(LIMIT_REACHED, reason)`` whose ``details`` hold ``retry_after_s`` (whole seconds,
  ≥ 1; ``retry_after_s(err)`` reads it) for the HTTP ``Retry-After`` header, ``limit`` ("rpm" or
  "daily_cost") and ``tier``. A key revoked since it was verified is ``unauthorized``.
- housekeeping: every ``PRUNE_EVERY``-th admission deletes request rows older than ``KEEP`` that
  carry no run; rows with a run stay, since they record which key owns the run.
- errors are data: a database that is locked or down is ``unavailable``, never an exception.
- SQLAlchemy (and ``core.storage``) are imported by the functions that touch the database, so
  importing ``core.access`` costs no database layer.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import TYPE_CHECKING

from findesk.core.access.keys import ApiKey, KeyStore, revoked_reason
from findesk.core.access.schema import schema
from findesk.core.result import Err, ErrorCode, Ok, Result

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from findesk.core.config import ApiTier

WINDOW = timedelta(seconds=60)
KEEP = timedelta(days=2)
PRUNE_EVERY = 500


@dataclass(frozen=True)
class Admission:
    """An admitted request: its row (pass ``request_id`` to ``record_cost``) and what is left."""

    key_id: str
    request_id: int
    remaining_rpm: int  # requests this key may still make in the current 60 s window
    spent_today_usd: float  # model cost of the key's requests admitted today (UTC), before this one
    budget_left_usd: float  # daily cap minus spent, never below 0
    reserved_usd: float = 0.0  # held for this run until ``record_cost`` settles it: the run's budget


def tier_of(key: ApiKey, tiers: Mapping[str, ApiTier]) -> Result[ApiTier]:
    """The limits of a key's tier; a tier since removed from the settings is ``not_configured``."""
    tier = tiers.get(key.tier)
    if tier is None:
        known = ", ".join(sorted(tiers)) or "none"
        return Err(
            ErrorCode.NOT_CONFIGURED,
            f"API key {key.id} has tier {key.tier!r}, which is not configured (tiers: {known})",
        )
    return Ok(tier)


def admit(
    store: KeyStore,
    key: ApiKey,
    tier: ApiTier,
    *,
    now: datetime,
    costly: bool,
    run_id: str | None = None,
    reserve_usd: float = 0.0,
) -> Result[Admission]:
    """Admit one request of ``key`` at ``now`` and record it, or refuse it with ``limit_reached``.

    ``costly`` marks a request that spends model money (a run): it is also held to the daily cap, and
    reserves ``reserve_usd`` (its model budget), or what is left of the cap if that is less, until
    ``record_cost`` settles it. ``run_id``, when already known, lets the key read that run while it is
    still going.
    """
    if not math.isfinite(reserve_usd) or reserve_usd < 0:
        return Err(
            ErrorCode.INVALID_INPUT, f"a run can only reserve a dollar amount ≥ 0 (got {reserve_usd!r})"
        )
    from sqlalchemy import insert, select, update
    from sqlalchemy.exc import SQLAlchemyError

    from findesk.core.storage import database_error, utc

    api_keys, api_requests = schema().api_keys, schema().api_requests
    now = utc(now)
    try:
        with store.write_engine().begin() as conn:
            # Lock the key first: concurrent admissions of this key queue here, so each one counts
            # the rows the previous ones committed.
            lock = select(api_keys.c.revoked_at).where(api_keys.c.id == key.id).with_for_update()
            row = conn.execute(lock).first()
            if row is None:
                return Err(ErrorCode.UNAUTHORIZED, "unknown API key")
            if row.revoked_at is not None:
                return Err(ErrorCode.UNAUTHORIZED, revoked_reason(key.id, row.revoked_at))
            recent = _recent(conn, key.id, now)
            if len(recent) >= tier.rpm:
                # the window frees a slot when the request that makes the count reach the limit ages out
                frees_at = recent[len(recent) - tier.rpm] + WINDOW
                return _refuse(
                    f"rate limit: {tier.rpm} requests per minute for tier {key.tier}",
                    _seconds_until(frees_at, now, most=int(WINDOW.total_seconds())),
                    "rpm",
                    key.tier,
                )
            spent = _spent(conn, key.id, now)
            if costly and spent >= tier.daily_cost_usd:
                return _refuse(
                    f"daily cost cap of {_usd(tier.daily_cost_usd)} reached for tier {key.tier} "
                    f"(spent {_usd(spent)} today); resets at 00:00 UTC",
                    _seconds_until(_day_start(now) + timedelta(days=1), now),
                    "daily_cost",
                    key.tier,
                )
            left = max(0.0, tier.daily_cost_usd - spent)
            reserved = min(reserve_usd, left) if costly else 0.0
            row_values = {"key_id": key.id, "ts": now, "run_id": run_id, "cost_usd": reserved}
            add = insert(api_requests).values(**row_values).returning(api_requests.c.id)
            request_id = int(conn.execute(add).scalar_one())
            conn.execute(update(api_keys).where(api_keys.c.id == key.id).values(last_used_at=now))
            if request_id % PRUNE_EVERY == 0:
                _prune(conn, now)
    except SQLAlchemyError as exc:
        return database_error(exc, "count API requests", store.location)
    return Ok(
        Admission(
            key_id=key.id,
            request_id=request_id,
            remaining_rpm=tier.rpm - len(recent) - 1,
            spent_today_usd=spent,
            budget_left_usd=left,
            reserved_usd=reserved,
        )
    )


def retry_after_s(error: Err) -> int | None:
    """Seconds until a ``limit_reached`` refusal from ``admit`` can succeed; None for other errors."""
    value = error.details.get("retry_after_s") if error.code is ErrorCode.LIMIT_REACHED else None
    return value if isinstance(value, int) else None


def record_cost(store: KeyStore, request_id: int, run_id: str, cost_usd: float) -> Result[None]:
    """Attach a run and its model cost to an admitted request: the cost replaces the reservation or
    any earlier figure (settling the run), so recording a run's running total again is safe."""
    if not math.isfinite(cost_usd) or cost_usd < 0:
        return Err(ErrorCode.INVALID_INPUT, f"a run's cost must be a dollar amount ≥ 0 (got {cost_usd!r})")
    from sqlalchemy import update
    from sqlalchemy.exc import SQLAlchemyError

    from findesk.core.storage import database_error

    api_requests = schema().api_requests
    change = update(api_requests).where(api_requests.c.id == request_id)
    try:
        with store.write_engine().begin() as conn:
            updated = conn.execute(change.values(run_id=run_id, cost_usd=cost_usd)).rowcount
    except SQLAlchemyError as exc:
        return database_error(exc, "record a run's cost", store.location)
    if not updated:
        return Err(ErrorCode.NOT_FOUND, f"no API request {request_id} in {store.location}")
    return Ok(None)


def spent_today(store: KeyStore, key_id: str, now: datetime) -> Result[float]:
    """Dollars of model cost of the key's requests admitted since 00:00 UTC of ``now``'s day."""
    from sqlalchemy.exc import SQLAlchemyError

    from findesk.core.storage import database_error, utc

    try:
        with store.reader.connect() as conn:
            return Ok(_spent(conn, key_id, utc(now)))
    except SQLAlchemyError as exc:
        return database_error(exc, "sum API costs", store.location)


def owns_run(store: KeyStore, key_id: str, run_id: str) -> Result[bool]:
    """Whether a run was started with this key (a key may only read its own runs)."""
    from sqlalchemy import select
    from sqlalchemy.exc import SQLAlchemyError

    from findesk.core.storage import database_error

    api_requests = schema().api_requests
    query = (
        select(api_requests.c.id)
        .where(api_requests.c.key_id == key_id, api_requests.c.run_id == run_id)
        .limit(1)
    )
    try:
        with store.reader.connect() as conn:
            return Ok(conn.execute(query).first() is not None)
    except SQLAlchemyError as exc:
        return database_error(exc, "look up a run's key", store.location)


def runs_owned(store: KeyStore, key_id: str, prefix: str, *, most: int = 11) -> Result[list[str]]:
    """Up to ``most`` ids of runs started with this key that begin with ``prefix`` (a run id or the
    prefix a caller typed): resolving a prefix among these never touches another key's runs."""
    from sqlalchemy import select
    from sqlalchemy.exc import SQLAlchemyError

    from findesk.core.storage import database_error

    api_requests = schema().api_requests
    run_id = api_requests.c.run_id
    query = (
        select(run_id)
        .where(api_requests.c.key_id == key_id, run_id.startswith(prefix, autoescape=True))
        .distinct()
        .order_by(run_id.desc())
        .limit(most)
    )
    try:
        with store.reader.connect() as conn:
            return Ok([str(found) for found in conn.execute(query).scalars()])
    except SQLAlchemyError as exc:
        return database_error(exc, "look up a key's runs", store.location)


def _recent(conn: Connection, key_id: str, now: datetime) -> list[datetime]:
    """Times of the key's requests in the window, oldest first (later ones too: another server's
    clock may run ahead, and such a request still happened)."""
    from sqlalchemy import select

    from findesk.core.storage import utc

    api_requests = schema().api_requests
    query = (
        select(api_requests.c.ts)
        .where(api_requests.c.key_id == key_id, api_requests.c.ts > now - WINDOW)
        .order_by(api_requests.c.ts)
    )
    return [utc(ts) for ts in conn.execute(query).scalars()]


def _spent(conn: Connection, key_id: str, now: datetime) -> float:
    from sqlalchemy import func, select

    api_requests = schema().api_requests
    start = _day_start(now)
    query = select(func.coalesce(func.sum(api_requests.c.cost_usd), 0.0)).where(
        api_requests.c.key_id == key_id,
        api_requests.c.ts >= start,
        api_requests.c.ts < start + timedelta(days=1),
    )
    return float(conn.execute(query).scalar_one())


def _prune(conn: Connection, now: datetime) -> None:
    from sqlalchemy import delete

    api_requests = schema().api_requests
    old = (api_requests.c.ts < now - KEEP) & api_requests.c.run_id.is_(None)
    conn.execute(delete(api_requests).where(old))


def _refuse(reason: str, retry_after: int, limit: str, tier: str) -> Err:
    return Err(
        ErrorCode.LIMIT_REACHED,
        f"{reason}; retry in {retry_after} s" if limit == "rpm" else reason,
        details={"retry_after_s": retry_after, "limit": limit, "tier": tier},
    )


def _seconds_until(moment: datetime, now: datetime, *, most: int | None = None) -> int:
    seconds = max(1, math.ceil((moment - now).total_seconds()))
    return seconds if most is None else min(seconds, most)


def _day_start(now: datetime) -> datetime:
    return datetime.combine(now.date(), time.min, tzinfo=UTC)


def _usd(amount: float) -> str:
    return f"${amount:,.2f}"
