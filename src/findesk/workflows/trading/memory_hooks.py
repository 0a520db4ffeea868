"""The trading desk's decision log and reflection memory: settle, recall, record.

Rules:
- Never raises and never fails a run: a missing or failing memory store is a warning
  ("memory unavailable: …"), and the desk decides without past lessons.
- Per user: the user is the run's bound caller, never a request field.
- Point in time, always as of the run's date ``day``:
  - ``settle`` scores only decisions made before ``day`` whose exit session (``horizon_days`` sessions
    after the entry) is in the bars read as of ``day``; each stores one reflection per role with
    ``outcome_known`` = the exit session. A decision whose horizon has not passed stays pending.
  - ``recall`` sees only reflections with ``outcome_known < day``: a lesson learnt on or after the
    run's date does not exist for it.
- Recall: per role (bull, bear, trader, research_manager, risk_manager), the ``LESSONS_PER_ROLE`` most
  similar reflections by BM25 (query: the run's situation; documents: each reflection's situation and
  lesson), as "(<ticker> <decided_on>) <lesson>"; a role without a similar memory gets none.
- Record: the run's decision is logged once per run id (a resumed run logs nothing twice).
- The situation text is the caller's (the graph builds it from the analysts' reports), the same at
  recall time and in the logged decision, so later cases are matched against it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import TYPE_CHECKING

from findesk.analytics.trading.outcome import lessons, realised
from findesk.core.result import Err
from findesk.knowledge.memory.bm25 import top
from findesk.knowledge.memory.decisions import (
    MAX_REFLECTIONS,
    ROLES,
    DecisionLog,
    LoggedDecision,
    Outcome,
    Reflection,
)

if TYPE_CHECKING:
    from findesk.data.router import DataRouter
    from findesk.workflows.spec import RunKit

LESSONS_PER_ROLE = 2
REFLECTIONS_READ = MAX_REFLECTIONS  # per role, the newest known (BM25 ranks among them)
BENCHMARK = "SPY"
_LOOKBACK_DAYS = 10  # calendar days before the decision: the entry session is within them
_UNAVAILABLE = "memory unavailable"


@dataclass(frozen=True)
class Scored:
    decision: LoggedDecision
    outcome: Outcome
    reflections: int  # how many new reflections were stored


@dataclass
class Settled:
    """What ``settle_log`` did: the decisions scored, those still pending, and any problems."""

    scored: list[Scored] = field(default_factory=list)
    still_pending: int = 0
    warnings: list[str] = field(default_factory=list)

    def notes(self) -> list[str]:
        """One line per decision scored, for the report's memory notes."""
        return [
            f"memory: scored {s.decision.ticker} {s.decision.decided_on} {s.decision.rating}: "
            f"{s.outcome.return_pct:+.1f}% to {s.outcome.exit_date}"
            + (f", alpha {s.outcome.alpha_pp:+.1f} pp vs SPY" if s.outcome.alpha_pp is not None else "")
            for s in self.scored
        ]


def _log(kit: RunKit) -> DecisionLog | None:
    # a service of the tool context (``tools.catalog``): opened once per process, shared by its runs
    return kit.runtime.ctx.service(DecisionLog)


# ---- settle ---------------------------------------------------------------------------------------


async def settle(kit: RunKit, user: str, day: date) -> list[str]:
    """Score the user's pending decisions whose outcome is known by ``day``; the warnings."""
    return (await settle_details(kit, user, day)).warnings


async def settle_details(kit: RunKit, user: str, day: date) -> Settled:
    """``settle`` with what was scored (``Settled.notes()`` for the report)."""
    log = _log(kit)
    if log is None:
        return Settled(warnings=[f"{_UNAVAILABLE}: no memory store is configured; nothing was scored"])
    return await settle_log(log, kit.runtime.ctx.router, user, day)


async def settle_log(log: DecisionLog, router: DataRouter, user: str, day: date) -> Settled:
    """Score every pending decision of ``user`` made before ``day`` whose exit session is in the bars
    as of ``day``, storing one reflection per role. Never raises."""
    settled = Settled()
    try:
        pending = await asyncio.to_thread(log.pending, user, day)
        if isinstance(pending, Err):
            settled.warnings.append(f"{_UNAVAILABLE}: {pending}; nothing was scored")
            return settled
        for decision in pending.value:
            scored = await _settle_one(log, router, user, day, decision, settled.warnings)
            if scored is None:
                settled.still_pending += 1
            else:
                settled.scored.append(scored)
    except Exception as exc:  # the last resort: memory never fails a run
        settled.warnings.append(f"{_UNAVAILABLE}: settling failed ({type(exc).__name__}: {exc})")
    return settled


async def _settle_one(
    log: DecisionLog, router: DataRouter, user: str, day: date, decision: LoggedDecision, warnings: list[str]
) -> Scored | None:
    start = decision.decided_on - timedelta(days=_LOOKBACK_DAYS)
    # sessions are ≤ 5 of every 7 days; twice the horizon plus two weeks covers any holiday run
    end = min(day, decision.decided_on + timedelta(days=2 * decision.horizon_days + 14))
    what = f"{decision.ticker} {decision.decided_on}"
    stock, spy = await asyncio.gather(
        router.bars(decision.ticker, start, end, as_of=day), router.bars(BENCHMARK, start, end, as_of=day)
    )
    if isinstance(stock, Err):
        warnings.append(f"memory: {what} not scored ({stock}); it stays pending")
        return None
    spy_bars = [] if isinstance(spy, Err) else spy.value.bars
    if isinstance(spy, Err):
        warnings.append(f"memory: {what} scored without SPY ({spy}); alpha is unknown")
    outcome = realised(
        stock.value.bars,
        spy_bars,
        decision.decided_on,
        decision.horizon_days,
        direction=decision.direction,
        entry=decision.entry,
        stop=decision.stop,
        target=decision.target,
    )
    if outcome is None or outcome.exit_date > day:
        return None  # the horizon has not passed as of ``day``
    reflections = [
        Reflection(
            id=f"{decision.run_id}.{role}",
            role=role,
            ticker=decision.ticker,
            decided_on=decision.decided_on,
            outcome_known=outcome.exit_date,
            situation=decision.situation,
            lesson=lesson,
            return_pct=outcome.return_pct,
            alpha_pp=outcome.alpha_pp,
        )
        for role, lesson in lessons(decision, outcome).items()
    ]
    # reflections first: a failure between the two leaves the decision pending, and the next settle
    # stores nothing twice (reflections are unique per id) and scores it then
    added = await asyncio.to_thread(log.add_reflections, user, reflections)
    if isinstance(added, Err):
        warnings.append(f"memory: {what} not scored ({added}); it stays pending")
        return None
    scored = await asyncio.to_thread(log.score, user, decision.run_id, outcome)
    if isinstance(scored, Err):
        warnings.append(f"memory: {what} not scored ({scored}); it stays pending")
        return None
    return Scored(scored.value, outcome, added.value)


# ---- recall ---------------------------------------------------------------------------------------


async def recall(kit: RunKit, user: str, day: date, situation: str) -> tuple[dict[str, list[str]], list[str]]:
    """Per role, the most similar past lessons known before ``day``; and the warnings."""
    log = _log(kit)
    if log is None:
        return {}, [f"{_UNAVAILABLE}: no memory store is configured; no past lessons"]
    return await recall_log(log, user, day, situation)


async def recall_log(
    log: DecisionLog, user: str, day: date, situation: str
) -> tuple[dict[str, list[str]], list[str]]:
    """``recall`` over an open log. Never raises."""
    found: dict[str, list[str]] = {}
    try:  # one read for every role's reflections, then one ranking per role
        known = await asyncio.to_thread(log.reflections, user, None, day, REFLECTIONS_READ * len(ROLES))
        if isinstance(known, Err):
            return {}, [f"{_UNAVAILABLE}: {known}; no past lessons"]
        for role in ROLES:
            picked = _similar(situation, [r for r in known.value if r.role == role])
            if picked:
                found[role] = picked
    except Exception as exc:  # the last resort: memory never fails a run
        return {}, [f"{_UNAVAILABLE}: recall failed ({type(exc).__name__}: {exc}); no past lessons"]
    return found, []


def _similar(situation: str, known: Sequence[Reflection]) -> list[str]:
    docs = [f"{r.situation} {r.lesson}" for r in known]
    return [
        f"({known[i].ticker} {known[i].decided_on.isoformat()}) {known[i].lesson}"
        for i in top(situation, docs, k=LESSONS_PER_ROLE)
    ]


# ---- record ---------------------------------------------------------------------------------------


async def record(kit: RunKit, user: str, decision: LoggedDecision) -> list[str]:
    """Log the run's decision for scoring once its horizon has passed; a note saying so, or the warnings."""
    log = _log(kit)
    if log is None:
        return [f"{_UNAVAILABLE}: no memory store is configured; this decision was not logged"]
    try:
        logged = await asyncio.to_thread(log.log, user, decision)
    except Exception as exc:  # the last resort: memory never fails a run
        return [f"{_UNAVAILABLE}: this decision was not logged ({type(exc).__name__}: {exc})"]
    if isinstance(logged, Err):
        return [f"{_UNAVAILABLE}: this decision was not logged ({logged})"]
    return [
        f"decision logged: {decision.ticker} {decision.rating} on {decision.decided_on.isoformat()}, scored "
        f"against SPY once {decision.horizon_days} sessions have passed (a later run or "
        "`findesk memory reflect`)"
    ]
