"""``POST /v1/etf-weekly``: one weekly ETF analyst run streamed as server-sent events.

Rules:
- The body (``week_ending``, ``strategy``, ``as_of``, ``mode``) maps onto the workflow ``etf-weekly``
  and runs through the same code as ``POST /v1/runs/etf-weekly`` (``run_stream``): the same keys,
  limits, cost caps and audit. A request names no file or folder: the strategy travels in the body and
  the server writes the run folder under its own state folder.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from findesk.core.dates import IsoDate
from findesk.interfaces.api.run_stream import STREAM_RESPONSES, stream_run

router = APIRouter(tags=["etf-weekly"])


class EtfWeeklyRequest(BaseModel):
    """The body of ``POST /v1/etf-weekly``."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"week_ending": "2025-05-16"}]})

    week_ending: IsoDate | None = Field(
        None, description="the week's last day, YYYY-MM-DD; default: the as-of date"
    )
    strategy: dict[str, Any] | None = Field(
        None,
        description="strategy parameters (the blocks of strategy.yaml: prep, candidates, news, review …)",
    )
    as_of: IsoDate | None = Field(None, description="point-in-time date, YYYY-MM-DD; default: the snapshot's")
    mode: Literal["auto", "deterministic", "model"] = "auto"


@router.post(
    "/v1/etf-weekly",
    summary="Run the weekly ETF analyst, streamed as server-sent events",
    response_class=StreamingResponse,
    responses=STREAM_RESPONSES,
)
async def etf_weekly(body: EtfWeeklyRequest, request: Request) -> StreamingResponse:
    inputs: dict[str, Any] = {"week_ending": body.week_ending, "strategy": body.strategy}
    as_of = body.as_of if body.as_of is not None else body.week_ending
    return await stream_run(request, "etf-weekly", inputs, as_of=as_of, mode=body.mode)
