"""The ``findesk`` command: top-level app, ``version`` and ``config show``."""

from __future__ import annotations

import typer
from rich.table import Table

from findesk import __version__
from findesk.core.config import masked_settings
from findesk.interfaces.cli import session as ses
from findesk.interfaces.cli.agent_cmds import agents_app
from findesk.interfaces.cli.brief_cmd import brief
from findesk.interfaces.cli.data_cmds import data_app
from findesk.interfaces.cli.keys_cmds import keys_app
from findesk.interfaces.cli.runs_cmds import runs_app
from findesk.interfaces.cli.serve_cmd import serve

app = typer.Typer(
    help="findesk: a research desk for US markets — cited, point-in-time data, offline or live.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
config_app = typer.Typer(help="Show the effective configuration.", no_args_is_help=True)
app.add_typer(data_app, name="data")
app.add_typer(agents_app, name="agents")
app.add_typer(config_app, name="config")
app.add_typer(runs_app, name="runs")
app.add_typer(keys_app, name="keys")
app.command("brief")(brief)
app.command("serve")(serve)


@app.command()
def version() -> None:
    """Print the findesk version."""
    print(f"findesk {__version__}")


@config_app.command("show")
def config_show(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Print the effective settings (environment, config file, defaults) with secrets masked."""
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
    ses.guard_main(app)
