"""The movers analyzer as a LangGraph state graph:
``gainers → (history | news | program writer, in parallel) → analysis in the sandbox → deliver``.

Rules:
- The screen, history, news and sandbox runner are code (their roles run deterministic whatever the
  run's mode); only the program writer uses a model, and only to write Python.
- Analysis: the program (the model's, or the reviewed one) runs in the sandbox on the validated payload;
  its figures are checked against ``analytics.movers.metrics.compute_metrics``. A model's program that
  the sandbox stopped, that failed, printed no JSON or disagrees is logged (its run stays in the
  report and the audit log) and the reviewed program runs instead. The report's metrics are code's
  computation, which the accepted program matched; without a sandbox no program runs and the metrics
  are code's alone, said in the warnings.
- Deliver is the terminal step and always runs, whatever failed before: the chart (when there is a
  history), then the email (sent, or written as .eml on a dry run) saying what is missing.
- State is serializable (typed models, dates, plain containers), so a run is checkpointed and resumes.
"""

from __future__ import annotations

import asyncio
import base64
import operator
from datetime import date
from typing import Annotated, Any, TypedDict, cast

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from findesk.agents.roles.movers import analyzer, coder, delivery, gainers, history, news
from findesk.agents.roles.movers.models import (
    AnalysisReport,
    GainersReport,
    HistoryReport,
    NewsReport,
    ProgramDraft,
)
from findesk.analytics.movers.metrics import check, compute_metrics
from findesk.analytics.movers.models import GainerFilters, MoverMetrics
from findesk.tools.report_email import Delivery
from findesk.workflows.movers.chart import render_chart
from findesk.workflows.movers.models import MoversReport, ProgramRun
from findesk.workflows.movers.render import email_parts
from findesk.workflows.nodes import State
from findesk.workflows.spec import AgentNote, AgentNotes, RunKit


class MoversState(TypedDict, total=False):
    day: date
    filters: GainerFilters
    sessions: int
    recipients: list[str]
    dry_run: bool
    out: str | None
    relative_paths: bool
    gainers: GainersReport
    symbol: str | None
    name: str | None
    history: HistoryReport | None
    news: NewsReport | None
    draft: ProgramDraft | None
    programs: list[ProgramRun]
    metrics: MoverMetrics | None
    metrics_check: str
    chart_png_base64: str | None
    delivery: Delivery | None
    notes: Annotated[list[str], operator.add]  # the workflow's own warnings, in order
    agents: AgentNotes


async def _run(kit: RunKit, role: Any, given: Any, *, code: bool = True) -> tuple[Any, dict[str, AgentNote]]:
    out = await kit.runtime.run(role, given, kit.tracer, mode="deterministic" if code else kit.mode)
    return out.output, {role.name: AgentNote(mode=out.mode, warnings=list(out.warnings))}


async def _gainers(state: State, runtime: Runtime[RunKit]) -> dict[str, Any]:
    kit = runtime.context
    filters: GainerFilters = state["filters"]
    report, note = await _run(kit, gainers.ROLE, gainers.GainersInput(filters=filters))
    top = report.board.gainers[0] if report.board is not None and report.board.gainers else None
    update = {
        "gainers": report,
        "symbol": top.symbol if top else None,
        "name": top.name if top else None,
        "agents": note,
    }
    runtime.stream_writer(("gainers", report))
    await kit.durable()
    return update


async def _history(state: State, runtime: Runtime[RunKit]) -> dict[str, Any]:
    kit = runtime.context
    if state.get("symbol") is None:
        return {"history": None}
    given = history.HistoryInput(
        symbol=state["symbol"], date=state["gainers"].board.session, sessions=state["sessions"]
    )
    report, note = await _run(kit, history.ROLE, given)
    runtime.stream_writer(("history", report))
    await kit.durable()
    return {"history": report, "agents": note}


async def _news(state: State, runtime: Runtime[RunKit]) -> dict[str, Any]:
    kit = runtime.context
    if state.get("symbol") is None:
        return {"news": None}
    given = news.NewsInput(symbol=state["symbol"], date=state["gainers"].board.session)
    report, note = await _run(kit, news.ROLE, given)
    runtime.stream_writer(("news", report))
    await kit.durable()
    return {"news": report, "agents": note}


async def _coder(state: State, runtime: Runtime[RunKit]) -> dict[str, Any]:
    kit = runtime.context
    if state.get("symbol") is None:
        return {"draft": None}
    draft, note = await _run(kit, coder.ROLE, coder.CoderInput(symbol=state["symbol"]), code=False)
    await kit.durable()
    return {"draft": draft, "agents": note}


async def _sandboxed(
    kit: RunKit, payload: Any, draft: ProgramDraft, expected: MoverMetrics
) -> tuple[ProgramRun, dict[str, AgentNote]]:
    program = None if draft.origin == "reviewed" else draft.program
    report, note = await _run(kit, analyzer.ROLE, analyzer.AnalyzerInput(payload=payload, program=program))
    result: AnalysisReport = report
    run = result.run
    problems: list[str] = []
    if run is None:
        problems = [result.summary]
    elif run.status != "ok":
        problems = [f"stopped in the sandbox ({run.status}): {run.reason}"]
    else:
        problems = check(run.figures or {}, expected)
    ran = ProgramRun(
        origin=draft.origin,
        explanation=draft.explanation,
        source=draft.program,
        run=run,
        problems=problems,
        accepted=run is not None and not problems,
    )
    return ran, note


async def _analyze(state: State, runtime: Runtime[RunKit]) -> dict[str, Any]:
    kit = runtime.context
    hist: HistoryReport | None = state.get("history")
    draft: ProgramDraft | None = state.get("draft")
    if hist is None or hist.history is None or draft is None:
        update: dict[str, Any] = {"programs": [], "metrics": None, "metrics_check": "none"}
        runtime.stream_writer(("analysis", update))
        return update
    payload = hist.history.payload
    expected = compute_metrics(payload)
    notes: list[str] = []
    agents: dict[str, AgentNote] = {}
    ran, note = await _sandboxed(kit, payload, draft, expected)
    runs, agents = [ran], {**agents, **note}
    if ran.origin == "model" and not ran.accepted:
        notes.append(
            "the model-written program was not accepted ("
            + "; ".join(ran.problems)[:400]
            + "): the attempt is "
            "kept in the report and the audit log, and the reviewed program ran instead"
        )
        reviewed = coder.compose(coder.CoderInput(symbol=payload.symbol), {})
        ran, note = await _sandboxed(kit, payload, reviewed, expected)
        runs.append(ran)
        agents.update(note)
    if expected.intraday_range_pct is None:
        notes.append(
            f"intraday range: the source has no high or low for {payload.symbol} on "
            f"{payload.session.isoformat()} (the all-listed-stocks table publishes closes and volumes only), "
            "so no range is given"
        )
    final = runs[-1]
    if final.run is None:
        notes.append(
            "no analysis program ran: "
            + "; ".join(final.problems)[:400]
            + "; the metrics are code's own numpy "
            "computation (generated code never runs outside the sandbox)"
        )
        verdict = "code_only"
    elif not final.accepted:
        notes.append(
            "the analysis program's figures were not used ("
            + "; ".join(final.problems)[:400]
            + "): the metrics "
            "are code's own numpy computation"
        )
        verdict = "code_only"
    else:
        verdict = "sandbox_matched"
    update = {
        "programs": runs,
        "metrics": expected,
        "metrics_check": verdict,
        "notes": notes,
        "agents": agents,
    }
    runtime.stream_writer(("analysis", update))
    await kit.durable()
    return update


async def _deliver(state: State, runtime: Runtime[RunKit]) -> dict[str, Any]:
    kit = runtime.context
    hist: HistoryReport | None = state.get("history")
    chart: str | None = None
    if hist is not None and hist.history is not None:
        png = await asyncio.to_thread(render_chart, hist.history.payload, adjusted=hist.history.adjusted)
        chart = base64.b64encode(png).decode("ascii")
    so_far = {**state, "chart_png_base64": chart}
    agent_notes: dict[str, AgentNote] = dict(state.get("agents") or {})
    draft = report_from_state(
        so_far,
        run_id=kit.tracer.run_id,
        data_mode=kit.context.describe(),
        mode="model" if any(n.mode == "model" for n in agent_notes.values()) else "deterministic",
        warnings=[w for n in agent_notes.values() for w in n.warnings],
    )
    subject, text, html = email_parts(so_far, draft)
    given = delivery.DeliveryInput(
        subject=subject,
        text=text,
        html=html,
        chart_png_base64=chart,
        chart_filename=f"{state.get('symbol') or 'movers'}_{state['day'].isoformat()}.png",
        to=list(state.get("recipients") or []),
        dry_run=bool(state.get("dry_run")),
        folder=state.get("out"),
        subfolder=f"{state['day'].isoformat()}_{kit.tracer.run_id}",
        relative_paths=bool(state.get("relative_paths")),
    )
    report, note = await _run(kit, delivery.ROLE, given)
    notes = (
        []
        if report.status in ("sent", "written", "not_requested")
        else [f"email not delivered: {report.reason}"]
    )
    update = {"chart_png_base64": chart, "delivery": report, "notes": notes, "agents": note}
    runtime.stream_writer(("delivery", update))
    await kit.durable()
    return update


def report_from_state(
    state: State, *, run_id: str, data_mode: str, mode: str, warnings: list[str]
) -> MoversReport:
    """The report the state holds so far (the email's draft and the assembler's base): the phases' own
    warnings first, then the workflow's."""
    gainers_report: GainersReport = state["gainers"]
    hist: HistoryReport | None = state.get("history")
    found: list[str] = [*gainers_report.warnings]
    for part in (hist, state.get("news")):
        if part is not None:
            found += part.warnings
    return MoversReport(
        run_id=run_id,
        date=state["day"],
        data_mode=data_mode,
        mode=mode,
        symbol=state.get("symbol"),
        name=state.get("name"),
        gainers=gainers_report,
        history=hist,
        news=state.get("news"),
        metrics=state.get("metrics"),
        metrics_check=state.get("metrics_check") or "none",
        programs=list(state.get("programs") or []),
        chart_png_base64=state.get("chart_png_base64"),
        delivery=state.get("delivery"),
        warnings=list(dict.fromkeys([*found, *(state.get("notes") or []), *warnings])),
    )


def build_graph() -> StateGraph:  # type: ignore[type-arg]
    graph: Any = StateGraph(MoversState)
    graph.add_node("gainers", _gainers)
    for name, node in (("history", _history), ("news", _news), ("coder", _coder)):
        graph.add_node(name, node)
        graph.add_edge("gainers", name)
    graph.add_node("analyze", _analyze)
    graph.add_node("deliver", _deliver)
    graph.add_edge(START, "gainers")
    graph.add_edge(["history", "news", "coder"], "analyze")
    graph.add_edge("analyze", "deliver")
    graph.add_edge("deliver", END)
    return cast(StateGraph, graph)  # type: ignore[type-arg]
