"""The FastAPI application: routes, error handlers, metrics, and the services' lifetime.

Rules:
- ``create_app`` takes opened ``ApiServices`` (tests pass planted tools or fake models through them)
  and closes them at shutdown; at start-up every registered workflow is loaded once.
- Authenticate first, then read at most the limit (``RequestGate``): a request that may carry a body
  (any method but GET, HEAD and OPTIONS, or one that declares a body) is authenticated before a byte
  of it is read (401), then its body is read, streamed and counted, and refused (413) the moment it
  passes ``MAX_BODY_BYTES``, whatever it declared; the largest valid request (two 2,000-character
  fields) is far below it. Nothing more than the limit is ever held, and these refusals close the
  connection, so the rest of the body is never read. Headers are capped by the HTTP protocol
  (``http_limits``), before any of this runs.
- OpenAPI at ``/openapi.json``; no HTML docs (``/docs`` would load from a CDN: see ``ops``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.datastructures import Headers
from starlette.requests import HTTPConnection
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from findesk import __version__
from findesk.interfaces.api import (
    briefs,
    errors,
    etf_weekly,
    memory,
    movers,
    ops,
    queries,
    runs,
    scan,
    trade,
    workflows,
)
from findesk.interfaces.api.auth import authenticate
from findesk.interfaces.api.errors import ApiError, error_response
from findesk.interfaces.api.metrics import RequestMetrics
from findesk.interfaces.api.services import ApiServices

MAX_BODY_BYTES = 64 * 1024

DESCRIPTION = """The findesk research desk over HTTP.

`GET /v1/workflows` lists every workflow and agent with its input schema; `POST /v1/runs/{workflow}`
runs one, streamed as server-sent events (`POST /v1/brief` is the advisor briefing's own form). Every
run is recorded and can be read back with `GET /v1/runs/{run_id}` and `GET /v1/runs/{run_id}/events`.
Send an API key as `Authorization: Bearer <key>` (`findesk keys create NAME`); a server bound to
loopback may run without keys. Errors are JSON: `{"error": {"code": ..., "message": ...}}`. findesk
never gives investment advice. This document (`GET /openapi.json`) is the API's description: the server
serves no HTML docs (`/docs` would load Swagger UI from a public CDN, and findesk runs offline).
"""


class RequestGate:
    """Authenticates a request that may carry a body before reading it, then reads the body, at most
    ``limit`` bytes of it, and hands it on (see the module's rules)."""

    def __init__(self, app: ASGIApp, limit: int, services: ApiServices) -> None:
        self.app = app
        self.limit = limit
        self.services = services

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        declared = headers.get("content-length")
        has_body = "transfer-encoding" in headers or (declared is not None and declared.strip() != "0")
        if scope["method"] in _NO_BODY and not has_body:
            await self.app(scope, receive, send)
            return
        try:
            await authenticate(HTTPConnection(scope), self.services)
        except ApiError as exc:
            await _refuse(
                scope,
                receive,
                send,
                # the route handlers' redaction is skipped here: a key store error names its file
                error_response(
                    exc.code, errors.redactor(HTTPConnection(scope))(exc.message), exc.status, exc.headers
                ),
            )
            return
        replay = await read_capped_body(scope, receive, send, self.limit)
        if replay is not None:
            await self.app(scope, replay, send)


async def read_capped_body(scope: Scope, receive: Receive, send: Send, limit: int) -> Receive | None:
    """Read a request's body, at most ``limit`` bytes of it: the body replayed for the app, or ``None``
    when it was refused (413, the connection closed unread) or the client left before sending it all."""
    declared = Headers(scope=scope).get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        await _refuse(scope, receive, send, _too_large(limit))
        return None
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":  # the client left before sending it all
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            await _refuse(scope, receive, send, _too_large(limit))
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return _replay(b"".join(chunks), receive)


def _too_large(limit: int) -> Response:
    return error_response("payload_too_large", f"the request body is over {limit // 1024} KiB", 413)


_NO_BODY = frozenset({"GET", "HEAD", "OPTIONS"})


async def _refuse(scope: Scope, receive: Receive, send: Send, response: Response) -> None:
    # the rest of the body is never read: closing is the only way to stop the client sending it
    response.headers["Connection"] = "close"
    await response(scope, receive, send)


def _replay(body: bytes, receive: Receive) -> Receive:
    """The body read by the gate, as one message; then the server's own messages (disconnects)."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> Message:
        return pending.pop() if pending else await receive()

    return replay


def create_app(services: ApiServices) -> FastAPI:
    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await services.started()
        # every registered spec is imported now (and the listing built), not inside the first run's
        # request, whose first event would wait on LangGraph's import; a plug-in that fails to load is
        # reported by the routes that need it
        await asyncio.to_thread(workflows.listing)
        try:
            yield
        finally:
            await services.close()

    app = FastAPI(
        title="findesk API",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # Swagger UI and ReDoc load from a public CDN; findesk runs offline (ops.NO_HTML_DOCS)
        redoc_url=None,
    )
    app.state.services = services
    errors.install(app)
    app.include_router(briefs.router)
    app.include_router(queries.router)
    app.include_router(etf_weekly.router)
    app.include_router(trade.router)
    app.include_router(scan.router)
    app.include_router(movers.router)
    app.include_router(runs.router)
    app.include_router(memory.router)
    app.include_router(workflows.router)
    app.include_router(ops.router)
    app.add_middleware(RequestGate, limit=MAX_BODY_BYTES, services=services)
    app.add_middleware(RequestMetrics, metrics=services.metrics)
    return app
