"""Scan to trade as a workflow spec: a date and N in, ``PipelineReport`` out.

Rules:
- The date is the run's as-of date (``prepare``); a later date is refused with the command to run.
- The scan and the N desk runs are child runs (``graph``), each recorded under its own id; the summary
  names every one. The desk runs' decision log is the bound caller's, never a request field.
- One model budget for the whole pipeline: the run's ledger, shared by every child (``budget``).
- The desk runs go where ``executor`` / ``address`` say (``fanout``): local-only fields, so a remote caller
  can neither set them nor see them in the schema; a Ray that is missing or not listening is refused before
  the scan runs, as one line.
- Sections stream as the pipeline goes: the scan's candidates, each desk row as its run ends, the summary.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from findesk.agents.roles.scan.models import Candidate
from findesk.core.config import ExecutorSettings, Settings
from findesk.core.executor import choose
from findesk.core.result import Err, Ok, Result
from findesk.data.context import DataContext
from findesk.tools.base import ToolContext
from findesk.workflows.pipeline import render
from findesk.workflows.pipeline.fanout import check_reachable
from findesk.workflows.pipeline.graph import build_graph, top_candidates
from findesk.workflows.pipeline.models import DeskRow, PipelineInput, PipelineReport
from findesk.workflows.report_parts import e
from findesk.workflows.scan.models import ScanReport
from findesk.workflows.spec import RunCaller, RunScope, StreamHandler, WorkflowSpec, on_its_date

SECTIONS: tuple[tuple[str, str], ...] = (
    ("scan", "Market scan — candidates"),
    ("desks", "Trading desk on the top picks"),
    ("summary", "Summary"),
)


def _prepare(
    inputs: PipelineInput, context: DataContext, _settings: Settings
) -> Result[tuple[PipelineInput, DataContext]]:
    return on_its_date("pipeline", inputs, context)


def _bind(inputs: PipelineInput, caller: RunCaller) -> Result[PipelineInput]:
    return Ok(inputs.model_copy(update={"user": caller.user}))


def _initial(inputs: PipelineInput, context: DataContext) -> dict[str, Any]:
    return {
        "day": inputs.date or context.as_of,
        "top": inputs.top,
        "user": inputs.user,
        "executor": inputs.executor,
        "address": inputs.address,
        "rows": [],
    }


async def _precheck(_tools: ToolContext, inputs: PipelineInput) -> Err | None:
    """A run asked to go to Ray where Ray is missing or nothing listens: refused before the scan runs."""
    if inputs.executor == "local" or (inputs.executor is None and inputs.address is None):
        return None
    return await check_reachable(choose(ExecutorSettings(), inputs.executor, inputs.address))


def _candidates_html(candidates: list[Candidate], chosen: list[Candidate]) -> str:
    picked = {c.ticker for c in chosen}
    items = "".join(
        f"<li>{'<strong>' if c.ticker in picked else ''}{e(c.ticker)} — {e(c.angle)}, {e(c.conviction)}"
        f"{' (to the desk)</strong>' if c.ticker in picked else ''}</li>"
        for c in candidates
    )
    return f"<ol>{items}</ol>"


class PipelineStream:
    def __init__(self, scope: RunScope, top: int) -> None:
        self._scope = scope
        self._top = top
        self._rows: list[DeskRow] = []
        self._shown: dict[str, str] = {}

    def _emit(self, name: str, html: str, message: str) -> None:
        self._shown[name] = html
        self._scope.section(name, html, message)

    def update(self, chunk: Any) -> None:
        if not isinstance(chunk, tuple) or len(chunk) != 2:
            return
        name, value = chunk
        if name == "scan" and isinstance(value, ScanReport):
            listed = value.synthesis.stocks_to_investigate if value.synthesis else []
            chosen = top_candidates(value, self._top)
            self._emit(
                "scan",
                _candidates_html(listed, chosen),
                f"{len(listed)} candidates, {len(chosen)} to the desk",
            )
        elif name == "scan" and isinstance(value, str):
            self._emit("scan", f"<p>{e(value)}</p>", value)
        elif name == "desk" and isinstance(value, DeskRow):
            self._rows.append(value)
            self._emit("desks", render.table_html(self._rows), render.desks_message(self._rows))

    def finish(self, report: Any) -> None:
        if not isinstance(report, PipelineReport):
            return
        chosen = [c for c in report.candidates if c.ticker in {r.ticker for r in report.rows}]
        final = {
            "scan": (_candidates_html(report.candidates, chosen), render.scan_line(report)),
            "desks": (render.table_html(report.rows), render.desks_message(report.rows)),
            "summary": (f"<p>{e(render.budget_line(report))}</p>", render.budget_line(report)),
        }
        for name, _title in SECTIONS:
            html, message = final[name]
            if self._shown.get(name) != html:
                self._emit(name, html, message)


def _assemble(state: Mapping[str, Any], scope: RunScope, _handler: StreamHandler | None) -> PipelineReport:
    run = scope.facts(state)
    scan: ScanReport | None = state.get("scan")
    rows: list[DeskRow] = list(state.get("rows") or [])
    warnings = list(run.warnings)
    if state.get("scan_error"):
        warnings.append(f"scan failed: {state['scan_error']}")
        status = "failed"
    elif scan is None or scan.synthesis is None:
        warnings.append("the scan gave no candidates; no desk run was started")
        status = "no_candidates"
    else:
        status = "ok"
    warnings += [
        f"{r.ticker}: the desk did not rate it ({r.status}): {r.headline}" for r in rows if r.status != "ok"
    ]
    cost = (scan.cost_usd if scan is not None else 0.0) + sum(r.cost_usd for r in rows)
    return PipelineReport(
        run_id=scope.run_id,
        date=run.as_of,
        data_mode=run.data_mode,
        # model when the scan or any desk run used one (the pipeline's own nodes are code)
        mode="model"
        if (scan is not None and scan.mode == "model") or any(r.mode == "model" for r in rows)
        else run.mode,
        top=int(state.get("top") or 0),
        scan_run_id=state.get("scan_run_id"),
        scan_status=status,
        scan_headline=_scan_headline(scan),
        candidates=list(scan.synthesis.stocks_to_investigate) if scan is not None and scan.synthesis else [],
        rows=rows,
        budget_usd=float(state.get("budget_usd") or 0.0),
        spent_usd=round(float(state.get("spent_usd") or 0.0), 6),
        cost_usd=round(cost, 6),
        warnings=warnings,
        agents=run.agents,
        tool_calls=run.tool_calls,
    )


def _scan_headline(scan: ScanReport | None) -> str:
    if scan is None:
        return "no scan report"
    from findesk.workflows.scan.spec import SPEC as SCAN

    return SCAN.headline(scan)


def _headline(report: PipelineReport) -> str:
    rated = [f"{r.ticker} {r.rating}" for r in report.rows if r.status == "ok"]
    other = [f"{r.ticker} {r.status}" for r in report.rows if r.status != "ok"]
    listed = ", ".join([*rated, *other]) or "no desk run"
    return f"Scan to trade {report.date.isoformat()}: {listed}"


SPEC: WorkflowSpec[PipelineInput, PipelineReport] = WorkflowSpec(
    name="pipeline",
    title="Scan to trade",
    description=(
        "The market scan, then the trading desk on its top N candidates (by conviction) in parallel under "
        "one model budget, then one summary: ticker, scan angle and conviction, the desk's rating and "
        "position, and every child run's id. A research simulation, not advice."
    ),
    input_model=PipelineInput,
    report_model=PipelineReport,
    graph=build_graph,
    initial_state=_initial,
    assemble=_assemble,
    headline=_headline,
    stream=lambda scope, inputs: PipelineStream(scope, inputs.top),
    sections=SECTIONS,
    renderers={
        "terminal": render.to_terminal,
        "markdown": render.to_markdown,
        "html": lambda r, _details: render.to_html(r),
    },
    bind_caller=_bind,
    prepare=_prepare,
    precheck=_precheck,
    # a remote caller may not send the server's desk runs to a machine of its choosing
    local_only=("executor", "address"),
)
