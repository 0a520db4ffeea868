"""Where the tests find the recorded snapshot, and what happens when it is missing: a skip with a
clear reason on a developer's machine, a failure in CI (``CI`` set), where a run that skipped the 43 %
of the suite that reads the snapshot would otherwise still pass. And the one way a test opens the tool
context a run uses on that snapshot (``snapshot_tools``)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from findesk.core.config import Settings
from findesk.core.result import Err
from findesk.data.context import resolve_context
from findesk.tools.base import ToolContext
from findesk.tools.catalog import close_tool_context, open_tool_context

AS_OF = date(2025, 8, 29)

# the session's one folder of snapshot price and listing indexes (conftest's _shared_snapshot_indexes)
SHARED_INDEXES = "FINDESK_SNAPSHOT_INDEX_DIR"

MISSING = "the recorded snapshot (../shared/snapshot or FINDESK_SNAPSHOT_DIR) is not available"


def require_snapshot(root: Path | None, *, ci: bool) -> Path:
    if root is None:
        if ci:
            pytest.fail(f"{MISSING}; CI must run with the snapshot beside the checkout", pytrace=False)
        pytest.skip(MISSING)
    return root


def env_without_settings() -> dict[str, str]:
    """This process's environment less every ``FINDESK_*`` setting, for a ``findesk`` subprocess that is
    given its own; the session's shared snapshot index folder is kept (a rebuilt copy costs ~250 MB)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FINDESK_")}
    if SHARED_INDEXES in os.environ:
        env[SHARED_INDEXES] = os.environ[SHARED_INDEXES]
    return env


def snapshot_settings(snapshot_dir: Path, factory: pytest.TempPathFactory, name: str) -> Settings:
    """Settings on the snapshot with a cache and a state folder of their own (``<name>-cache``, ``…-state``)
    and the snapshot mode's vendor chains: what a module of workflow tests shares."""
    return Settings(
        snapshot_dir=snapshot_dir,
        cache_dir=factory.mktemp(f"{name}-cache"),
        state_dir=factory.mktemp(f"{name}-state"),
        chains={},
    )


def snapshot_tools(settings: Settings, as_of: date | str = AS_OF) -> Iterator[ToolContext]:
    """An open tool context on the snapshot at ``as_of``, closed after; ``yield from`` it in a fixture."""
    context = resolve_context(settings, mode="snapshot", as_of=as_of)
    assert not isinstance(context, Err), context
    opened = asyncio.run(open_tool_context(settings, context.value))
    assert not isinstance(opened, Err), opened
    yield opened.value
    asyncio.run(close_tool_context(opened.value))
