"""``GET /v1/workflows``: every workflow and agent this server runs, from the registry of specs.

Rules:
- The list is generated from ``workflows.registry`` (built-ins, plug-ins from ``FINDESK_WORKFLOWS``, then
  every agent role as ``agents.<role>``), so a new spec is listed, and runnable through
  ``POST /v1/runs/{workflow}``, with no change here.
- Each entry carries what a client needs to build a form and a view: the input model's JSON schema,
  the streamed sections in order, and the formats a finished run can be read in (``json`` always, plus
  the spec's renderers; ``html`` means ``GET /v1/runs/{run_id}/report.html`` serves its report).
  A plug-in that cannot be loaded is a JSON error naming it, never a silently shorter list.
- Like ``/v1/events/registry`` it describes the server, not anyone's data: no key needed.
- The list is built once per set of plug-ins (JSON schemas of every input model cost tens of
  milliseconds) and kept for the process; a failed build is never kept.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from fastapi import APIRouter

from findesk.core.result import Err, Ok, Result
from findesk.interfaces.api.errors import ApiError
from findesk.interfaces.api.schemas import ErrorBody, SectionInfo, WorkflowInfo
from findesk.workflows import registry

router = APIRouter(tags=["workflows"])
JSON = "json"  # every run's result, GET /v1/runs/{run_id}
HTML = "html"  # the renderer GET /v1/runs/{run_id}/report.html uses
_BUILT: dict[str, list[WorkflowInfo]] = {}  # by the value of FINDESK_WORKFLOWS


def report_formats(spec: Any) -> list[str]:
    """The formats a finished run of ``spec`` can be read in: JSON, then its renderers in its order."""
    return [JSON, *(name for name in spec.renderers if name != JSON)]


def _info(spec: Any) -> WorkflowInfo:
    return WorkflowInfo(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        kind=spec.kind,
        input_schema=spec.remote_schema(),
        sections=[SectionInfo(name=name, title=title) for name, title in spec.sections],
        formats=report_formats(spec),
    )


def listing() -> Result[list[WorkflowInfo]]:
    """Every registered workflow, then every agent, each loaded from the registry."""
    plugins = os.environ.get(registry.PLUGINS_ENV, "")
    built = _BUILT.get(plugins)
    if built is not None:
        return Ok(built)
    known = registry.entries()
    if isinstance(known, Err):
        return known
    names = [*known.value, *(registry.AGENT_PREFIX + role for role in registry.agent_names())]
    out = []
    for name in names:
        spec = registry.load(name)
        if isinstance(spec, Err):
            return spec
        out.append(_info(spec.value))
    _BUILT[plugins] = out
    return Ok(out)


@router.get(
    "/v1/workflows",
    response_model=list[WorkflowInfo],
    responses={503: {"model": ErrorBody, "description": "a plug-in workflow cannot be loaded"}},
    summary="Every workflow and agent, with its input schema and streamed sections",
)
async def list_workflows() -> list[WorkflowInfo]:
    # the first call imports every spec (LangGraph and the roles): off the event loop
    found = await asyncio.to_thread(listing)
    if isinstance(found, Err):
        raise ApiError.of(found)
    return found.value
