"""The briefing's entry points: ``run_briefing`` (async, one recorded run) and ``brief`` (the Python API).

Rules:
- Both run ``spec.SPEC`` through the one runner (``workflows.runner.run_workflow``), which owns the
  envelope: input guards, events, tools, exactly one ``done`` or ``error``; they return ``Err`` instead
  of raising.
- ``brief`` is ``findesk.run("brief", …)``: warm across calls in one process (see ``workflows.inprocess``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from findesk.agents.runtime import ModelResolver
from findesk.agents.runtime.outcome import RequestedMode
from findesk.core.config import Settings
from findesk.core.events.trace import Sink
from findesk.core.result import Result
from findesk.data.context import DataContext
from findesk.tools.base import ToolContext, ToolRegistry
from findesk.workflows.brief.models import Briefing
from findesk.workflows.brief.spec import SPEC, BriefingInput
from findesk.workflows.runner import RunStart, run_workflow


@dataclass
class BriefingRun:
    run_id: str
    context: str
    briefing: Briefing


async def run_briefing(
    symbol: str,
    *,
    settings: Settings,
    context: DataContext,
    question: str | None = None,
    sinks: Sequence[Sink] = (),
    mode: RequestedMode = "auto",
    models: ModelResolver | None = None,
    registry: ToolRegistry | None = None,
    run_id: str | None = None,
    tools: ToolContext | None = None,
    start: RunStart | None = None,
) -> Result[BriefingRun]:
    """One briefing as a recorded run. ``tools``: an open tool context to reuse (the caller closes it).
    ``start``: the run's opening event was emitted elsewhere (``RunStart``)."""
    done = await run_workflow(
        SPEC,
        BriefingInput.model_construct(ticker=symbol, question=question),
        settings=settings,
        context=context,
        sinks=sinks,
        mode=mode,
        models=models,
        registry=registry,
        run_id=run_id,
        tools=tools,
        start=start,
    )
    return done.map(lambda run: BriefingRun(run.run_id, run.context, run.report))


def brief(
    symbol: str,
    *,
    as_of: str | date | None = None,
    settings: Settings | None = None,
    mode: RequestedMode = "auto",
    question: str | None = None,
    snapshot: bool | None = None,
) -> Result[Briefing]:
    """The Python API: ``brief("AAPL", as_of="2025-08-29")`` → ``Ok(Briefing)`` or ``Err``.

    Settings come from the environment and config file unless given; ``snapshot`` forces the offline
    snapshot (True) or live sources (False). Runs on the process's shared loop and warm tools, so
    calling it per ticker costs about what one shared context does.
    """
    from findesk.workflows.inprocess import run

    done = run(
        "brief",
        {"ticker": symbol, "question": question},
        as_of=as_of,
        settings=settings,
        mode=mode,
        snapshot=snapshot,
    )
    return done
