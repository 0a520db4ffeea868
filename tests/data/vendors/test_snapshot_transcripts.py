"""Snapshot earnings-call transcripts: point in time by the call's own time."""

from __future__ import annotations

import asyncio
from datetime import date
from pathlib import Path

import pytest

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.router import DataRouter
from findesk.data.vendors.base import Category
from findesk.data.vendors.snapshot import SnapshotVendor


@pytest.fixture(scope="module")
def router(snapshot_dir: Path) -> DataRouter:
    return DataRouter({Category.TRANSCRIPTS: [SnapshotVendor(snapshot_dir)]})


def test_newest_nvda_call_at_the_default_date(router: DataRouter) -> None:
    got = asyncio.run(router.transcripts("NVDA", date(2025, 8, 29), 2))
    assert isinstance(got, Ok)
    newest, previous = got.value
    assert (newest.fiscal_year, newest.fiscal_quarter) == (2026, 2)
    assert newest.conference_at.isoformat() == "2025-08-27T17:00:00-04:00"
    assert "second quarter fiscal 2026" in newest.text
    assert newest.source.ref == "transcripts/NVDA/2026Q2_2025-08-27.txt"
    assert previous.conference_at.date() == date(2025, 5, 28)


def test_a_call_is_visible_from_its_own_day_not_before(router: DataRouter) -> None:
    same_day = asyncio.run(router.transcripts("NVDA", date(2025, 8, 27), 1))
    day_before = asyncio.run(router.transcripts("NVDA", date(2025, 8, 26), 1))
    assert isinstance(same_day, Ok) and same_day.value[0].conference_at.date() == date(2025, 8, 27)
    assert isinstance(day_before, Ok) and day_before.value[0].conference_at.date() == date(2025, 5, 28)


def test_googl_reads_alphabets_goog_calls(router: DataRouter) -> None:
    got = asyncio.run(router.transcripts("GOOGL", date(2025, 8, 29), 1))
    assert isinstance(got, Ok)
    assert got.value[0].ticker == "GOOGL" and got.value[0].source.ref.startswith("transcripts/GOOG/")


def test_listed_but_not_stored_and_unknown(router: DataRouter) -> None:
    wfc = asyncio.run(router.transcripts("WFC", date(2025, 8, 29), 1))
    assert isinstance(wfc, Err) and wfc.code is ErrorCode.NO_DATA and "without text" in wfc.reason
    before = asyncio.run(router.transcripts("NVDA", date(2023, 5, 1), 1))
    assert isinstance(before, Err) and before.code is ErrorCode.NO_DATA
    unknown = asyncio.run(router.transcripts("ZZZZ", date(2025, 8, 29), 1))
    assert isinstance(unknown, Err) and unknown.code is ErrorCode.NOT_FOUND
