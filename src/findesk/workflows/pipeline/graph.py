"""The scan-to-trade pipeline as a LangGraph state graph: ``scan → desks``.

Rules:
- Each step is a child run through the one runner (``run_workflow``): its own run id, opening event,
  audit record and report, on the pipeline's open tools, registry, mode and date. Child events go only to
  the sinks that take child runs (``takes_child_runs``): the audit log, a worker's forwarder to the
  server's audit log, and the HTTP stream's cost count (their model cost is charged to the caller's key);
  never to a view of the pipeline run (the terminal, the streamed events: a child's ``done`` is not the
  pipeline's).
- ``scan`` runs the ``scan`` workflow; ``desks`` takes its top N candidates (conviction, then the scan's
  order: ``analytics.scan.candidates.ranked``) and runs the ``trade`` workflow on each, concurrently
  (asyncio), each row streamed as its run ends, or as jobs on a Ray cluster (``fanout``: recorded the same
  way, rows streamed per wave); a candidate the desk refuses is a row and the next
  candidate takes its place, until N are rated or the list runs out.
- One model budget: every child's model calls are charged to the pipeline's ledger (``budget``).
- A desk run that is refused (not a company: a fund, no CIK) or fails is a row with the reason.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import date
from typing import Any, TypedDict, cast

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from pydantic import BaseModel

from findesk.agents.roles.scan.models import Candidate
from findesk.analytics.scan.candidates import ranked
from findesk.core.events.trace import new_run_id, takes_child_runs
from findesk.core.executor import Executor, open_executor
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.workflows.nodes import State
from findesk.workflows.pipeline.budget import DEFAULT_TOKENS, child_settings, shared_models
from findesk.workflows.pipeline.fanout import (
    DeskDone,
    DeskJob,
    executor_settings,
    job_settings,
    outcome,
    replay,
    run_desk_job,
    spent,
)
from findesk.workflows.pipeline.models import DeskRow
from findesk.workflows.runner import WorkflowRun, run_workflow
from findesk.workflows.scan.models import ScanReport
from findesk.workflows.spec import AgentNotes, RunKit, WorkflowSpec

REFUSALS = (ErrorCode.NOT_FOUND, ErrorCode.OUT_OF_SCOPE, ErrorCode.INVALID_INPUT, ErrorCode.REFUSED)


class PipelineState(TypedDict, total=False):
    day: date
    top: int
    user: str
    executor: str | None  # the input's ``executor`` / ``address`` (``fanout``)
    address: str | None
    scan: ScanReport | None
    scan_run_id: str | None
    scan_error: str | None
    rows: list[DeskRow]
    budget_usd: float  # the pipeline's one ledger: its limit and what every child spent on it
    spent_usd: float
    agents: AgentNotes


async def child_run(
    kit: RunKit, spec: WorkflowSpec[Any, Any], inputs: BaseModel | dict[str, Any], run_id: str
) -> Result[WorkflowRun[Any]]:
    """``spec`` on ``inputs`` as its own recorded run, on the pipeline's tools and shared budget."""
    runtime = kit.runtime
    sinks = [s for s in kit.tracer.bus.sinks if takes_child_runs(s)]
    return await run_workflow(
        spec,
        inputs,
        settings=child_settings(runtime.budget),
        context=kit.context,
        sinks=sinks,
        mode=kit.mode,
        models=shared_models(runtime.models, runtime.budget),
        registry=runtime.registry,
        run_id=run_id,
        tools=runtime.ctx,
    )


async def _scan(state: State, runtime: Runtime[RunKit]) -> dict[str, Any]:
    from findesk.workflows.scan.spec import SPEC as SCAN

    kit = runtime.context
    run_id = new_run_id()
    done = await child_run(kit, SCAN, {"date": state["day"].isoformat()}, run_id)
    update: dict[str, Any] = {"scan_run_id": run_id}
    if isinstance(done, Err):
        update.update({"scan": None, "scan_error": f"{done.code.value}: {done.reason}"})
    else:
        update.update({"scan": done.value.report, "scan_error": None})
    runtime.stream_writer(("scan", update["scan"] or update["scan_error"]))
    await kit.durable()
    return update


def top_candidates(report: ScanReport | None, n: int | None = None) -> list[Candidate]:
    """The scan's candidates in the desk's order (conviction, then the scan's), the first ``n``."""
    if report is None or report.synthesis is None:
        return []
    order = ranked(report.synthesis.stocks_to_investigate)
    return order if n is None else order[:n]


def _row(c: Candidate, run_id: str, done: Result[WorkflowRun[Any]]) -> DeskRow:
    base = {
        "ticker": c.ticker,
        "sector": c.sector,
        "angle": c.angle,
        "conviction": c.conviction,
        "run_id": run_id,
    }
    if isinstance(done, Err):
        status = "refused" if done.code in REFUSALS else "failed"
        return DeskRow(**base, status=status, headline=f"{done.code.value}: {done.reason}")
    r = done.value.report
    f = r.final_decision
    size = f"{f.position_pct:g}% of capital" if f.position_pct else "no position"
    return DeskRow(
        **base,
        status="ok",
        rating=f.rating,
        position_pct=f.position_pct,
        direction=f.direction,
        headline=f"{r.identity.ticker} ({r.identity.name}): {f.rating}, {size}",
        cost_usd=r.cost_usd,
        mode=r.mode,
    )


async def _desks(state: State, runtime: Runtime[RunKit]) -> dict[str, Any]:
    from findesk.workflows.trading.spec import SPEC as TRADE

    kit = runtime.context
    waiting = top_candidates(state.get("scan"))
    chosen = executor_settings(kit.settings, state.get("executor"), state.get("address"))

    def inputs_of(c: Candidate) -> dict[str, Any]:
        return {"ticker": c.ticker, "date": state["day"].isoformat(), "user": state.get("user") or "local"}

    def streamed(row: DeskRow) -> DeskRow:
        runtime.stream_writer(("desk", row))
        return row

    async def one(c: Candidate) -> DeskRow:
        run_id = new_run_id()
        return streamed(_row(c, run_id, await child_run(kit, TRADE, inputs_of(c), run_id)))

    # the top N rated: a candidate the desk refuses (a fund, no CIK) is listed and the next one takes its
    # place, in waves of the places still open, until N are rated or the list runs out
    rows: list[DeskRow] = []
    pool: Result[Executor] | None = None
    try:
        while waiting and (open_places := state["top"] - sum(r.status != "refused" for r in rows)) > 0:
            wave, waiting = waiting[:open_places], waiting[open_places:]
            if chosen.kind != "ray":
                rows += await asyncio.gather(*(one(c) for c in wave))
                continue
            if pool is None:  # opened once the scan has candidates, on a thread (connecting blocks)
                pool = await asyncio.to_thread(open_executor, chosen)
            rows += [streamed(r) for r in await _wave_on(pool, kit, wave, inputs_of)]
    finally:
        if pool is not None and isinstance(pool, Ok):
            await asyncio.to_thread(pool.value.close)
    await kit.durable()
    ledger = kit.runtime.budget
    return {"rows": rows, "budget_usd": ledger.limit_usd, "spent_usd": ledger.spent_usd}


async def _wave_on(
    pool: Result[Executor],
    kit: RunKit,
    wave: list[Candidate],
    inputs_of: Callable[[Candidate], dict[str, Any]],
) -> list[DeskRow]:
    """One wave of desk runs as jobs on ``pool`` (``fanout``): recorded as in-process child runs are."""
    ids = [new_run_id() for _ in wave]
    ledger = kit.runtime.budget
    done: list[Result[DeskDone]]
    if isinstance(pool, Err):
        done = [pool] * len(wave)
    elif kit.settings is None:
        done = [Err(ErrorCode.NOT_CONFIGURED, "this run has no settings to hand to the executor")] * len(wave)
    else:
        # each job's budget: an equal slice of what the one ledger has left, up front
        usd = (ledger.limit_usd - ledger.spent_usd) / len(wave)
        tokens = ((ledger.limit_tokens or DEFAULT_TOKENS) - ledger.used_tokens) // len(wave)
        settings = job_settings(kit.settings, usd, tokens)
        jobs = [
            DeskJob(settings, kit.context, inputs_of(c), i, kit.mode) for c, i in zip(wave, ids, strict=True)
        ]
        done = await asyncio.to_thread(pool.value.map, run_desk_job, jobs)
    sinks = [s for s in kit.tracer.bus.sinks if takes_child_runs(s)]
    rows = []
    for c, run_id, got in zip(wave, ids, done, strict=True):
        if isinstance(got, Ok):
            ledger.charge(*spent(replay(got.value, sinks)))
        rows.append(_row(c, run_id, outcome(got, run_id)))
    return rows


def build_graph() -> StateGraph:  # type: ignore[type-arg]
    graph: Any = StateGraph(PipelineState)
    graph.add_node("scan", _scan)
    graph.add_node("desks", _desks)
    graph.add_edge(START, "scan")
    graph.add_edge("scan", "desks")
    graph.add_edge("desks", END)
    return cast(StateGraph, graph)  # type: ignore[type-arg]
