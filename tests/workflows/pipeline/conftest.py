"""Fixtures for the pipeline's tests: settings with a temporary state folder (its audit log and the desk's
decision log) and one open tool context on the snapshot at 2025-08-29."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from findesk.core.config import Settings
from findesk.tools.base import ToolContext
from snapshot_kit import snapshot_settings, snapshot_tools

DAY = "2025-08-29"


@pytest.fixture(scope="module")
def pipe_settings(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return snapshot_settings(snapshot_dir, tmp_path_factory, "pipe")


@pytest.fixture(scope="module")
def pipe_tools(pipe_settings: Settings) -> Iterator[ToolContext]:
    yield from snapshot_tools(pipe_settings, DAY)
