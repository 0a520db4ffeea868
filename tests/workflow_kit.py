"""Running a workflow spec as a user would in a test: on the snapshot at an as-of date, through the one
runner, with its events kept. The workflow kits (``etf_kit``, ``trade_kit``) build on it."""

from __future__ import annotations

import asyncio
from typing import Any

from findesk.agents.runtime import ModelResolver
from findesk.core.config import Settings
from findesk.core.events.model import Event
from findesk.core.events.trace import MemorySink
from findesk.core.result import Err
from findesk.data.context import resolve_context
from findesk.tools.base import ToolContext
from findesk.workflows.runner import run_workflow
from findesk.workflows.spec import WorkflowSpec


def run_spec(
    spec: WorkflowSpec[Any, Any],
    settings: Settings,
    tools: ToolContext | None,
    inputs: dict[str, Any],
    *,
    as_of: str,
    mode: str = "deterministic",
    models: ModelResolver | None = None,
) -> tuple[Any, list[Event]]:
    """The run's report (or its ``Err``) and every event it emitted."""
    context = resolve_context(settings, mode="snapshot", as_of=as_of)
    assert not isinstance(context, Err), context
    sink = MemorySink()
    done = asyncio.run(
        run_workflow(
            spec,
            inputs,
            settings=settings,
            context=context.value,
            sinks=[sink],
            mode=mode,  # type: ignore[arg-type]
            models=models,
            tools=tools,
        )
    )
    return (done if isinstance(done, Err) else done.value.report), list(sink.events)
