"""Terminal views by workflow: a new workflow adds a view here, or gets the default one.

Rules:
- A view prints a finished run's report to the console; it holds no business logic (the report is
  final and guarded).
- ``VIEWS`` maps a workflow name to ``module:function`` (imported only when that workflow is shown);
  single agents share the agent view (the output's fields as a table, its warnings, the run line);
  any other workflow gets its own ``terminal`` renderer as plain text when it has one, else its
  Markdown renderer printed through rich, or its JSON.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from findesk.core.formatting import usd
from findesk.interfaces.cli import session as ses

View = Callable[[Console, Any, bool], None]  # (console, run, details)

VIEWS: dict[str, str] = {"brief": "findesk.interfaces.cli.views:brief_view"}


def terminal_view(spec: Any) -> View:
    target = VIEWS.get(spec.name)
    if target is not None:
        module, _, attr = target.partition(":")
        return getattr(importlib.import_module(module), attr)  # type: ignore[no-any-return]
    if spec.kind == "agent":
        return agent_view
    return lambda console, run, details: _default(spec, console, run, details)


def brief_view(console: Console, run: Any, details: bool) -> None:
    from findesk.interfaces.cli.brief_view import draw

    draw(console, run.report, details=details)


def _default(spec: Any, console: Console, run: Any, details: bool) -> None:
    from rich.markdown import Markdown

    compact = spec.renderers.get("terminal")  # a workflow's own terminal text, when it has one
    if compact is not None:
        console.print(compact(run.report, details), markup=False, highlight=False)
        return
    renderer = spec.renderers.get("markdown")
    if renderer is None:
        console.print_json(run.report.model_dump_json())
        return
    console.print(Markdown(renderer(run.report, details)))


def agent_view(console: Console, run: Any, _details: bool) -> None:
    r = run.report
    console.print(f"[dim]{run.context} · mode: {r.mode} ({escape(r.mode_reason)})[/dim]", highlight=False)
    table = Table(show_header=False, box=None)
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    for name, value in r.output:
        table.add_row(name, _cell(value))
    console.print(table)
    for warning in r.warnings:
        ses.warn(warning)
    cost = f" · {usd(r.cost_usd)}" if r.mode == "model" else ""
    console.print(
        f"[dim]run {run.run_id} · {r.tool_calls} tool calls{cost} · {r.latency_ms:,.0f} ms · "
        f"replay: findesk runs show {run.run_id}[/dim]",
        highlight=False,
    )


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, list):
        if not value:
            return "—"
        return escape("\n".join(_line(v) for v in value))
    return escape(_line(value))


def _line(value: Any) -> str:
    if isinstance(value, BaseModel):
        parts = [
            ", ".join(map(str, v)) if isinstance(v, list) else str(v)
            for v in value.model_dump(mode="json").values()
            if v not in (None, [], "")
        ]
        return " · ".join(parts)
    return str(value)
