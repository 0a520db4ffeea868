"""Runs: ``POST /v1/runs/{workflow}`` starts any registered workflow or agent as server-sent events;
``GET /v1/runs/{run_id}`` and ``GET /v1/runs/{run_id}/events`` read recorded runs back.

Rules:
- Starting a run is ``run_stream.stream_run`` (the same code ``POST /v1/brief`` uses): refusals are JSON
  errors before the stream opens (unknown workflow 404, input refused 400).
- A run view names its workflow (the opening event's agent) and carries the ``done`` event's result;
  ``briefing`` repeats it for the workflow ``brief`` so older clients keep working.
- Reading is straight from the audit log (the same rows ``findesk runs show`` reads); a run id or a unique
  prefix of one.
- A key reads only the runs it started; another key's run is a 404, so ids leak nothing. The local
  caller (no keys required) reads every run.
- Reads count against the key's requests per minute but never against its cost cap.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Path, Request
from fastapi.responses import StreamingResponse

from findesk.core.access import owns_run
from findesk.core.events.audit import RunSummary
from findesk.core.events.model import AgentStart, Done, Event
from findesk.core.result import Err, ErrorCode
from findesk.interfaces.api.auth import authorize
from findesk.interfaces.api.errors import ApiError
from findesk.interfaces.api.run_stream import STREAM_RESPONSES, stream_run
from findesk.interfaces.api.schemas import ERRORS, RunEvents, RunRequest, RunView
from findesk.interfaces.api.services import ApiServices

router = APIRouter(tags=["runs"])
RunId = Path(min_length=4, max_length=64, pattern=r"^[0-9a-f]+$", description="a run id or unique prefix")
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
    found = await asyncio.to_thread(services.audit.find_run, run_id)
    if isinstance(found, Err):
        raise ApiError.of(found)
    run = found.value
    if caller.key is not None:
        mine = await asyncio.to_thread(owns_run, services.keys, caller.key.id, run.run_id)
        if isinstance(mine, Err):
            raise ApiError.of(mine)
        if not mine.value:
            raise ApiError(ErrorCode.NOT_FOUND.value, f"no run {run_id!r} for this API key")
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
