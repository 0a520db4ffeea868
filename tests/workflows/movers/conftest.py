"""Fixtures for the movers analyzer's workflow tests: one open tool context on the snapshot and the
must-show dry run of 2025-08-29, run once per module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from movers_kit import DAY, MoversRun, run_movers

from findesk.core.config import Settings
from findesk.tools.base import ToolContext
from snapshot_kit import snapshot_settings, snapshot_tools


@pytest.fixture(scope="module")
def movers_settings(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return snapshot_settings(snapshot_dir, tmp_path_factory, "movers")


@pytest.fixture(scope="module")
def movers_tools(movers_settings: Settings) -> Iterator[ToolContext]:
    yield from snapshot_tools(movers_settings, DAY)


@pytest.fixture(scope="module")
def movers_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("movers-out")


@pytest.fixture(scope="module")
def dry_run(movers_settings: Settings, movers_tools: ToolContext, movers_out: Path) -> MoversRun:
    return run_movers(movers_settings, movers_tools, {"date": DAY, "dry_run": True, "out": str(movers_out)})
