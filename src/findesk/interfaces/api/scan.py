"""``POST /v1/scan`` and ``POST /v1/pipeline``: the market scanner, and scan to trade, streamed as
server-sent events.

Rules:
- ``/v1/scan``'s body (``date``, ``as_of``, ``mode``; any other field is refused) maps onto the workflow
  ``scan``; ``/v1/pipeline``'s (``date``, ``top``, ``as_of``, ``mode``) onto ``pipeline``. Both run
  through the same code as ``POST /v1/runs/{workflow}`` (``run_stream``): the same keys, limits, cost
  caps and audit; each phase streams as a ``section`` event as it lands.
- Point in time: ``as_of`` defaults to ``date``, so nothing after that day is read. The pipeline's desk
  runs write the caller's decision log: the run is bound to its key, never to a body field.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from findesk.core.dates import IsoDate
from findesk.interfaces.api.run_stream import STREAM_RESPONSES, stream_run
from findesk.workflows.pipeline.models import MAX_TOP

router = APIRouter(tags=["scan"])


class ScanRequest(BaseModel):
    """The body of ``POST /v1/scan``."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"date": "2025-08-29"}]})

    date: IsoDate | None = Field(None, description="scan date, YYYY-MM-DD; default: the as-of date")
    as_of: IsoDate | None = Field(None, description="point-in-time date, YYYY-MM-DD; default: the scan date")
    mode: Literal["auto", "deterministic", "model"] = "auto"


class PipelineRequest(ScanRequest):
    """The body of ``POST /v1/pipeline``."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"date": "2025-08-29", "top": 2}]}
    )

    top: int = Field(3, ge=1, le=MAX_TOP, description="candidates sent to the trading desk (1-5)")


@router.post(
    "/v1/scan",
    summary="Scan the market on one date (phases, synthesis, stocks to investigate), as server-sent events",
    response_class=StreamingResponse,
    responses=STREAM_RESPONSES,
)
async def scan(body: ScanRequest, request: Request) -> StreamingResponse:
    inputs: dict[str, Any] = {"date": body.date}
    as_of = body.as_of if body.as_of is not None else body.date
    return await stream_run(request, "scan", inputs, as_of=as_of, mode=body.mode)


@router.post(
    "/v1/pipeline",
    summary="Scan, then run the trading desk on the top N picks under one budget, as server-sent events",
    response_class=StreamingResponse,
    responses=STREAM_RESPONSES,
)
async def pipeline(body: PipelineRequest, request: Request) -> StreamingResponse:
    inputs: dict[str, Any] = {"date": body.date, "top": body.top}
    as_of = body.as_of if body.as_of is not None else body.date
    return await stream_run(request, "pipeline", inputs, as_of=as_of, mode=body.mode)
