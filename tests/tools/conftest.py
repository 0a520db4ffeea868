"""Fixtures for the data-tool tests: one tool context on the real snapshot for the whole session.

Rules: tools run through ``execute`` exactly as an agent's calls do; the router is built once (a cold
snapshot load takes seconds) and shared, and an earlier as-of date gets its own ``ToolContext`` over
the same router, since the as-of date lives in the context, not in the router.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from findesk.core.config import Settings
from findesk.tools.base import ToolContext, ToolOutcome, execute
from findesk.tools.catalog import default_registry
from snapshot_kit import snapshot_tools

AS_OF = date(2025, 8, 29)
Call = Callable[..., ToolOutcome]


@pytest.fixture(scope="session")
def tool_ctx(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ToolContext]:
    # Explicit settings: this session fixture is built before the per-test environment isolation.
    cache = tmp_path_factory.mktemp("tools-cache")
    yield from snapshot_tools(Settings(snapshot_dir=snapshot_dir, cache_dir=cache, chains={}), AS_OF)


@pytest.fixture(scope="session")
def call(tool_ctx: ToolContext) -> Call:
    """``call(name, at=None, **arguments)``: run one registered tool as an agent would, as of ``at``."""
    registry = default_registry()

    def run(name: str, at: date | None = None, **arguments: Any) -> ToolOutcome:
        ctx = tool_ctx
        if at is not None:
            context = tool_ctx.context.model_copy(update={"as_of": at, "as_of_is_default": False})
            ctx = ToolContext(router=tool_ctx.router, sections=tool_ctx.sections, context=context)
        return asyncio.run(execute(registry.get(name), name, arguments, ctx))

    return run
