"""``POST /v1/query``: one research-desk question streamed as server-sent events.

Rules:
- The body (``question``, ``as_of``, ``session``, ``disclaimer``, ``mode``) maps onto the workflow
  ``research`` and runs through the same code as ``POST /v1/runs/research`` (``run_stream``): the same
  event registry, keys, limits, cost caps and audit. The run is bound to the caller's key there, so
  sessions and stored facts are per key.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse

from findesk.interfaces.api.run_stream import STREAM_RESPONSES, stream_run
from findesk.interfaces.api.schemas import QueryRequest

router = APIRouter(tags=["research"])


@router.post(
    "/v1/query",
    summary="Ask the research desk, streamed as server-sent events",
    response_class=StreamingResponse,
    responses=STREAM_RESPONSES,
)
async def query(body: QueryRequest, request: Request) -> StreamingResponse:
    inputs = {"question": body.question, "session": body.session, "disclaimer": body.disclaimer}
    return await stream_run(request, "research", inputs, as_of=body.as_of, mode=body.mode)
