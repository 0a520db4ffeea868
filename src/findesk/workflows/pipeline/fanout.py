"""The pipeline's desk runs as jobs on an executor (``core.executor``): a Ray cluster instead of this
process.

Rules:
- Which: the input's ``executor`` / ``address`` over the settings' ``[executor]`` (``choose``); anything
  but Ray keeps the desk runs in this process as asyncio child runs (``graph``), rows streamed live.
- A job is picklable and carries everything its run reads: the settings (with the job's budget), the data
  context, the desk's input, the run id the parent chose, and the requested mode. The worker opens its own
  tools and runs the trading desk through the one runner (``run_workflow``) under that run id, and
  returns the run's events and its report (or its error) as JSON: it shares no object with the parent.
- The parent replays the returned events, unchanged (ids, sequence, parents, times), into the sinks that
  take child runs (the audit log, a worker's forwarder, the stream's cost count), so a desk run on Ray is
  recorded exactly as one in this process; its row is built from the returned report by the same code.
- Budget: a job cannot draw on the parent's ledger while it runs, so each job of a wave gets an equal
  slice of what the ledger has left, up front (its own run budget); what it reports spending is charged
  to the ledger when it returns. Without a model (deterministic, the offline default) nothing is spent.
- A wave's rows stream when the wave returns (its jobs run together on the cluster). A job the cluster
  loses, or a cluster that cannot be reached once the scan is done, is a ``failed`` row with the reason.
- ``check_reachable``: before the run starts (the spec's precheck), a Ray address where nothing listens
  is refused as one line, so no scan is run for desks that could not go anywhere.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from findesk.agents.runtime.outcome import RequestedMode
from findesk.core.config import ExecutorSettings, Settings
from findesk.core.events.model import Event, LlmCall
from findesk.core.events.trace import EventBus, MemorySink, Sink
from findesk.core.executor import choose, import_ray, ray_unreachable
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.context import DataContext
from findesk.workflows.pipeline.budget import MIN_TOKENS, MIN_USD


@dataclass(frozen=True)
class DeskJob:
    """One desk run for a worker: everything it reads, nothing it shares."""

    settings: Settings
    context: DataContext
    inputs: dict[str, Any]
    run_id: str
    mode: RequestedMode


@dataclass(frozen=True)
class DeskDone:
    """What a worker hands back: the run's events and its report, or its error, as JSON."""

    events: list[dict[str, Any]]
    report: dict[str, Any] | None = None
    error: tuple[str, str] | None = None  # (error code, reason)


def executor_settings(settings: Settings | None, kind: str | None, address: str | None) -> ExecutorSettings:
    """The executor a pipeline run's desks use: the input's choice over the settings'."""
    base = settings.executor if settings is not None else ExecutorSettings()
    return choose(base, kind, address)


async def check_reachable(chosen: ExecutorSettings) -> Err | None:
    """Why the desk runs could not go to Ray (Ray missing, nothing listening at the address), or None."""
    if chosen.kind != "ray":
        return None
    imported = import_ray()
    if isinstance(imported, Err):
        return imported
    if chosen.address and chosen.address.strip() not in ("", "local"):
        problem = await asyncio.to_thread(ray_unreachable, chosen.address.strip())
        if problem is not None:
            return Err(ErrorCode.UNAVAILABLE, f"cannot connect to Ray: {problem}")
    return None


def job_settings(settings: Settings, usd: float, tokens: int) -> Settings:
    """``settings`` with a run budget of ``usd`` and ``tokens`` (a job's slice of the pipeline's ledger)."""
    llm = settings.llm.model_copy(
        update={"budget_usd": max(usd, MIN_USD), "run_token_limit": max(tokens, MIN_TOKENS)}
    )
    return settings.model_copy(update={"llm": llm})


def run_desk_job(job: DeskJob) -> DeskDone:
    """One trading-desk run in a worker, on tools it opens and closes itself (the executor's function)."""
    return asyncio.run(_run_desk(job))


async def _run_desk(job: DeskJob) -> DeskDone:
    from findesk.workflows.runner import run_workflow
    from findesk.workflows.trading.spec import SPEC as TRADE

    memory = MemorySink()
    done = await run_workflow(
        TRADE,
        job.inputs,
        settings=job.settings,
        context=job.context,
        sinks=[memory],
        mode=job.mode,
        run_id=job.run_id,
    )
    events = [e.model_dump(mode="json") for e in memory.events]
    if isinstance(done, Err):
        return DeskDone(events, error=(done.code.value, done.reason))
    return DeskDone(events, report=done.value.report.model_dump(mode="json"))


def replay(done: DeskDone, sinks: Sequence[Sink]) -> list[Event]:
    """The job's events into ``sinks`` as they were emitted in the worker; the events."""
    events = [Event.model_validate(e) for e in done.events]
    bus = EventBus(sinks)
    for event in events:
        bus.emit(event)
    return events


def spent(events: Sequence[Event]) -> tuple[float, int]:
    """The model dollars and tokens a run's events record."""
    calls = [e.data for e in events if isinstance(e.data, LlmCall)]
    return sum(c.cost_usd for c in calls), sum(c.input_tokens + c.output_tokens for c in calls)


def outcome(done: Result[DeskDone], run_id: str) -> Result[Any]:
    """A job's result as the in-process child run's: the trading report, or the run's error."""
    from findesk.workflows.runner import WorkflowRun
    from findesk.workflows.trading.spec import SPEC as TRADE

    if isinstance(done, Err):
        return done
    d = done.value
    if d.error is not None:
        code, reason = d.error
        try:
            return Err(ErrorCode(code), reason)
        except ValueError:
            return Err(ErrorCode.UNAVAILABLE, f"{code}: {reason}")
    report = TRADE.report_model.model_validate(d.report)
    return Ok(WorkflowRun(run_id, "", TRADE.name, report))


__all__ = [
    "DeskDone",
    "DeskJob",
    "check_reachable",
    "executor_settings",
    "job_settings",
    "outcome",
    "replay",
    "run_desk_job",
    "spent",
]
