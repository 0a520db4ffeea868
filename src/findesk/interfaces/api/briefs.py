"""``POST /v1/brief``: one advisor briefing streamed as server-sent events.

Rules:
- Kept for clients of the first API: the body (``ticker``, ``as_of``, ``question``, ``mode``) maps onto
  the workflow ``brief`` and runs through the same code as ``POST /v1/runs/brief`` (``run_stream``), so
  refusals, framing, audit, metrics and cost accounting are the same.
- A field over 2,000 characters or an unknown field is refused by the body's schema (400) before the
  workflow's own input check runs.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse

from findesk.interfaces.api.run_stream import STREAM_RESPONSES, stream_run
from findesk.interfaces.api.schemas import BriefRequest

router = APIRouter(tags=["briefing"])


@router.post(
    "/v1/brief",
    summary="Run an advisor briefing, streamed as server-sent events",
    response_class=StreamingResponse,
    responses=STREAM_RESPONSES,
)
async def brief(body: BriefRequest, request: Request) -> StreamingResponse:
    inputs = {"ticker": body.ticker, "question": body.question}
    return await stream_run(request, "brief", inputs, as_of=body.as_of, mode=body.mode)
