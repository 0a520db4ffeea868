"""The ``findesk`` command: a lazy top-level group, ``version`` and ``config show``.

Rules: ``findesk --help`` imports no command module (see ``lazy``); each command group and every
workflow of the registry is listed by name and one-line help and imported when it runs. Workflow
commands are generated from the registry (``workflow_cmd``), so a new workflow needs no CLI code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import typer
from typer import _click as click  # the click typer vendors (see lazy)

from findesk import __version__
from findesk.interfaces.cli.lazy import LazyGroup, from_typer

_CLI = "findesk.interfaces.cli."


class _Group(LazyGroup):
    lazy: ClassVar[dict[str, tuple[str, Callable[[], click.Command]]]] = {
        "agents": (
            "Run agent roles (deterministic without a model key).",
            from_typer(_CLI + "agent_cmds:agents_app"),
        ),
        "backtest": (
            "Point-in-time backtests: baselines (macd, sma, …) or the trading desk, next to buy & hold.",
            from_typer(_CLI + "backtest_cmd:backtest"),
        ),
        "data": (
            "Query the data layer: quotes, bars, filings, sections, facts, macro, news, posts…",
            from_typer(_CLI + "data_cmds:data_app"),
        ),
        "index": (
            "The retrieval index over filings, earnings calls and page corpora: build (resumable), stats.",
            from_typer(_CLI + "index_cmds:index_app"),
        ),
        "search": (
            "Search the retrieval index: cited passages with BM25 and dense scores (--ticker, --as-of…).",
            from_typer(_CLI + "index_cmds:search"),
        ),
        "db": (
            "The state database's schema (Alembic migrations): upgrade, current.",
            from_typer(_CLI + "db_cmds:db_app"),
        ),
        "eval": (
            "Evaluate the desks: `findesk eval golden` runs the research desk's golden cases.",
            from_typer(_CLI + "eval_cmds:eval_app"),
        ),
        "keys": (
            "API keys for `findesk serve`: create, list, revoke (tiers and limits: api.tiers).",
            from_typer(_CLI + "keys_cmds:keys_app"),
        ),
        "mcp": (
            "Serve the data tools, workflows and backtester over MCP (stdio, or HTTP at /mcp with keys).",
            from_typer("findesk.interfaces.mcp.command:mcp"),
        ),
        "memory": (
            "What the research desk remembers: facts about you (list, forget), sessions, templates.",
            from_typer(_CLI + "memory_cmds:memory_app"),
        ),
        "runs": (
            "Inspect recorded runs (the audit log): list, replay a trace, export events, resume.",
            from_typer(_CLI + "runs_cmds:runs_app"),
        ),
        "serve": (
            "Serve the API (POST /v1/runs/{workflow} as SSE, /v1/runs, /metrics, /docs) and the web page.",
            from_typer(_CLI + "serve_cmd:serve"),
        ),
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._add_workflows()
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        self._add_workflows()
        return super().get_command(ctx, cmd_name)

    def _add_workflows(self) -> None:
        from findesk.core.result import Err
        from findesk.interfaces.cli.lazy import workflow_loader
        from findesk.workflows.registry import entries

        found = entries()
        if isinstance(found, Err):  # a broken plugin: its command is missing; running it says why
            return
        for name, entry in found.value.items():
            for command in (name, *entry.aliases):
                if command not in self.lazy:
                    type(self).lazy = {**self.lazy, command: (entry.summary, workflow_loader(name))}


app = typer.Typer(
    cls=_Group,
    help="findesk: a research desk for US markets — cited, point-in-time data, offline or live.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
config_app = typer.Typer(help="Show the effective configuration.", no_args_is_help=True)
app.add_typer(config_app, name="config")


@app.command()
def version() -> None:
    """Print the findesk version."""
    print(f"findesk {__version__}")


@config_app.command("show")
def config_show(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Print the effective settings (environment, config file, defaults) with secrets masked."""
    from rich.table import Table

    from findesk.core.config import masked_settings
    from findesk.interfaces.cli import session as ses

    settings = ses.load(as_json)
    data = masked_settings(settings)
    if as_json:
        ses.emit_json(None, data)
        return
    table = Table(title="findesk settings", show_header=True)
    table.add_column("setting")
    table.add_column("value")
    for key, value in data.items():
        if isinstance(value, dict):
            for sub, subval in value.items():
                table.add_row(f"{key}.{sub}", str(subval))
        else:
            table.add_row(key, "(not set)" if value is None else str(value))
    ses.stdout.print(table)


def run() -> None:
    from findesk.interfaces.cli.session import guard_main

    guard_main(app)
