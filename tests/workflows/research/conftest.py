"""One open tool context for the research desk's workflow tests (the snapshot at 2025-08-29), and a
helper that runs the desk as a user would: a question in, the report and the run's events out."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from findesk.core.config import Settings
from findesk.core.events.model import Event
from findesk.core.events.trace import MemorySink
from findesk.core.result import Err
from findesk.data.context import resolve_context
from findesk.tools.base import ToolContext
from findesk.workflows.research.models import ResearchReport
from findesk.workflows.research.spec import SPEC
from findesk.workflows.runner import run_workflow
from snapshot_kit import snapshot_tools

AS_OF = "2025-08-29"


@pytest.fixture(scope="module")
def desk_settings(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    state = tmp_path_factory.mktemp("desk-state")
    return Settings(
        snapshot_dir=snapshot_dir, cache_dir=tmp_path_factory.mktemp("desk-cache"), state_dir=state, chains={}
    )


@pytest.fixture(scope="module")
def desk_tools(desk_settings: Settings) -> Iterator[ToolContext]:
    yield from snapshot_tools(desk_settings, AS_OF)


def ask(
    settings: Settings, tools: ToolContext, question: str, *, as_of: str = AS_OF, **inputs: Any
) -> tuple[ResearchReport | Err, list[Event]]:
    """The desk's answer (or its refusal) and every event of the run."""
    context = resolve_context(settings, mode="snapshot", as_of=as_of)
    assert not isinstance(context, Err), context
    sink = MemorySink()
    mode = inputs.pop("mode", "deterministic")
    models = inputs.pop("models", None)
    done = asyncio.run(
        run_workflow(
            SPEC,
            {"question": question, **inputs},
            settings=settings,
            context=context.value,
            sinks=[sink],
            mode=mode,
            models=models,
            tools=tools,
        )
    )
    if isinstance(done, Err):
        return done, sink.events
    return done.value.report, sink.events
