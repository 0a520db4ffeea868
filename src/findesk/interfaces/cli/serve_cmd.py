"""``findesk serve``: the HTTP API and web page (FastAPI on uvicorn).

Rules: parse options, open the services, state at start-up where the data comes from, where runs are
recorded and whether API keys are required; no business logic. Runs a crashed process left
``running`` are closed as interrupted before the first request (``AuditLog.close_interrupted_runs``:
only runs whose process is gone, so servers sharing one database never close each other's). Keys are
required unless the server listens on loopback only; serving without keys on any other address is
refused.
The port is bound before anything is printed or opened, and uvicorn serves on that very socket: a busy
port is a one-line error and a non-zero exit, never a banner followed by a crash.
"""

from __future__ import annotations

import errno
import socket

import typer

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.interfaces.cli import session as ses


def bind_port(host: str, port: int) -> Result[socket.socket]:
    """A socket bound to ``host:port`` (port 0: any free one), as uvicorn would bind it, or why not."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    # as uvicorn does; on Linux it still refuses a port another socket listens on
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            return Err(ErrorCode.UNAVAILABLE, f"port {port} on {host} is in use; pass --port")
        return Err(ErrorCode.INVALID_INPUT, f"cannot listen on {host} port {port}: {exc.strerror or exc}")
    except (OverflowError, socket.gaierror) as exc:
        sock.close()
        return Err(ErrorCode.INVALID_INPUT, f"cannot listen on {host} port {port}: {exc}")
    sock.set_inheritable(True)
    return Ok(sock)


def serve(
    host: str | None = typer.Option(None, "--host", help="Address to bind (default 127.0.0.1; [api] host)."),
    port: int | None = typer.Option(None, "--port", "-p", help="Port (default 8000; [api] port)."),
    require_keys: bool | None = typer.Option(
        None,
        "--require-keys/--no-keys",
        help="Require API keys even on loopback, or allow keyless use (loopback only).",
    ),
    log_level: str = typer.Option("warning", "--log-level", help="uvicorn log level."),
) -> None:
    """Serve the API (POST /v1/brief as SSE, /v1/runs, /metrics, /openapi.json) and the web page at /."""
    import uvicorn  # imported here so other commands start fast

    from findesk.data.context import resolve_context
    from findesk.interfaces.api.app import create_app
    from findesk.interfaces.api.http_limits import uvicorn_http_options
    from findesk.interfaces.api.services import ApiServices, is_loopback, keys_required

    settings = ses.load()
    bind = host or settings.api.host
    listen_port = settings.api.port if port is None else port
    if require_keys is not None:
        settings = settings.model_copy(
            update={"api": settings.api.model_copy(update={"require_keys": require_keys})}
        )
    required = keys_required(settings, bind)
    if not required and not is_loopback(bind):
        ses.fail(
            Err(
                ErrorCode.INVALID_INPUT,
                f"refusing to serve without API keys on {bind}: anyone who can reach it could run "
                "briefings. Bind to 127.0.0.1, or drop --no-keys and create keys with `findesk keys create`",
            )
        )
    sock = ses.unwrap(bind_port(bind, listen_port))
    listen_port = int(sock.getsockname()[1])
    try:
        context = ses.unwrap(resolve_context(settings))
        services = ses.unwrap(ApiServices.open(settings, require_keys=required))
    except BaseException:
        sock.close()
        raise
    closed = services.audit.close_interrupted_runs()
    active = services.keys.list()
    count = sum(1 for k in active.value if k.active) if not isinstance(active, Err) else 0
    tiers = ", ".join(
        f"{name} {t.rpm}/min ${t.daily_cost_usd:,.2f}/day" for name, t in settings.api.tiers.items()
    )
    keys_line = (
        f"API keys required ({count} active; tiers: {tiers})"
        if required
        else f"no API key required: bound to loopback {bind}, so only this machine can connect "
        "(--require-keys to enforce keys)"
    )
    shown = f"[{bind}]" if ":" in bind else bind
    ses.stderr.print(
        f"findesk API on http://{shown}:{listen_port}  (page: /  OpenAPI: /openapi.json)", highlight=False
    )
    ses.stderr.print(f"  data: {context.describe()}", highlight=False)
    ses.stderr.print(f"  runs recorded in: {services.audit.location}", highlight=False)
    if isinstance(closed, Err):
        ses.stderr.print(
            f"  could not close interrupted runs: {closed.reason}", markup=False, highlight=False
        )
    elif closed.value:
        shown_ids = ", ".join(closed.value[:5]) + (", …" if len(closed.value) > 5 else "")
        ses.stderr.print(
            f"  closed {len(closed.value)} run(s) left running by a process that ended: {shown_ids}",
            markup=False,
            highlight=False,
        )
    where = (
        f"{services.workers} worker process{'es' if services.workers != 1 else ''}"
        if services.workers
        else "this process (api.workers = 0)"
    )
    ses.stderr.print(f"  runs go to {where}", highlight=False)
    ses.stderr.print(f"  {keys_line}", highlight=False)
    config = uvicorn.Config(
        create_app(services),
        # one process: briefings already use every core through the worker pool
        host=bind,
        port=listen_port,
        log_level=log_level,
        timeout_graceful_shutdown=5,
        **uvicorn_http_options(),  # caps the request line and headers
    )
    uvicorn.Server(config).run(sockets=[sock])
