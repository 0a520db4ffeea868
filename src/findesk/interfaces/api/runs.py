"""Reading recorded runs back: ``GET /v1/runs/{run_id}`` and ``GET /v1/runs/{run_id}/events``.

Rules:
- Straight from the audit log (the same rows ``findesk runs show`` reads); a run id or a unique
  prefix of one.
- A key reads only the runs it started; another key's run is a 404, so ids leak nothing. The local
  caller (no keys required) reads every run.
- Reads count against the key's requests per minute but never against its cost cap.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Path, Request

from findesk.core.access import owns_run
from findesk.core.events.audit import RunSummary
from findesk.core.events.model import Done, Event
from findesk.core.result import Err, ErrorCode
from findesk.interfaces.api.auth import authorize
from findesk.interfaces.api.errors import ApiError
from findesk.interfaces.api.schemas import ERRORS, RunEvents, RunView
from findesk.interfaces.api.services import ApiServices

router = APIRouter(tags=["runs"])
RunId = Path(min_length=4, max_length=64, pattern=r"^[0-9a-f]+$", description="a run id or unique prefix")


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
    done = next((e.data for e in events if isinstance(e.data, Done) and e.parent_id is None), None)
    result = done.result if done is not None and isinstance(done.result, dict) else None
    return RunView(run=run, briefing=result)


@router.get(
    "/v1/runs/{run_id}/events", response_model=RunEvents, responses=ERRORS, summary="A run's events in order"
)
async def get_run_events(request: Request, run_id: str = RunId) -> RunEvents:
    _services, run, events = await _run(request, run_id)
    return RunEvents(run_id=run.run_id, events=[e.to_dict() for e in events])
