"""The API's request and response bodies (what OpenAPI documents)."""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from findesk.core.events.audit import RunSummary
from findesk.guardrails.advice import MAX_INPUT_CHARS


class BriefRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"ticker": "AAPL", "as_of": "2025-08-29"}]},
    )

    ticker: str = Field(min_length=1, max_length=MAX_INPUT_CHARS, description="US ticker, e.g. AAPL")
    as_of: date | None = Field(None, description="point-in-time date; default: the snapshot's as-of date")
    question: str | None = Field(
        None, max_length=MAX_INPUT_CHARS, description="what the client asked (no advice is given)"
    )
    mode: Literal["auto", "deterministic", "model"] = "auto"


class RunRequest(BaseModel):
    """The body of ``POST /v1/runs/{workflow}``: the workflow's input (its ``input_schema`` in
    ``GET /v1/workflows``), the point-in-time date and the mode."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"input": {"ticker": "AAPL"}, "as_of": "2025-08-29"}]},
    )

    input: dict[str, Any] = Field(
        default_factory=dict, description="the workflow's input, checked against its input_schema"
    )
    as_of: date | None = Field(None, description="point-in-time date; default: the snapshot's as-of date")
    mode: Literal["auto", "deterministic", "model"] = "auto"


class SectionInfo(BaseModel):
    name: str
    title: str


class WorkflowInfo(BaseModel):
    """One runnable workflow or agent, as ``GET /v1/workflows`` lists it."""

    name: str = Field(description="the name in POST /v1/runs/{workflow}, e.g. brief or agents.quote_filings")
    title: str
    description: str
    kind: str = Field(description="workflow, or agent (a one-node workflow around one role)")
    input_schema: dict[str, Any] = Field(description="JSON schema of the body's input")
    sections: list[SectionInfo] = Field(description="the sections the run streams, in order")


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorBody(BaseModel):
    error: ErrorDetail


class RunView(BaseModel):
    run: RunSummary
    workflow: str | None = Field(None, description="the workflow run (its opening event's agent)")
    result: dict[str, Any] | None = Field(None, description="the done event's result, when the run is done")
    briefing: dict[str, Any] | None = Field(
        None, description="the same result when the workflow is brief (kept for older clients)"
    )


class RunEvents(BaseModel):
    run_id: str
    events: list[dict[str, Any]]


class Health(BaseModel):
    status: Literal["ok", "degraded"]
    version: str
    data: str  # "offline snapshot as of 2025-08-29" / "live"
    audit_log: str
    keys_required: bool
    runs_in_progress: int
    problems: list[str] = Field(default_factory=list)


ERRORS: dict[int | str, dict[str, Any]] = {
    400: {
        "model": ErrorBody,
        "description": "malformed JSON, a field over 2,000 characters, input the workflow refuses "
        "(e.g. a non-US ticker, an advice request)",
    },
    401: {"model": ErrorBody, "description": "missing, unknown or revoked API key"},
    404: {"model": ErrorBody, "description": "unknown workflow or run"},
    429: {"model": ErrorBody, "description": "rate limit or daily cost cap reached (see Retry-After)"},
}
