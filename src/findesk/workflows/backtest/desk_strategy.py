"""The ``desk`` strategy: the trading desk's final decision each session, precomputed point in time.

Rules:
- Each session's decision is a full trading-desk run (``workflows.trading.spec.SPEC``) with the run's
  as-of date = that session, reading through an ``AuditedRouter`` for that session: a read of anything
  later fails the whole backtest with ``LookAheadError`` (see ``audit``). Sessions run in order.
- The backtest never touches the user's state: the desk runs with no sink (nothing enters the audit
  log or run history), no checkpointer, and a tool context without the memory services (no
  ``DecisionLog``, no ``MemoryStore``), so it neither reads past lessons nor logs decisions; each report
  says "memory unavailable" and the backtest keeps one warning saying why. (Chosen over a private
  temporary state folder: reflections learnt inside a backtest would make each session depend on the
  order sessions were computed in, and the explicit switch costs nothing.)
- Ratings map to targets (fractions of equity): BUY / OVERWEIGHT → long, UNDERWEIGHT / SELL → flat
  (0), or short when shorting is allowed; HOLD → keep (``None``); REVIEW → keep, with the review reason
  in the log. The size is the sizing's: ``full`` (the default) takes the whole account, as the five
  baselines and the paper's agents do, so the rows compare decision rules, not sizes; ``desk`` takes
  the desk's own ``position_pct / 100`` (a few percent: a position in a portfolio), else 1.
- Mode: deterministic by default. With ``mode="model"`` (or ``auto`` with a model configured) each
  session's run gets what is left of ``budget_usd`` as its budget; once the budget is spent the rest of
  the sessions run deterministic, and a warning names the session where that happened.
- The engine stays pure and synchronous: ``DeskStrategy.decide`` only looks up the precomputed
  decision of the session it is asked about.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal

from findesk.agents.runtime.outcome import RequestedMode
from findesk.analytics.backtest.history import History
from findesk.analytics.backtest.strategies import Decision
from findesk.core.config import Settings
from findesk.core.result import Err, Ok, Result
from findesk.data.context import DataContext
from findesk.knowledge.filings.sections import SectionService
from findesk.knowledge.memory.decisions import DecisionLog
from findesk.knowledge.memory.store import MemoryStore
from findesk.tools.base import ToolContext
from findesk.tools.catalog import SERVICE_FACTORIES, ServiceFactory
from findesk.workflows.backtest.audit import AuditedRouter

NAME = "desk"
MEMORY_OFF = (
    "desk: the backtest runs the desk without its decision log and reflection memory, so it neither "
    "reads past lessons nor writes to your history"
)


def backtest_factories() -> list[ServiceFactory]:
    """The tool context's services for a backtest: every one but the memory stores."""
    return [f for f in SERVICE_FACTORIES if f.key not in (DecisionLog, MemoryStore)]


@dataclass(frozen=True)
class DeskDecision:
    session: date
    rating: str
    position_pct: float
    target: float | None
    reason: str
    seconds: float  # wall time of this session's desk run
    cost_usd: float = 0.0
    mode: str = "deterministic"


Sizing = Literal["full", "desk"]


def target_of(rating: str, position_pct: float, allow_short: bool, sizing: Sizing = "full") -> float | None:
    """The rating → target rule of the module docstring."""
    size = position_pct / 100.0 if sizing == "desk" and position_pct > 0 else 1.0
    if rating in ("BUY", "OVERWEIGHT"):
        return size
    if rating in ("UNDERWEIGHT", "SELL"):
        return -size if allow_short else 0.0
    return None  # HOLD, REVIEW: keep the position


@dataclass
class DeskRun:
    decisions: dict[date, DeskDecision] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    cost_usd: float = 0.0

    def seconds_per_session(self) -> float:
        if not self.decisions:
            return 0.0
        return sum(d.seconds for d in self.decisions.values()) / len(self.decisions)


# a hook for tests and tools: called with each session's audited router before its desk run
SessionHook = Callable[[AuditedRouter, date], Any]


async def desk_decisions(
    settings: Settings,
    tools: ToolContext,
    ticker: str,
    sessions: Sequence[date],
    *,
    allow_short: bool = False,
    sizing: Sizing = "full",
    mode: RequestedMode = "deterministic",
    budget_usd: float | None = None,
    hook: SessionHook | None = None,
    progress: Callable[[DeskDecision], None] | None = None,
) -> Result[DeskRun]:
    """The desk's decision at each of ``sessions`` (see the module rules). ``tools``: an open tool
    context (its router is wrapped per session). Raises ``LookAheadError`` on a later read."""
    from findesk.workflows.runner import run_workflow
    from findesk.workflows.trading.spec import SPEC

    run = DeskRun(warnings=[MEMORY_OFF])
    left = budget_usd
    services = {k: v for k, v in tools.services.items() if k not in (DecisionLog, MemoryStore)}
    for day in sessions:
        audited = AuditedRouter(tools.router, day)
        context = DataContext(
            mode=tools.context.mode,
            as_of=day,
            snapshot_dir=tools.context.snapshot_dir,
            as_of_is_default=False,
        )
        ctx = ToolContext(audited, SectionService(audited, settings.cache_dir), context, services)
        if hook is not None:
            await hook(audited, day)
        session_mode, session_settings = mode, settings
        if mode != "deterministic" and left is not None:
            if left <= 0:
                session_mode = "deterministic"
            else:
                llm = settings.llm.model_copy(update={"budget_usd": left})
                session_settings = settings.model_copy(update={"llm": llm})
        began = time.perf_counter()
        done = await run_workflow(
            SPEC,
            {"ticker": ticker, "date": day},
            settings=session_settings,
            context=context,
            tools=ctx,
            mode=session_mode,
        )
        seconds = time.perf_counter() - began
        audited.check()  # a read a tool caught still fails the backtest
        if isinstance(done, Err):
            return Err(done.code, f"desk on {ticker} {day.isoformat()}: {done.reason}")
        report = done.value.report
        final = report.final_decision
        if session_mode != mode and not any("budget" in w for w in run.warnings):
            run.warnings.append(
                f"desk: the model budget of ${budget_usd:g} was spent by {day.isoformat()}; "
                "later sessions ran deterministic"
            )
        cost = float(report.cost_usd)
        run.cost_usd += cost
        if left is not None:
            left -= cost
        why = f"{final.rating} {final.position_pct:g}%"
        if final.rating == "REVIEW":
            why += f" (review: {final.review_reason or 'no reason given'}; position kept)"
        decision = DeskDecision(
            session=day,
            rating=final.rating,
            position_pct=final.position_pct,
            target=target_of(final.rating, final.position_pct, allow_short, sizing),
            reason=f"desk {why}",
            seconds=seconds,
            cost_usd=cost,
            mode=report.mode,
        )
        run.decisions[day] = decision
        if progress is not None:
            progress(decision)
    return Ok(run)


class DeskStrategy:
    """A ``Strategy`` for the engine whose ``decide`` returns the precomputed session decision."""

    def __init__(self, run: DeskRun) -> None:
        self.name = NAME
        self.warmup = 0
        self.params: dict[str, float] = {}
        self._run = run

    def decide(self, history: History) -> Decision:

        day = _session_of(history)
        found = self._run.decisions.get(day)
        if found is None:
            return Decision(target=None, reason=f"no desk decision for {day.isoformat()}; position kept")
        return Decision(target=found.target, reason=found.reason)


def _session_of(history: History) -> date:
    return history.session


__all__ = [
    "NAME",
    "DeskDecision",
    "DeskRun",
    "DeskStrategy",
    "backtest_factories",
    "desk_decisions",
    "target_of",
]
