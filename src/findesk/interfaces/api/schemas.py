"""The API's request and response bodies (what OpenAPI documents).

Rules:
- A date in a request is an ISO day, ``YYYY-MM-DD`` (``IsoDate``): a number or a timestamp is refused,
  never read as a unix time.
- A run's ``input`` is nested at most ``MAX_INPUT_DEPTH`` levels (no workflow input is deeper than a few):
  a deeper one is refused as ``invalid_input`` before anything walks it.
- ``ERRORS`` documents every error status a route that reads a key, a body or the audit log can answer,
  each with the JSON error body; the server answers no status it does not document.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from findesk.core.dates import IsoDate
from findesk.core.events.audit import RunSummary
from findesk.guardrails.advice import MAX_INPUT_CHARS
from findesk.knowledge.memory.models import SESSION_PATTERN

MAX_INPUT_DEPTH = 16


class BriefRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"ticker": "AAPL", "as_of": "2025-08-29"}]},
    )

    ticker: str = Field(min_length=1, max_length=MAX_INPUT_CHARS, description="US ticker, e.g. AAPL")
    as_of: IsoDate | None = Field(
        None, description="point-in-time date, YYYY-MM-DD; default: the snapshot's as-of date"
    )
    question: str | None = Field(
        None, max_length=MAX_INPUT_CHARS, description="what the client asked (no advice is given)"
    )
    mode: Literal["auto", "deterministic", "model"] = "auto"


class QueryRequest(BaseModel):
    """The body of ``POST /v1/query``: one research-desk question (the workflow ``research``)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"question": "Compare NVDA and AAPL revenue over the last three quarters"}]
        },
    )

    question: str = Field(min_length=1, max_length=MAX_INPUT_CHARS, description="the research question")
    as_of: IsoDate | None = Field(
        None, description="point-in-time date, YYYY-MM-DD; default: the snapshot's as-of date"
    )
    session: str | None = Field(
        None,
        pattern=SESSION_PATTERN,
        description="session id: a follow-up resolves against this key's earlier questions in it",
    )
    disclaimer: bool = Field(True, description="append the disclaimer (false needs a team-tier key)")
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
    as_of: IsoDate | None = Field(
        None, description="point-in-time date, YYYY-MM-DD; default: the snapshot's as-of date"
    )
    mode: Literal["auto", "deterministic", "model"] = "auto"

    @field_validator("input")
    @classmethod
    def _shallow(cls, value: dict[str, Any]) -> dict[str, Any]:
        if _depth(value, MAX_INPUT_DEPTH + 1) > MAX_INPUT_DEPTH:
            raise PydanticCustomError(
                "too_deep", "nested more than {most} levels deep", {"most": MAX_INPUT_DEPTH}
            )
        return value


def _depth(value: Any, stop: int) -> int:
    """How deeply ``value`` nests lists and objects, counted no further than ``stop``; iterative, so a
    body nested thousands deep never meets the recursion limit."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            if level < stop:
                todo.extend(
                    (child, level + 1) for child in (item.values() if isinstance(item, dict) else item)
                )
    return deepest


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
    formats: list[str] = Field(
        default_factory=lambda: ["json"],
        description='what a finished run can be read as: "json" (GET /v1/runs/{run_id}) always, plus the '
        'workflow\'s renderers, e.g. "markdown" and "html" (GET /v1/runs/{run_id}/report.html)',
    )


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


class RunList(BaseModel):
    runs: list[RunSummary] = Field(description="the caller's runs, newest first")


class RunEvents(BaseModel):
    run_id: str
    events: list[dict[str, Any]]


class Health(BaseModel):
    """What an operator needs to know the server is sound, and nothing about where its files are."""

    status: Literal["ok", "degraded"]
    version: str
    data: str = Field(description='the data context, e.g. "offline snapshot as of 2025-08-29" or "live"')
    audit_log: Literal["sqlite", "postgresql"] = Field(
        description="the audit log's database kind (its location stays on the server)"
    )
    keys_required: bool
    runs_in_progress: int
    problems: list[str] = Field(
        default_factory=list, description="why the status is degraded (the data or the audit log failing)"
    )


ERRORS: dict[int | str, dict[str, Any]] = {
    400: {
        "model": ErrorBody,
        "description": "malformed or too deeply nested JSON, a field over 2,000 characters, a date not "
        "YYYY-MM-DD, input the workflow refuses (e.g. a non-US ticker, an advice request), a run id "
        "prefix that matches several of the caller's runs",
    },
    401: {"model": ErrorBody, "description": "missing, unknown or revoked API key"},
    404: {
        "model": ErrorBody,
        "description": "unknown workflow, or no such run for this caller (the same answer whether the run "
        "does not exist or belongs to another key)",
    },
    413: {"model": ErrorBody, "description": "request body over the size limit"},
    429: {"model": ErrorBody, "description": "rate limit or daily cost cap reached (see Retry-After)"},
    503: {"model": ErrorBody, "description": "the key store or audit database is unavailable"},
}
