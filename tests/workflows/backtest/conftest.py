"""Fixtures for the backtester: one tool context on the real snapshot per module, state in a temporary
folder (the result cache never touches the user's)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from backtest_kit import open_tools, settings_for

from findesk.core.config import Settings
from findesk.tools.base import ToolContext


@pytest.fixture(scope="module")
def bt_settings(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return settings_for(snapshot_dir, tmp_path_factory.mktemp("bt"))


@pytest.fixture(scope="module")
def bt_tools(bt_settings: Settings) -> Iterator[ToolContext]:
    yield from open_tools(bt_settings)
