"""The MCP server on the official SDK's low-level ``Server`` (its handlers take the catalog's JSON
schemas as they are), served over stdio or streamable HTTP at ``/mcp``.

Rules:
- stdio is local and trusted, like the CLI: no key, no limits, workflows run as the local user.
- HTTP requires an API key on every request, exactly as ``findesk serve`` reads one
  (``Authorization: Bearer fdk_…`` or ``X-API-Key``, checked by ``core.access``): a missing, malformed,
  unknown or revoked key is a 401 JSON error before the MCP layer sees the request; the verified key
  rides in the request's scope to the call, which is admitted against the key's tier (``calls``).
- A request's line and headers are capped as the API caps them (``http_limits``), and its body is read
  only after the key is verified, at most the API's ``MAX_BODY_BYTES`` (413 past it, the rest unread).
- Progress notifications are sent only for a call whose client sent a progressToken.
- The SDK's DNS-rebinding protection stays on for a loopback bind (its default).
"""

from __future__ import annotations

import asyncio
import logging
import socket
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from findesk import __version__
from findesk.core.access import ApiKey
from findesk.core.result import Err, ErrorCode
from findesk.interfaces.mcp import calls
from findesk.interfaces.mcp.desk import Desk

log = logging.getLogger("findesk.mcp")
PATH = "/mcp"
SCOPE_KEY = "findesk.api_key"  # where the gate leaves a request's verified key
_HOW = "create one with `findesk keys create NAME` and send it as `Authorization: Bearer <key>`"
INSTRUCTIONS = (
    "findesk is a research desk for US markets. Every figure comes from dated, cited data, point in time: "
    "nothing after a call's as_of date is visible, and every result states its as_of date and data mode "
    "(offline snapshot or live). Quote figures exactly as returned, with their sources; never estimate a "
    "value a tool did not return. Data tools answer one question fast; the workflows (brief, ask, "
    "etf-weekly, trade, scan, pipeline, movers) and backtest run a whole desk and send progress. findesk "
    "never gives buy/sell advice."
)


def build_server(desk: Desk) -> Server[Any]:
    async def list_tools(
        _ctx: ServerRequestContext[Any, Any], _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        entries = await asyncio.to_thread(desk.catalog)  # the first listing imports the workflows
        return types.ListToolsResult(tools=[e.tool for e in entries.values()])

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        token = (ctx.meta or {}).get("progress_token")
        session = ctx.session

        async def report(progress: float, message: str) -> None:
            await session.report_progress(progress, None, message)

        caller = calls.Caller(key=_key_of(ctx.request))
        return await calls.call(
            desk, params.name, params.arguments, caller, report if token is not None else None
        )

    return Server(
        "findesk",
        version=__version__,
        title="findesk research desk",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _key_of(request: Any) -> ApiKey | None:
    scope = getattr(request, "scope", None)
    key = scope.get(SCOPE_KEY) if isinstance(scope, dict) else None
    return key if isinstance(key, ApiKey) else None


async def serve_stdio(desk: Desk) -> None:
    from mcp.server.stdio import stdio_server

    server = build_server(desk)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


class KeyGate:
    """ASGI: every HTTP request carries a valid API key, or is answered 401 (503 if the key store is
    down) without reaching the MCP app."""

    def __init__(self, app: ASGIApp, desk: Desk) -> None:
        self.app = app
        self.desk = desk

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan: the session manager starts and stops with the app
            await self.app(scope, receive, send)
            return
        key = await self._verify(HTTPConnection(scope))
        if isinstance(key, Err):
            status = 401 if key.code is ErrorCode.UNAUTHORIZED else 503
            body = {"error": {"code": key.code.value, "message": key.reason}}
            headers = {"WWW-Authenticate": 'Bearer realm="findesk"'} if status == 401 else None
            await JSONResponse(body, status_code=status, headers=headers)(scope, receive, send)
            return
        scope[SCOPE_KEY] = key
        from findesk.interfaces.api.app import MAX_BODY_BYTES, read_capped_body  # loaded for HTTP only

        # the body is read only now, after the key, and at most MAX_BODY_BYTES of it (as the API does)
        replay = await read_capped_body(scope, receive, send, MAX_BODY_BYTES)
        if replay is not None:
            await self.app(scope, replay, send)

    async def _verify(self, conn: HTTPConnection) -> ApiKey | Err:
        from findesk.interfaces.api.auth import presented_key
        from findesk.interfaces.api.errors import ApiError

        try:
            secret = presented_key(conn)  # the API's own reading of the headers
        except ApiError as exc:
            return Err(ErrorCode.UNAUTHORIZED, exc.message)
        if secret is None:
            return Err(ErrorCode.UNAUTHORIZED, f"this MCP server requires an API key: {_HOW}")
        assert self.desk.keys is not None
        verified = await asyncio.to_thread(self.desk.keys.verify, secret)
        return verified if isinstance(verified, Err) else verified.value


def http_app(desk: Desk, host: str) -> ASGIApp:
    server = build_server(desk)
    app = server.streamable_http_app(streamable_http_path=PATH, host=host)
    return KeyGate(app, desk)


async def serve_http(desk: Desk, sock: socket.socket, host: str, log_level: str) -> None:
    import uvicorn

    from findesk.interfaces.api.http_limits import uvicorn_http_options

    config = uvicorn.Config(
        http_app(desk, host), log_level=log_level, timeout_graceful_shutdown=5, **uvicorn_http_options()
    )
    await uvicorn.Server(config).serve(sockets=[sock])
