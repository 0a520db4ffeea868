"""Runs: ``POST /v1/runs/{workflow}`` starts any registered workflow or agent as server-sent events;
``GET /v1/runs/{run_id}`` and ``GET /v1/runs/{run_id}/events`` read recorded runs back.

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
"""

from __future__ import annotations

import asyncio
import re

from fastapi import APIRouter, Path, Request
from fastapi.responses import StreamingResponse

from findesk.core.access import runs_owned
from findesk.core.events.audit import RunSummary
from findesk.core.events.model import AgentStart, Done, Event
from findesk.core.result import Err, ErrorCode
from findesk.interfaces.api.auth import authorize
from findesk.interfaces.api.errors import ApiError
from findesk.interfaces.api.run_stream import STREAM_RESPONSES, stream_run
from findesk.interfaces.api.schemas import ERRORS, RunEvents, RunRequest, RunView
from findesk.interfaces.api.services import ApiServices

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
BRIEF = "brief"


@router.post(
    "/v1/runs/{workflow}",
    summary="Run a workflow or agent, streamed as server-sent events",
    response_class=StreamingResponse,
    responses=STREAM_RESPONSES,
)
async def start_run(body: RunRequest, request: Request, workflow: str = WorkflowName) -> StreamingResponse:
    return await stream_run(request, workflow, body.input, as_of=body.as_of, mode=body.mode)


async def _run(request: Request, run_id: str) -> tuple[ApiServices, RunSummary, list[Event]]:
    services: ApiServices = request.app.state.services
    caller = await authorize(request, services, costly=False)
    # one text for "no such run" and "not yours", built here: find_run's own message names the log
    shown = run_id if len(run_id) <= 64 else run_id[:64] + "…"
    unknown = ApiError(
        ErrorCode.NOT_FOUND.value, f"no run {shown!r}{' for this API key' if caller.key is not None else ''}"
    )
    if not _RUN_ID.fullmatch(run_id):
        raise unknown
    among: list[str] | None = None
    if caller.key is not None:
        owned = await asyncio.to_thread(runs_owned, services.keys, caller.key.id, run_id)
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


@router.get("/v1/runs/{run_id}", response_model=RunView, responses=ERRORS, summary="A run and its result")
async def get_run(request: Request, run_id: str = RunId) -> RunView:
    _services, run, events = await _run(request, run_id)
    top = [e.data for e in events if e.parent_id is None]
    opening = next((d for d in top if isinstance(d, AgentStart)), None)
    done = next((d for d in top if isinstance(d, Done)), None)
    result = done.result if done is not None and isinstance(done.result, dict) else None
    workflow = opening.agent if opening is not None else None
    return RunView(run=run, workflow=workflow, result=result, briefing=result if workflow == BRIEF else None)


@router.get(
    "/v1/runs/{run_id}/events", response_model=RunEvents, responses=ERRORS, summary="A run's events in order"
)
async def get_run_events(request: Request, run_id: str = RunId) -> RunEvents:
    _services, run, events = await _run(request, run_id)
    return RunEvents(run_id=run.run_id, events=[e.to_dict() for e in events])
