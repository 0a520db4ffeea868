"""Fixtures for the trading desk's workflow tests: one open tool context on the snapshot (its memory store
under a temporary state folder), and the four must-show runs, each run once per module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from trade_kit import CASES, NVDA_DAY, TradeRun, run_trade

from findesk.core.config import Settings
from findesk.tools.base import ToolContext
from snapshot_kit import snapshot_settings, snapshot_tools


@pytest.fixture(scope="module")
def trade_settings(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return snapshot_settings(snapshot_dir, tmp_path_factory, "trade")


@pytest.fixture(scope="module")
def trade_tools(trade_settings: Settings) -> Iterator[ToolContext]:
    yield from snapshot_tools(trade_settings, NVDA_DAY)


@pytest.fixture(scope="module")
def desk_runs(trade_settings: Settings, trade_tools: ToolContext) -> dict[str, TradeRun]:
    return {
        ticker: run_trade(trade_settings, trade_tools, {"ticker": ticker, "date": day}, user=f"u-{ticker}")
        for ticker, day in CASES
    }
