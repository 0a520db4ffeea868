"""Fixtures for the briefing tests: one tool context on the real snapshot, and a runner.

Rules: the router is opened once per session (a cold snapshot load takes seconds) and reused by every
briefing, as a server would; ``brief_run(symbol, …)`` runs a briefing with optional tool overrides
(a failing or planted tool replaces the real one by name) and returns the briefing and its events.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path

import pytest
from brief_kit import BriefResult, BriefRun, registry_with

from findesk.agents.runtime import ModelResolver
from findesk.core.config import Settings
from findesk.core.events import MemorySink
from findesk.core.result import Err
from findesk.data.context import resolve_context
from findesk.tools.base import Tool, ToolContext
from findesk.workflows.brief.run import run_briefing
from snapshot_kit import snapshot_tools

AS_OF = date(2025, 8, 29)


@pytest.fixture(scope="session")
def brief_settings(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return Settings(snapshot_dir=snapshot_dir, cache_dir=tmp_path_factory.mktemp("brief-cache"), chains={})


@pytest.fixture(scope="session")
def brief_tools(brief_settings: Settings) -> Iterator[ToolContext]:
    yield from snapshot_tools(brief_settings, AS_OF)


@pytest.fixture(scope="session")
def brief_run(brief_settings: Settings, brief_tools: ToolContext) -> BriefRun:
    def run(
        symbol: str,
        *,
        at: date = AS_OF,
        question: str | None = None,
        overrides: dict[str, Callable[[Tool], Tool]] | None = None,
        models: ModelResolver | None = None,
        mode: str = "auto",
    ) -> BriefResult:
        context = resolve_context(brief_settings, mode="snapshot", as_of=at)
        assert not isinstance(context, Err), context
        sink = MemorySink()
        result = asyncio.run(
            run_briefing(
                symbol,
                settings=brief_settings,
                context=context.value,
                question=question,
                sinks=[sink],
                mode=mode,  # type: ignore[arg-type]
                models=models,
                registry=registry_with(overrides or {}),
                tools=brief_tools,
            )
        )
        return BriefResult(result, sink)

    return run
