"""``POST /v1/movers``: the movers analyzer streamed as server-sent events.

Rules:
- The body (``date``, ``top``, ``sessions``, ``dry_run``, ``as_of``, ``mode``; any other field is refused)
  maps onto the workflow ``movers`` and runs through the same code as ``POST /v1/runs/movers``
  (``run_stream``): the same keys, limits, cost caps and audit.
- A remote caller names no recipient and no folder: the report goes to the server's ``[email] to``
  (or is written as .eml under the server's state folder on a dry run).
- Point in time: ``as_of`` defaults to ``date``, so nothing after that session is read.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from findesk.core.dates import IsoDate
from findesk.interfaces.api.run_stream import STREAM_RESPONSES, stream_run

router = APIRouter(tags=["movers"])


class MoversRequest(BaseModel):
    """The body of ``POST /v1/movers``."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"date": "2025-08-29", "dry_run": True}]}
    )

    date: IsoDate | None = Field(None, description="the session, YYYY-MM-DD; default: the as-of date")
    top: int = Field(5, ge=1, le=20, description="gainers listed (the first is analyzed)")
    sessions: int = Field(21, ge=5, le=252, description="history window in sessions")
    dry_run: bool = Field(True, description="write the email as .eml on the server instead of sending it")
    as_of: IsoDate | None = Field(None, description="point-in-time date, YYYY-MM-DD; default: the session")
    mode: Literal["auto", "deterministic", "model"] = "auto"


@router.post(
    "/v1/movers",
    summary="The session's top NASDAQ gainer analyzed (sandbox, chart, email), as server-sent events",
    response_class=StreamingResponse,
    responses=STREAM_RESPONSES,
)
async def movers(body: MoversRequest, request: Request) -> StreamingResponse:
    inputs: dict[str, Any] = {
        "date": body.date,
        "top": body.top,
        "sessions": body.sessions,
        "dry_run": body.dry_run,
    }
    as_of = body.as_of if body.as_of is not None else body.date
    return await stream_run(request, "movers", inputs, as_of=as_of, mode=body.mode)
