"""Operations and the page: ``/healthz``, ``/metrics``, ``/v1/events/registry``, ``/`` and ``/static``.

Rules:
- ``/healthz`` answers without touching a data source: it reports the data context, whether the audit
  log writes (and its kind, sqlite or postgresql), and whether keys are required; ``degraded`` (HTTP 503)
  when the audit log has failed. It never shows a file path or a database URL: problems are redacted
  like every error message.
- The page and its assets are files inside the package, sent with a strict Content-Security-Policy
  (only this origin, no inline script or style), so nothing is fetched from outside.
- No HTML API docs: Swagger UI and ReDoc load from a public CDN and the product runs offline, so
  ``/docs`` and ``/redoc`` are 404s that point to ``/openapi.json``, the API's one description.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST

from findesk import __version__
from findesk.core.events.model import event_registry
from findesk.core.result import Err
from findesk.data.context import resolve_context
from findesk.interfaces.api.errors import error_response, redactor
from findesk.interfaces.api.schemas import Health
from findesk.interfaces.api.services import ApiServices

STATIC = Path(__file__).parent / "static"
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
PAGE_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-cache",
}
_ASSETS = {"app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8"}

router = APIRouter()


NO_HTML_DOCS = (
    "this server has no HTML API docs (they would load from a public CDN, and findesk runs offline): "
    "GET /openapi.json is the OpenAPI document; open it in any OpenAPI viewer"
)


@router.get(
    "/healthz",
    response_model=Health,
    responses={503: {"model": Health, "description": "degraded: the data or the audit log is failing"}},
    tags=["operations"],
    summary="Liveness and configuration",
)
async def healthz(request: Request) -> JSONResponse:
    from sqlalchemy.engine import make_url  # loaded already: the audit log is open

    services: ApiServices = request.app.state.services
    redact = redactor(request)
    backend = make_url(services.settings.resolved_audit_url()).get_backend_name()
    problems = []
    context = resolve_context(services.settings)
    data = context.value.describe() if not isinstance(context, Err) else "unavailable"
    if isinstance(context, Err):
        problems.append(redact(f"data: {context.reason}"))
    if services.audit.last_error:
        problems.append(redact(f"audit log: {services.audit.last_error}"))
    health = Health(
        status="degraded" if problems else "ok",
        version=__version__,
        data=data,
        audit_log="postgresql" if backend == "postgresql" else "sqlite",  # the only two open_store opens
        keys_required=services.require_keys,
        runs_in_progress=services.metrics.streaming,
        problems=problems,
    )
    return JSONResponse(health.model_dump(), status_code=503 if problems else 200)


@router.get("/metrics", tags=["operations"], summary="Prometheus metrics", response_class=Response)
async def metrics(request: Request) -> Response:
    services: ApiServices = request.app.state.services
    return Response(services.metrics.render(), media_type=CONTENT_TYPE_LATEST)


@router.get("/v1/events/registry", tags=["events"], summary="Every event kind and the fields it carries")
async def registry() -> dict[str, dict[str, dict[str, list[str]]]]:
    return {"types": event_registry()}


@router.get("/docs", include_in_schema=False)
@router.get("/redoc", include_in_schema=False)
async def no_html_docs() -> JSONResponse:
    return error_response("not_found", NO_HTML_DOCS, 404)


@router.get("/", include_in_schema=False)
async def page() -> FileResponse:
    return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8", headers=PAGE_HEADERS)


@router.get("/static/{name}", include_in_schema=False)
async def asset(name: str) -> Response:
    if name not in _ASSETS:
        return JSONResponse(
            {"error": {"code": "not_found", "message": f"no asset {name!r}"}}, status_code=404
        )
    return FileResponse(STATIC / name, media_type=_ASSETS[name], headers=PAGE_HEADERS)
