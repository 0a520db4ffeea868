"""``findesk agents …``: list every role of the catalog and run one as a recorded one-node workflow.

Rules: parse arguments (a ``SYMBOL`` shortcut or the role's whole input as ``--input`` JSON) and hand
over to the shared workflow command (``workflow_cmd.execute``): same run options, audit log, output
guard and renderers as every workflow; no business logic here. ``findesk runs show RUN_ID`` replays
any run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from findesk.core.result import Err, ErrorCode
from findesk.interfaces.cli import session as ses
from findesk.interfaces.cli.workflow_cmd import MODE_HELP, RunMode, RunOptions, execute, parse_json_input

agents_app = typer.Typer(help="Run agent roles (deterministic without a model key).", no_args_is_help=True)


@agents_app.command("list")
def list_roles(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Every role you can run, with its tools, model tier and input fields."""
    from findesk.agents.roles.catalog import ROLES

    rows: list[dict[str, Any]] = [
        {
            "name": r.name,
            "description": r.description,
            "tier": r.tier,
            "tools": list(r.tools),
            "inputs": list(r.input_schema.model_fields),
            "input_schema": r.input_schema.model_json_schema(),
        }
        for r in ROLES.values()
    ]
    if as_json:
        ses.emit_json(None, rows)
        return
    table = Table(title="agent roles")
    for column in ("role", "tier", "inputs", "tools", "what it does"):
        table.add_column(column)
    for row in rows:
        table.add_row(
            row["name"],
            row["tier"],
            ", ".join(row["inputs"]),
            ", ".join(row["tools"]),
            escape(row["description"]),
        )
    ses.stdout.print(table)


@agents_app.command("run")
def run(
    role_name: str = typer.Argument(..., metavar="ROLE", help="Role name (see `findesk agents list`)."),
    symbol: str | None = typer.Argument(None, help="Ticker, for roles whose input is a symbol."),
    input_json: str | None = typer.Option(None, "--input", help="The role's input as a JSON object."),
    as_of: str | None = typer.Option(None, "--as-of", help="Point-in-time date YYYY-MM-DD."),
    snapshot: bool | None = typer.Option(
        None, "--snapshot/--live", help="Force the snapshot or live sources."
    ),
    mode: RunMode = typer.Option(RunMode.auto, "--mode", help=MODE_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No live trace on stderr."),
    jsonl: Path | None = typer.Option(None, "--events", help="Also write the events to this JSONL file."),
) -> None:
    """Run ROLE (on SYMBOL, or on --input JSON); the trace streams to stderr, the run is saved to the
    audit log, and the output passes the advice scrub and the number trace."""
    from findesk.workflows import registry

    spec = registry.load(registry.AGENT_PREFIX + role_name)
    if isinstance(spec, Err):  # an unknown role is a typing error on the command line: exit 2
        ses.fail(
            Err(ErrorCode.INVALID_INPUT, spec.reason) if spec.code is ErrorCode.NOT_FOUND else spec, as_json
        )
    raw: dict[str, Any] = parse_json_input(input_json, as_json) if input_json is not None else {}
    if symbol is not None:
        if "symbol" not in spec.value.input_model.model_fields:
            ses.fail(Err(ErrorCode.INVALID_INPUT, f"{role_name} takes no symbol; give --input JSON"), as_json)
        raw["symbol"] = symbol
    opts = RunOptions(
        as_of=as_of,
        fmt="json" if as_json else "terminal",
        snapshot=snapshot,
        mode=mode,
        quiet=quiet or as_json,
        jsonl=jsonl,
    )
    execute(spec.value, raw, opts)
