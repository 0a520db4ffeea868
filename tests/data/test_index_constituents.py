"""The S&P 500 constituents through the router, on the real snapshot: the latest list dated on or
before the as-of date (never a later one), every member with its GICS sector and sub-industry as the
list writes them, share classes written as findesk writes them, and no list dated by then is
``no_data`` naming the earliest list."""

from __future__ import annotations

import asyncio
import csv
from datetime import date
from pathlib import Path

import pytest

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.models.market_scan import IndexConstituents
from findesk.data.router import DataRouter
from findesk.data.vendors.base import Category
from findesk.data.vendors.snapshot import SnapshotVendor

LISTS = "reference/sp500_constituents/constituents_{}.csv"


@pytest.fixture(scope="module")
def router(snapshot_dir: Path) -> DataRouter:
    return DataRouter({Category.FUNDAMENTALS: [SnapshotVendor(snapshot_dir)]})


def _constituents(router: DataRouter, as_of: date) -> IndexConstituents:
    got = asyncio.run(router.index_constituents(as_of))
    assert isinstance(got, Ok), got
    return got.value


def _file(root: Path, day: str) -> list[dict[str, str]]:
    with (root / LISTS.format(day)).open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_at_the_default_date_it_is_the_august_2025_list(router: DataRouter, snapshot_dir: Path) -> None:
    got = _constituents(router, date(2025, 8, 29))
    assert got.list_date == date(2025, 8, 12)
    assert got.source.ref == LISTS.format("2025-08-12")
    rows = _file(snapshot_dir, "2025-08-12")
    assert len(got.members) == len(rows) == 503
    for member, row in zip(got.members, rows, strict=True):
        assert member.ticker == row["Symbol"].replace(".", "-")
        assert (member.name, member.sector, member.sub_industry) == (
            row["Security"],
            row["GICS Sector"],
            row["GICS Sub-Industry"],
        )
    assert len({m.sector for m in got.members}) == 11  # the GICS sectors
    nvda = next(m for m in got.members if m.ticker == "NVDA")
    assert (nvda.sector, nvda.sub_industry) == ("Information Technology", "Semiconductors")
    assert {"BRK-B", "BF-B"} <= {m.ticker for m in got.members}


def test_in_may_2024_it_is_the_december_2023_list_without_later_members(router: DataRouter) -> None:
    got = _constituents(router, date(2024, 5, 10))
    assert got.list_date == date(2023, 12, 31)
    tickers = {m.ticker for m in got.members}
    assert "PLTR" not in tickers and "PLTR" in {
        m.ticker for m in _constituents(router, date(2025, 8, 29)).members
    }
    assert all(m.date_added is None or m.date_added <= got.list_date for m in got.members)
    assert "index changes after that date are not in it" in (got.source.note or "")


def test_the_list_date_itself_uses_that_list(router: DataRouter) -> None:
    assert _constituents(router, date(2024, 12, 27)).list_date == date(2024, 12, 27)
    assert _constituents(router, date(2024, 12, 26)).list_date == date(2023, 12, 31)


def test_before_the_first_list_is_no_data_naming_it(router: DataRouter) -> None:
    got = asyncio.run(router.index_constituents(date(2023, 6, 30)))
    assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA
    assert "2023-12-31" in got.reason and "Do not estimate" in got.reason
