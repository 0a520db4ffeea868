"""``findesk agents …``: list the roles and run one as a recorded run.

Rules: parse arguments, open the sinks (live view on stderr, audit log, optional JSONL), call
``findesk.agents.run.run_agent`` and render its typed output; no business logic here. Every run is
written to the audit log, so ``findesk runs show RUN_ID`` replays it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import typer
from pydantic import BaseModel
from rich.markup import escape
from rich.table import Table

from findesk.agents.roles.catalog import ROLES
from findesk.agents.run import AgentRun, parse_inputs, run_agent
from findesk.core.events.audit import open_audit_log
from findesk.core.events.jsonl import JsonlSink
from findesk.core.events.trace import Sink
from findesk.core.result import Err, ErrorCode
from findesk.data.context import resolve_context
from findesk.interfaces.cli import session as ses
from findesk.interfaces.cli.live_view import LiveView

agents_app = typer.Typer(help="Run agent roles (deterministic without a model key).", no_args_is_help=True)

MODES = ("auto", "deterministic", "model")


@agents_app.command("list")
def list_roles(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """The roles you can run, with their tools and model tier."""
    rows: list[dict[str, Any]] = [
        {"name": r.name, "description": r.description, "tier": r.tier, "tools": list(r.tools)}
        for r in ROLES.values()
    ]
    if as_json:
        ses.emit_json(None, rows)
        return
    table = Table(title="agent roles")
    for column in ("role", "tier", "tools", "what it does"):
        table.add_column(column)
    for row in rows:
        table.add_row(row["name"], row["tier"], ", ".join(row["tools"]), escape(row["description"]))
    ses.stdout.print(table)


@agents_app.command("run")
def run(
    role_name: str = typer.Argument(..., metavar="ROLE", help="Role name (see `findesk agents list`)."),
    symbol: str = typer.Argument(..., help="Ticker, e.g. AAPL."),
    as_of: str | None = typer.Option(None, "--as-of", help="Point-in-time date YYYY-MM-DD."),
    snapshot: bool | None = typer.Option(
        None, "--snapshot/--live", help="Force the snapshot or live sources."
    ),
    mode: str = typer.Option(
        "auto", "--mode", help="auto (model when a key is set) | deterministic | model."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No live trace on stderr."),
    jsonl: Path | None = typer.Option(None, "--events", help="Also write the events to this JSONL file."),
) -> None:
    """Run ROLE on SYMBOL; the trace streams to stderr and the run is saved to the audit log."""
    role = ROLES.get(role_name)
    if role is None:
        known = ", ".join(sorted(ROLES))
        ses.fail(Err(ErrorCode.INVALID_INPUT, f"unknown role {role_name!r}; known roles: {known}"), as_json)
    if mode not in MODES:
        ses.fail(
            Err(ErrorCode.INVALID_INPUT, f"--mode must be one of {', '.join(MODES)}, not {mode!r}"), as_json
        )
    settings = ses.load(as_json)
    inputs = ses.unwrap(parse_inputs(role, {"symbol": symbol}), as_json)
    data_mode: Any = None if snapshot is None else ("snapshot" if snapshot else "live")
    context = ses.unwrap(resolve_context(settings, mode=data_mode, as_of=as_of), as_json)
    audit = ses.unwrap(open_audit_log(settings), as_json)
    sinks: list[Sink] = [audit]
    if not quiet and not as_json:
        sinks.append(LiveView())
    if jsonl is not None:
        sinks.append(JsonlSink(jsonl))
    try:
        result = asyncio.run(
            run_agent(role, inputs, settings=settings, context=context, sinks=sinks, mode=mode)  # type: ignore[arg-type]
        )
    finally:
        for sink in sinks:
            sink.close()
    agent_run = ses.unwrap(result, as_json)
    if as_json:
        ses.emit_json(None, _as_data(agent_run))
        return
    _draw(agent_run)


def _as_data(run: AgentRun[Any]) -> dict[str, Any]:
    o = run.outcome
    return {
        "run_id": run.run_id,
        "context": run.context,
        "mode": o.mode,
        "mode_reason": o.mode_reason,
        "fell_back": o.fell_back,
        "warnings": o.warnings,
        "tool_calls": o.tool_calls,
        "model_turns": o.iterations,
        "input_tokens": o.usage.input_tokens,
        "output_tokens": o.usage.output_tokens,
        "cost_usd": round(o.cost_usd, 6),
        "latency_ms": round(o.latency_ms, 1),
        "output": o.output.model_dump(mode="json"),
    }


def _draw(run: AgentRun[Any]) -> None:
    o = run.outcome
    ses.stdout.print(f"[dim]{run.context} · mode: {o.mode} ({o.mode_reason})[/dim]", highlight=False)
    table = Table(show_header=False, box=None)
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    for name, value in o.output:
        table.add_row(name, _cell(value))
    ses.stdout.print(table)
    for warning in o.warnings:
        ses.warn(warning)
    cost = f" · ${o.cost_usd:.4f}" if o.mode == "model" else ""
    ses.stdout.print(
        f"[dim]run {run.run_id} · {o.tool_calls} tool calls{cost} · {o.latency_ms:,.0f} ms · "
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
