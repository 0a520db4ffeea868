"""``findesk mcp [--transport stdio|http] [--host 127.0.0.1] [--port N]``: serve the desk over MCP.

Rules: parse options, check the data context, open the desk and serve; no business logic. Over stdio
nothing but the protocol reaches stdout (messages go to stderr). Over HTTP the port is bound before
anything is opened (a busy port is one line and a non-zero exit), the server listens on 127.0.0.1
unless told otherwise, and every request needs an API key (``findesk keys create``).
"""

from __future__ import annotations

import asyncio
import logging
from enum import StrEnum
from typing import Literal

import typer

from findesk.interfaces.cli import session as ses

DEFAULT_PORT = 8765


class Transport(StrEnum):
    stdio = "stdio"
    http = "http"


def mcp(
    transport: Transport = typer.Option(Transport.stdio, "--transport", "-t", help="stdio | http."),
    host: str = typer.Option("127.0.0.1", "--host", help="HTTP: the address to bind."),
    port: int = typer.Option(DEFAULT_PORT, "--port", "-p", min=0, max=65535, help="HTTP: the port (0: any)."),
    snapshot: bool | None = typer.Option(
        None, "--snapshot/--live", help="Force the offline snapshot or live sources (default: configured)."
    ),
    log_level: str = typer.Option("warning", "--log-level", help="Server log level (stderr)."),
) -> None:
    """Serve every data tool, workflow and the backtester to MCP clients (Claude Desktop, IDEs, agents).
    stdio is local and needs no key; HTTP (at /mcp) requires an API key from `findesk keys create`."""
    from findesk.data.context import resolve_context
    from findesk.interfaces.cli.serve_cmd import bind_port
    from findesk.interfaces.mcp.desk import Desk
    from findesk.interfaces.mcp.server import PATH, serve_http, serve_stdio

    level = getattr(logging, log_level.upper(), logging.WARNING)
    logging.basicConfig(level=level, format="findesk mcp: %(levelname)s %(message)s")  # stderr
    settings = ses.load()
    mode: Literal["snapshot", "live"] | None = (
        None if snapshot is None else ("snapshot" if snapshot else "live")
    )
    remote = transport is Transport.http
    sock = ses.unwrap(bind_port(host, port)) if remote else None
    try:
        context = ses.unwrap(resolve_context(settings, mode=mode))
        desk = ses.unwrap(Desk.open(settings, remote=remote, data_mode=mode))
    except BaseException:
        if sock is not None:
            sock.close()
        raise
    say = ses.stderr.print
    if sock is not None:
        shown = f"[{host}]" if ":" in host else host
        say(f"findesk MCP server on http://{shown}:{sock.getsockname()[1]}{PATH}", highlight=False)
        say("  every request needs an API key: Authorization: Bearer <key>", highlight=False)
    else:
        say("findesk MCP server on stdio", highlight=False)
    say(f"  data: {context.describe()}; runs recorded in: {desk.audit.location}", highlight=False)

    async def main() -> None:
        try:
            await (serve_http(desk, sock, host, log_level) if sock is not None else serve_stdio(desk))
        finally:
            await desk.close()

    asyncio.run(main())
