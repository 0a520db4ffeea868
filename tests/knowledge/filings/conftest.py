"""Fixtures for the filing-section tests (the fake source lives in ``filings_fakes``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from filings_fakes import SnapshotFilings


@pytest.fixture
def snapshot_filings(snapshot_dir: Path) -> SnapshotFilings:
    return SnapshotFilings(snapshot_dir)
