"""The FastAPI application: routes, error handlers, metrics, and the services' lifetime.

Rules:
- ``create_app`` takes opened ``ApiServices`` (tests pass planted tools or fake models through them)
  and closes them at shutdown; at start-up every registered workflow is loaded once.
- Request bodies over ``MAX_BODY_BYTES`` are refused (413) before they are read whole: the largest
  valid request (two 2,000-character fields) is far below it.
- OpenAPI at ``/openapi.json``, docs at ``/docs``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.types import ASGIApp, Receive, Scope, Send

from findesk import __version__
from findesk.interfaces.api import briefs, errors, ops, runs, workflows
from findesk.interfaces.api.errors import error_response
from findesk.interfaces.api.metrics import RequestMetrics
from findesk.interfaces.api.services import ApiServices

MAX_BODY_BYTES = 64 * 1024

DESCRIPTION = """The findesk research desk over HTTP.

`GET /v1/workflows` lists every workflow and agent with its input schema; `POST /v1/runs/{workflow}`
runs one, streamed as server-sent events (`POST /v1/brief` is the advisor briefing's own form). Every
run is recorded and can be read back with `GET /v1/runs/{run_id}` and `GET /v1/runs/{run_id}/events`.
Send an API key as `Authorization: Bearer <key>` (`findesk keys create NAME`); a server bound to
loopback may run without keys. Errors are JSON: `{"error": {"code": ..., "message": ...}}`. findesk
never gives investment advice.
"""


class BodyLimit:
    """Refuses a request whose declared or streamed body exceeds the cap (413, JSON)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            response = error_response(
                "payload_too_large", f"the request body is over {self.limit // 1024} KiB", 413
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


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
    )
    app.state.services = services
    errors.install(app)
    app.include_router(briefs.router)
    app.include_router(runs.router)
    app.include_router(workflows.router)
    app.include_router(ops.router)
    app.add_middleware(BodyLimit, limit=MAX_BODY_BYTES)
    app.add_middleware(RequestMetrics, metrics=services.metrics)
    return app
