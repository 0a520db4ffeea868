"""The movers analyzer as a workflow spec: a session in, ``MoversReport`` out.

Rules:
- The session is the run's as-of date (``on_its_date``): nothing after it is read; a later date is
  refused with the command to run instead.
- ``email`` and ``out`` are local-only (``local_only``): a remote caller can neither mail an address of
  its choosing from the server nor name its folders; recipients then come from ``[email] to``.
- The screen's floors come from ``[movers]`` in the settings (``MoversSettings``) unless the input
  names its own ``filters``; ``top`` always wins.
- The assembler guards the report's prose like every workflow (numbers traced to the run's tools); the
  figures themselves are code's.
- ``publish`` writes the run folder ``<out or state_dir/movers>/<date>_<run_id>/`` (report.json,
  report.md, report.html, chart.png; the delivery step wrote report.eml there on a dry run); a failed
  write is a warning, never a lost report.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from findesk.analytics.movers.models import GainerFilters
from findesk.core.config import Settings
from findesk.core.mail import check_address
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.context import DataContext
from findesk.guardrails.output_guard import OutputGuard
from findesk.tools.report_email import DRY_RUN_RECIPIENT
from findesk.workflows.movers.graph import build_graph, report_from_state
from findesk.workflows.movers.models import MoversInput, MoversReport
from findesk.workflows.movers.render import headline, to_html, to_markdown, to_terminal
from findesk.workflows.movers.stream import SECTIONS, MoversStream
from findesk.workflows.spec import RunCaller, RunScope, StreamHandler, WorkflowSpec, on_its_date


def _check(inputs: MoversInput) -> Result[MoversInput]:
    if inputs.email is not None:
        for raw in (a.strip() for a in inputs.email.split(",")):
            if not raw:
                continue
            ok = check_address(raw, field="email")
            if isinstance(ok, Err):
                return Err(ErrorCode.INVALID_INPUT, f"movers: {ok.reason}")
    return Ok(inputs)


def _prepare(
    inputs: MoversInput, context: DataContext, settings: Settings
) -> Result[tuple[MoversInput, DataContext]]:
    floors = GainerFilters.model_validate({**settings.movers.model_dump(), "top": inputs.top})
    return on_its_date("movers", inputs, context, filters=inputs.filters or floors)


def _bind(inputs: MoversInput, caller: RunCaller) -> Result[MoversInput]:
    """Over HTTP the run shows no server path (``email`` and ``out`` are refused as ``local_only``)."""
    return Ok(inputs.model_copy(update={"server": caller.remote}))


def _recipients(inputs: MoversInput) -> list[str]:
    return [
        a.strip() for a in (inputs.email or "").split(",") if a.strip() and a.strip() != DRY_RUN_RECIPIENT
    ]


def _initial(inputs: MoversInput, context: DataContext) -> dict[str, Any]:
    filters = (inputs.filters or GainerFilters()).model_copy(update={"top": inputs.top})
    return {
        "day": inputs.date or context.as_of,
        "filters": filters,
        "sessions": inputs.sessions,
        "recipients": _recipients(inputs),
        "dry_run": inputs.dry_run,
        "out": str(inputs.out.expanduser().resolve()) if inputs.out is not None else None,
        "relative_paths": inputs.server,
        "notes": [],
    }


def _assemble(state: Mapping[str, Any], scope: RunScope, _handler: StreamHandler | None) -> MoversReport:
    run = scope.facts(state)
    report = report_from_state(
        state, run_id=scope.run_id, data_mode=run.data_mode, mode=run.mode, warnings=run.warnings
    )
    report = report.model_copy(update=run.usage())
    guard = OutputGuard(scope.pool())
    found = guard.report()
    return report.model_copy(update={"warnings": [*report.warnings, *found.warnings()], "guard": found})


def _folder(inputs: MoversInput, settings: Settings, report: MoversReport) -> Path:
    base = inputs.out.expanduser().resolve() if inputs.out is not None else settings.state_dir / "movers"
    return base / f"{report.date.isoformat()}_{report.run_id}"


def _publish(inputs: MoversInput, report: MoversReport, settings: Settings) -> MoversReport:
    target = _folder(inputs, settings, report)
    report = report.model_copy(update={"output_dir": target.name if inputs.server else str(target)})
    try:
        target.mkdir(parents=True, exist_ok=True)
        if report.chart_png_base64:
            (target / "chart.png").write_bytes(base64.b64decode(report.chart_png_base64))
        (target / "report.md").write_text(to_markdown(report), encoding="utf-8")
        (target / "report.html").write_text(to_html(report), encoding="utf-8")
        data = report.model_dump(mode="json", exclude={"chart_png_base64"})
        (target / "report.json").write_text(json.dumps(data, indent=1), encoding="utf-8")
    except OSError as exc:
        where = "the server's movers folder" if inputs.server else str(target.parent)
        problem = f"the run folder could not be written under {where}" + ("" if inputs.server else f": {exc}")
        return report.model_copy(update={"output_dir": None, "warnings": [*report.warnings, problem]})
    return report


SPEC: WorkflowSpec[MoversInput, MoversReport] = WorkflowSpec(
    name="movers",
    title="Movers analyzer",
    description=(
        "The session's top NASDAQ gainer (common stock, price/volume/cap floors), its history against SPY, "
        "its "
        "news, metrics computed by a Python program in a sandbox and checked against numpy, a chart, and the "
        "report by email (or .eml on a dry run). Facts about a past session, never advice."
    ),
    input_model=MoversInput,
    report_model=MoversReport,
    graph=build_graph,
    initial_state=_initial,
    assemble=_assemble,
    headline=headline,
    check=_check,
    stream=lambda scope, _inputs: MoversStream(scope),
    sections=SECTIONS,
    renderers={"terminal": to_terminal, "markdown": to_markdown, "html": to_html},
    prepare=_prepare,
    publish=_publish,
    bind_caller=_bind,
    local_only=("email", "out"),
)
