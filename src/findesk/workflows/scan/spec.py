"""The market scanner as a workflow spec: a date in, ``ScanReport`` out.

Rules:
- The scan's date is the run's as-of date (``prepare``): nothing after it is read. A date after the
  run's as-of date is refused with the command to run instead, never silently moved.
- The assembler guards every phase's prose and the synthesis: PII and advice wording removed and every
  number traced to the run's tool results (the boards are tool results; the market regime is the
  synthesis's own tool call). A model-written output that states a number no tool gave is replaced by
  the code-built one, and the warnings say so. The code-built outputs never join the pool, so even
  deterministic mode is checked against the tools alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from findesk.core.config import Settings
from findesk.core.result import Result
from findesk.data.context import DataContext
from findesk.guardrails.output_guard import OutputGuard
from findesk.workflows.scan.graph import PHASES, build_graph
from findesk.workflows.scan.models import ScanInput, ScanReport
from findesk.workflows.scan.render_html import to_html
from findesk.workflows.scan.render_markdown import to_markdown, to_terminal
from findesk.workflows.scan.stream import SECTIONS, ScanStream
from findesk.workflows.spec import RunScope, StreamHandler, WorkflowSpec, on_its_date


def _prepare(
    inputs: ScanInput, context: DataContext, _settings: Settings
) -> Result[tuple[ScanInput, DataContext]]:
    return on_its_date("scan", inputs, context)


def _initial(inputs: ScanInput, context: DataContext) -> dict[str, Any]:
    return {"day": inputs.date or context.as_of, "basis": {}}


def _assemble(state: Mapping[str, Any], scope: RunScope, _handler: StreamHandler | None) -> ScanReport:
    run = scope.facts(state)
    basis: dict[str, Any] = dict(state.get("basis") or {})
    notes = state.get("agents") or {}
    model = {name for name, note in notes.items() if note.mode == "model"}
    guard = OutputGuard(scope.pool())  # the run's tool results only
    warnings: list[str] = []

    def g(key: str, role: str, value: Any) -> Any:
        return guard.held(key, value, basis.get(key) if role in model else None, warnings)

    phases = {key: g(key, f"scan_{key}", state[key]) for key in PHASES}
    synthesis = state.get("synthesis")
    if synthesis is not None:
        synthesis = g("synthesis", "scan_synthesis", synthesis)
    report = ScanReport(
        run_id=scope.run_id,
        date=run.as_of,
        data_mode=run.data_mode,
        mode=run.mode,
        top_sectors=list(state.get("top_sectors") or []),
        synthesis=synthesis,
        **run.usage(),
        **phases,
    )
    found = guard.report()
    return report.model_copy(
        update={"warnings": [*run.warnings, *warnings, *found.warnings()], "guard": found}
    )


def _headline(report: ScanReport) -> str:
    s = report.synthesis
    if s is None:
        return f"Market scan {report.date.isoformat()}: no synthesis (the boards hold too few candidates)"
    picks = ", ".join(c.ticker for c in s.stocks_to_investigate)
    count = len(s.stocks_to_investigate)
    return f"Market scan {report.date.isoformat()}: {count} stocks to investigate: {picks}"


SPEC: WorkflowSpec[ScanInput, ScanReport] = WorkflowSpec(
    name="scan",
    title="Market scanner",
    description=(
        "A scan of the whole US market on one date: geopolitical topics, market movers and sector "
        "performance in parallel, an industry deep dive on the top 3 sectors, then a macro synthesis with "
        "key themes and 8-10 stocks to investigate, every figure from the tools. Ideas to research, not "
        "advice."
    ),
    input_model=ScanInput,
    report_model=ScanReport,
    graph=build_graph,
    initial_state=_initial,
    assemble=_assemble,
    headline=_headline,
    stream=lambda scope, _inputs: ScanStream(scope),
    sections=SECTIONS,
    renderers={"terminal": to_terminal, "markdown": to_markdown, "html": lambda r, _details: to_html(r)},
    prepare=_prepare,
)
