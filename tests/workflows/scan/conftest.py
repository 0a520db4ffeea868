"""Fixtures for the scanner's workflow tests: one open tool context on the snapshot and the must-show
deterministic scan of 2025-08-29, run once per module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from scan_kit import DAY, ScanRun, run_scan

from findesk.core.config import Settings
from findesk.tools.base import ToolContext
from snapshot_kit import snapshot_settings, snapshot_tools


@pytest.fixture(scope="module")
def scan_settings(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return snapshot_settings(snapshot_dir, tmp_path_factory, "scan")


@pytest.fixture(scope="module")
def scan_tools(scan_settings: Settings) -> Iterator[ToolContext]:
    yield from snapshot_tools(scan_settings, DAY)


@pytest.fixture(scope="module")
def scan_run(scan_settings: Settings, scan_tools: ToolContext) -> ScanRun:
    return run_scan(scan_settings, scan_tools)
