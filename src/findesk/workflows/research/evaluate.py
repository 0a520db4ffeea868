"""Running the golden cases through the research desk (``findesk eval golden``, ``bench/research.py``).

Rules:
- Each case runs as a normal run of the workflow ``research`` (the one runner, on the snapshot at the
  case's as-of date, deterministic unless a model resolver is given), with one tool context kept open
  across the cases, as a server keeps one. Runs are made as the user ``EVAL_USER``, so an evaluation
  never reads or writes a real user's sessions and facts.
- A run that fails outright (a refusal, a crash) is a failed case that says why, never a skipped one.
- Pure orchestration: the scoring is ``golden.score``; the numbers are the reports'.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from findesk.agents.runtime import ModelResolver
from findesk.agents.runtime.outcome import RequestedMode
from findesk.core.config import Settings
from findesk.core.events.model import Event
from findesk.core.events.trace import MemorySink, Sink
from findesk.core.result import Err, Ok, Result
from findesk.data.context import DataContext, resolve_context
from findesk.tools.base import ToolContext
from findesk.workflows.evals.session import with_snapshot_tools
from findesk.workflows.research.golden import CaseResult, GoldenCase, score
from findesk.workflows.research.models import ResearchReport
from findesk.workflows.runner import run_workflow

EVAL_USER = "golden-eval"


@dataclass(frozen=True)
class CaseRun:
    case: GoldenCase
    result: CaseResult
    report: ResearchReport | None
    seconds: float
    events: tuple[Event, ...] = ()  # the run's events (its tool results: what ``eval hallucination`` reads)


async def run_case(
    case: GoldenCase,
    settings: Settings,
    context: DataContext,
    tools: ToolContext,
    *,
    mode: RequestedMode = "deterministic",
    models: ModelResolver | None = None,
    sinks: Sequence[Sink] = (),
) -> Result[ResearchReport]:
    """One case's question through the desk (``context``: the snapshot at the case's as-of date), as
    the evaluation user; ``sinks`` receive the run's events."""
    from findesk.workflows.research.spec import SPEC

    done: Result[Any] = await run_workflow(
        SPEC,
        {"question": case.question, "user": EVAL_USER},
        settings=settings,
        context=context,
        mode=mode,
        models=models,
        tools=tools,
        sinks=sinks,
    )
    return done if isinstance(done, Err) else Ok(done.value.report)


async def run_cases(
    cases: Sequence[GoldenCase],
    settings: Settings,
    *,
    mode: RequestedMode = "deterministic",
    models: ModelResolver | None = None,
) -> Result[list[CaseRun]]:
    if not cases:
        return Ok([])

    async def work(tools: ToolContext) -> Result[list[CaseRun]]:
        out: list[CaseRun] = []
        for case in cases:
            context = resolve_context(settings, mode="snapshot", as_of=case.as_of)
            if isinstance(context, Err):
                return context
            began = time.perf_counter()
            sink = MemorySink()
            done = await run_case(
                case, settings, context.value, tools, mode=mode, models=models, sinks=[sink]
            )
            seconds = time.perf_counter() - began
            if isinstance(done, Err):
                failed = CaseResult(
                    id=case.id, category=case.category, passed=False, failures=[f"run failed: {done}"]
                )
                out.append(CaseRun(case, failed, None, seconds))
                continue
            out.append(CaseRun(case, score(case, done.value), done.value, seconds, tuple(sink.events)))
        return Ok(out)

    ran = await with_snapshot_tools(settings, cases[0].as_of, work)
    return ran.value if isinstance(ran, Ok) else ran
