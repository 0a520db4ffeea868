"""``POST /v1/trade``: one trading-desk run (analysts, both debates, the decision) streamed as
server-sent events.

Rules:
- The body (``ticker``, ``date``, ``debate_rounds``, ``risk_rounds``, ``params``, ``as_of``, ``mode``;
  any other field is refused) maps onto the workflow ``trade`` and runs through the same code as
  ``POST /v1/runs/trade`` (``run_stream``): the same keys, limits, cost caps and audit. The workflow's
  input model checks the fields (rounds, the scoring ``params``), so both routes refuse the same body
  with the same message.
- Point in time: ``as_of`` defaults to the decision ``date``, so nothing after that day is read. The
  decision log and reflections are the caller's: the run is bound to its key, never to a body field.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from findesk.core.dates import IsoDate
from findesk.interfaces.api.run_stream import STREAM_RESPONSES, stream_run
from findesk.workflows.trading.models import MAX_ROUNDS

router = APIRouter(tags=["trade"])


class TradeRequest(BaseModel):
    """The body of ``POST /v1/trade``."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"ticker": "NVDA", "date": "2024-05-10"}]}
    )

    ticker: str = Field(description="US-listed company ticker, e.g. NVDA", min_length=1, max_length=16)
    date: IsoDate | None = Field(None, description="decision date, YYYY-MM-DD; default: the as-of date")
    debate_rounds: int = Field(2, ge=1, le=MAX_ROUNDS, description="bull/bear rounds (each side once)")
    risk_rounds: int = Field(2, ge=1, le=MAX_ROUNDS, description="risk debate rounds (each analyst once)")
    params: dict[str, Any] | None = Field(
        None,
        description="scoring thresholds (blocks stance, decision, plan, risk); default: the documented ones",
    )
    as_of: IsoDate | None = Field(
        None, description="point-in-time date, YYYY-MM-DD; default: the decision date"
    )
    mode: Literal["auto", "deterministic", "model"] = "auto"


@router.post(
    "/v1/trade",
    summary="Run the trading desk on one stock and date, streamed as server-sent events",
    response_class=StreamingResponse,
    responses=STREAM_RESPONSES,
)
async def trade(body: TradeRequest, request: Request) -> StreamingResponse:
    inputs: dict[str, Any] = {
        "ticker": body.ticker,
        "date": body.date,
        "debate_rounds": body.debate_rounds,
        "risk_rounds": body.risk_rounds,
        "params": body.params,
    }
    as_of = body.as_of if body.as_of is not None else body.date
    return await stream_run(request, "trade", inputs, as_of=as_of, mode=body.mode)
