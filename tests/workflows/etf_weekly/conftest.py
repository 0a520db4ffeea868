"""Fixtures for the weekly ETF analyst's workflow tests: one open tool context on the snapshot, and the
two weeks most tests read: the week ending 2025-05-23 under the default strategy (little news: the
protocol's week) and under the growth-sectors strategy (news in every sector). Runs write their folders
under a temporary directory; MLflow, when installed, logs there too."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from etf_kit import WEEK, WeeklyRun, growth_strategy, run_weekly

from findesk.core.config import Settings
from findesk.tools.base import ToolContext
from snapshot_kit import snapshot_settings, snapshot_tools


@pytest.fixture(scope="module")
def etf_settings(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return snapshot_settings(snapshot_dir, tmp_path_factory, "etf")


@pytest.fixture(scope="module")
def etf_tools(etf_settings: Settings) -> Iterator[ToolContext]:
    yield from snapshot_tools(etf_settings, WEEK)


@pytest.fixture(scope="module")
def default_week(
    etf_settings: Settings, etf_tools: ToolContext, tmp_path_factory: pytest.TempPathFactory
) -> WeeklyRun:
    out = tmp_path_factory.mktemp("default-runs")
    return run_weekly(etf_settings, etf_tools, {"week_ending": WEEK, "out": str(out)})


@pytest.fixture(scope="module")
def growth_week(
    etf_settings: Settings, etf_tools: ToolContext, tmp_path_factory: pytest.TempPathFactory
) -> WeeklyRun:
    out = tmp_path_factory.mktemp("growth-runs")
    strategy = growth_strategy().model_dump(mode="json")
    return run_weekly(etf_settings, etf_tools, {"week_ending": WEEK, "strategy": strategy, "out": str(out)})
