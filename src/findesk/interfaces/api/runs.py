"""Runs: ``POST /v1/runs/{workflow}`` starts any registered workflow or agent as server-sent events;
``GET /v1/runs?workflow=…`` lists the caller's past runs (newest first, a workflow's alone when named),
``GET /v1/runs/{run_id}`` and ``GET /v1/runs/{run_id}/events`` read recorded runs back,
``GET /v1/runs/{run_id}/report.html`` renders a recorded result as its workflow's HTML report, and
``POST /v1/runs/{run_id}/report-link`` gives a signed link that opens that report for a minute without a key.

Rules:
- Starting a run is ``run_stream.stream_run`` (the same code ``POST /v1/brief`` uses): refusals are JSON
  errors before the stream opens (unknown workflow 404, input refused 400).
- A run view names its workflow (the opening event's agent) and carries the ``done`` event's result;
  ``briefing`` repeats it for the workflow ``brief`` so older clients keep working.
- Reading is straight from the audit log (the same rows ``findesk runs show`` reads); a run id or a unique
  prefix of one.
- A key reads only the runs it started: a prefix is resolved among the key's own run ids (from
  ``api_requests``), so "matches several runs" lists only the caller's ids, and a run that does not
  exist and another key's run get the very same 404. The local caller (no keys required) reads every run.
- Anything that is not 4 to 64 hex digits cannot be a run id: it is a 404 like any unknown run, not a
  400, and it is never looked up.
- Reads count against the key's requests per minute but never against its cost cap.
- ``report.html`` reads the run as ``GET /v1/runs/{run_id}`` does (same keys, same 404s), then renders
  the recorded result with the workflow's own ``html`` renderer (``WorkflowInfo.formats`` lists it), for
  every workflow that has one, never a workflow by name here. A run without a result, a workflow the
  registry no longer knows and one without an HTML renderer are 404s that say which; a result that no
  longer validates against the workflow's report model (recorded by an older version) is a 409
  ``report_outdated``, never a 500. Nothing is re-run and no data source is read.
- The report is a document of its own, never part of the page: ``text/html`` under ``REPORT_CSP`` (no
  script, nothing fetched, inline styles and data: images only, not frameable), ``nosniff`` and
  ``no-store`` (it is one key's data; the run folder is the place to keep it).
- A tab cannot send a key, so the page asks ``report-link`` (the same keys, 404s and 409 as ``report.html``
  itself, checked when the link is made) for ``report.html?ticket=…`` and navigates to it: the report then
  loads under its own CSP, not the page's. A ticket (``report_links``) is the request's only credential:
  valid and unexpired for exactly this run id, it opens the report without a key (a key sent along is still
  checked, as everywhere); any other ticket is a 401 with one message (``BAD_TICKET``) that does not say
  which check failed. Without a ticket the route's authorization is unchanged. The ticket is never logged
  or recorded here; uvicorn's access log line (path and query, from ``--log-level info``) is the one place
  it shows, and it expires within a minute.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Path, Query, Request, Response
from fastapi.responses import HTMLResponse, StreamingResponse
from pydantic import ValidationError

from findesk.core.access import ApiKey, runs_owned
from findesk.core.events.audit import RunSummary
from findesk.core.events.model import AgentStart, Done, Event
from findesk.core.result import Err, ErrorCode, validation_reason
from findesk.interfaces.api.auth import authenticate, authorize, presented_key
from findesk.interfaces.api.errors import ApiError
from findesk.interfaces.api.report_links import ReportLink, ReportLinks, check, issue
from findesk.interfaces.api.run_stream import STREAM_RESPONSES, stream_run
from findesk.interfaces.api.schemas import ERRORS, RunEvents, RunList, RunRequest, RunView
from findesk.interfaces.api.services import ApiServices
from findesk.interfaces.api.workflows import HTML, report_formats
from findesk.workflows import registry

router = APIRouter(tags=["runs"])
_RUN_ID = re.compile(r"[0-9a-f]{4,64}")
# the shape is documented, not enforced by FastAPI (a 400): an id of another shape is simply not found
RunId = Path(
    description="a run id, or a unique prefix of one (at least 4 of its hex digits)",
    json_schema_extra={"pattern": f"^{_RUN_ID.pattern}$"},
)
WorkflowName = Path(
    min_length=1,
    max_length=200,
    description="a name from GET /v1/workflows, e.g. brief or agents.quote_filings",
)
Ticket = Query(
    None,
    description="a ticket from POST /v1/runs/{run_id}/report-link: opens this run's report without a key "
    "for a minute",
)
BRIEF = "brief"
REPORT_OUTDATED = "report_outdated"
# one text for every refused ticket: another run's, expired, tampered or malformed
BAD_TICKET = (
    "this report link is not valid (a link opens one run's report for a minute): open the report again "
    "from the page, or send an API key as `Authorization: Bearer <key>`"
)
REPORT_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
REPORT_HEADERS = {
    "Content-Security-Policy": REPORT_CSP,
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
}
# the report's errors are JSON like every route's; FastAPI would document a model's body under the route's
# own media type (text/html), so each error names the ErrorBody schema (the other run routes define it)
_ERROR_JSON = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
_REPORT_ERRORS: dict[int | str, dict[str, Any]] = {
    **{status: {"description": doc["description"], "content": _ERROR_JSON} for status, doc in ERRORS.items()},
    404: {
        "description": "no such run for this caller, a run without a result, or a workflow without an HTML "
        "report (see formats in GET /v1/workflows)",
        "content": _ERROR_JSON,
    },
    409: {
        "description": "the recorded result no longer fits the workflow's report (recorded by an older "
        "version): read it as JSON with GET /v1/runs/{run_id}",
        "content": _ERROR_JSON,
    },
}
REPORT_RESPONSES: dict[int | str, dict[str, Any]] = {
    **_REPORT_ERRORS,
    200: {
        "description": "the workflow's HTML report of the run: one self-contained document",
        "content": {"text/html": {"schema": {"type": "string"}}},
    },
    401: {
        "description": "missing, unknown or revoked API key, or a ticket that is not valid for this run now",
        "content": _ERROR_JSON,
    },
}


@router.post(
    "/v1/runs/{workflow}",
    summary="Run a workflow or agent, streamed as server-sent events",
    response_class=StreamingResponse,
    responses=STREAM_RESPONSES,
)
async def start_run(body: RunRequest, request: Request, workflow: str = WorkflowName) -> StreamingResponse:
    return await stream_run(request, workflow, body.input, as_of=body.as_of, mode=body.mode)


def _links(request: Request, services: ApiServices) -> ReportLinks:
    """The app's report-link secret holder, made on first use (the key file is read once per app)."""
    links = getattr(request.app.state, "report_links", None)
    if not isinstance(links, ReportLinks):
        links = request.app.state.report_links = ReportLinks(services.settings.state_dir)
    return links


async def _check_ticket(request: Request, services: ApiServices, run_id: str, ticket: str) -> None:
    """Raises the one 401 (``BAD_TICKET``) unless ``ticket`` opens exactly ``run_id`` now."""
    if presented_key(request) is not None:
        await authenticate(request, services)  # a key that is sent is always checked, even here
    key = await _links(request, services).key()
    if isinstance(key, Err):
        raise ApiError.of(key)
    if not check(key.value, run_id, ticket):
        services.metrics.rejected.labels(ErrorCode.UNAUTHORIZED.value).inc()
        raise ApiError(ErrorCode.UNAUTHORIZED.value, BAD_TICKET)


async def _run(
    request: Request, run_id: str, ticket: str | None = None
) -> tuple[ApiServices, RunSummary, list[Event]]:
    services: ApiServices = request.app.state.services
    among: list[str] | None = None
    owner: ApiKey | None = None  # whose runs only are visible; None: every run
    if ticket is not None:
        await _check_ticket(request, services, run_id, ticket)
        among = [run_id]  # the ticket names the full id: never resolved as a prefix
    else:
        owner = (await authorize(request, services, costly=False)).key
    # one text for "no such run" and "not yours", built here: find_run's own message names the log
    shown = run_id if len(run_id) <= 64 else run_id[:64] + "…"
    unknown = ApiError(
        ErrorCode.NOT_FOUND.value, f"no run {shown!r}{' for this API key' if owner is not None else ''}"
    )
    if not _RUN_ID.fullmatch(run_id):
        raise unknown
    if owner is not None:
        owned = await asyncio.to_thread(runs_owned, services.keys, owner.id, run_id)
        if isinstance(owned, Err):
            raise ApiError.of(owned)
        if not owned.value:
            raise unknown
        among = owned.value
    found = await asyncio.to_thread(services.audit.find_run, run_id, among=among)
    if isinstance(found, Err):
        raise unknown if found.code is ErrorCode.NOT_FOUND else ApiError.of(found)
    run = found.value
    events = await asyncio.to_thread(services.audit.events, run.run_id)
    return services, run, events


def _outcome(events: list[Event]) -> tuple[str | None, dict[str, Any] | None]:
    """The workflow a run ran (its opening event's agent) and its done event's result, when it has one."""
    top = [e.data for e in events if e.parent_id is None]
    opening = next((d for d in top if isinstance(d, AgentStart)), None)
    done = next((d for d in top if isinstance(d, Done)), None)
    result = done.result if done is not None and isinstance(done.result, dict) else None
    return (opening.agent if opening is not None else None), result


MAX_LISTED = 100
OWNED_SCAN = 5_000  # a key's run ids read to scope the list (its newest)


@router.get(
    "/v1/runs", response_model=RunList, responses=ERRORS, summary="The caller's past runs, newest first"
)
async def list_runs(
    request: Request,
    workflow: str | None = Query(
        None, pattern=r"^[a-z][a-z0-9_.-]{0,63}$", description="only this workflow's runs, e.g. movers"
    ),
    limit: int = Query(20, ge=1, le=MAX_LISTED, description="at most this many runs"),
) -> RunList:
    services: ApiServices = request.app.state.services
    owner = (await authorize(request, services, costly=False)).key
    among: list[str] | None = None
    if owner is not None:  # a key lists only the runs it started
        owned = await asyncio.to_thread(runs_owned, services.keys, owner.id, "", most=OWNED_SCAN)
        if isinstance(owned, Err):
            raise ApiError.of(owned)
        among = owned.value
    runs = await asyncio.to_thread(services.audit.list_runs, limit, workflow=workflow, among=among)
    return RunList(runs=runs)


@router.get("/v1/runs/{run_id}", response_model=RunView, responses=ERRORS, summary="A run and its result")
async def get_run(request: Request, run_id: str = RunId) -> RunView:
    _services, run, events = await _run(request, run_id)
    workflow, result = _outcome(events)
    return RunView(run=run, workflow=workflow, result=result, briefing=result if workflow == BRIEF else None)


@router.get(
    "/v1/runs/{run_id}/events", response_model=RunEvents, responses=ERRORS, summary="A run's events in order"
)
async def get_run_events(request: Request, run_id: str = RunId) -> RunEvents:
    _services, run, events = await _run(request, run_id)
    return RunEvents(run_id=run.run_id, events=[e.to_dict() for e in events])


@router.get(
    "/v1/runs/{run_id}/report.html",
    response_class=HTMLResponse,
    responses=REPORT_RESPONSES,
    summary="A run's HTML report (for workflows whose formats list html)",
)
async def get_run_report(request: Request, run_id: str = RunId, ticket: str | None = Ticket) -> HTMLResponse:
    _run_summary, report, render = await _report(request, run_id, ticket)
    html = await asyncio.to_thread(render, report, False)
    return HTMLResponse(html, headers=REPORT_HEADERS)


@router.post(
    "/v1/runs/{run_id}/report-link",
    response_model=ReportLink,
    responses=_REPORT_ERRORS,
    summary="A link that opens a run's HTML report without a key, for a minute (for a browser tab)",
)
async def create_report_link(request: Request, response: Response, run_id: str = RunId) -> ReportLink:
    run, _model, _render = await _report(request, run_id, None)
    key = await _links(request, request.app.state.services).key()
    if isinstance(key, Err):
        raise ApiError.of(key)
    ticket, expires_at = issue(key.value, run.run_id)
    response.headers["Cache-Control"] = "no-store"  # the ticket is a credential, if a short-lived one
    return ReportLink(url=f"/v1/runs/{run.run_id}/report.html?ticket={ticket}", expires_at=expires_at)


async def _report(
    request: Request, run_id: str, ticket: str | None
) -> tuple[RunSummary, Any, Callable[[Any, bool], str]]:
    """The run, its recorded result as its workflow's report model, and the workflow's HTML renderer;
    every refusal of ``report.html`` (see the module's rules) is raised here."""
    _services, run, events = await _run(request, run_id, ticket)
    workflow, result = _outcome(events)
    if workflow is None or result is None:
        raise ApiError(
            ErrorCode.NOT_FOUND.value, f"run {run.run_id!r} has no result to report (status {run.status})"
        )
    # the first load of a spec imports its workflow (LangGraph and the roles): off the event loop
    spec = await asyncio.to_thread(registry.load, workflow)
    if isinstance(spec, Err):
        if spec.code is ErrorCode.NOT_FOUND:
            raise ApiError(
                ErrorCode.NOT_FOUND.value,
                f"run {run.run_id!r} is of the workflow {workflow!r}, which this server no longer runs",
            )
        raise ApiError.of(spec)
    render = spec.value.renderers.get(HTML)
    if render is None:
        raise ApiError(
            ErrorCode.NOT_FOUND.value,
            f"the workflow {workflow!r} has no HTML report (its formats: "
            f"{', '.join(report_formats(spec.value))}); "
            f"read the run as JSON with GET /v1/runs/{run.run_id}",
        )
    report = await asyncio.to_thread(_report_model, spec.value, result, run.run_id)
    return run, report, render


def _report_model(spec: Any, result: dict[str, Any], run_id: str) -> Any:
    """The recorded result as the workflow's report model; a result the model no longer accepts is a 409
    (the JSON stays readable), never a crash in the renderer."""
    try:
        return spec.report_model.model_validate(result)
    except ValidationError as exc:
        raise ApiError(
            REPORT_OUTDATED,
            f"run {run_id!r}: its recorded result no longer fits the {spec.name} report "
            f"({validation_reason(exc, limit=1, whole='report')}); "
            f"read it as JSON with GET /v1/runs/{run_id}",
        ) from exc
