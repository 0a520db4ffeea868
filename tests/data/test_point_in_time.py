"""Point in time: data planted after a date never changes an answer as of that date.

A temporary snapshot mirrors the real one (symlinks) with later prices, filings, 8-K events, XBRL
facts, posts, news and an earnings call planted into copies of the real files. Every earlier as-of
answer must equal the answer from the untouched snapshot; a later as-of must see the planted data
(so the plants work and the test can fail).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from findesk.core.result import Ok, Result
from findesk.data.router import DataRouter
from findesk.data.vendors.base import Category
from findesk.data.vendors.snapshot import SnapshotVendor
from findesk.knowledge.filings.sections import SectionService
from planting_kit import EARLIER, LATER, PLANTED, mirror, plant


@pytest.fixture(scope="module")
def routers(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[DataRouter, DataRouter]:
    planted_root = tmp_path_factory.mktemp("planted-snapshot")
    mirror(snapshot_dir, planted_root, PLANTED)
    plant(snapshot_dir, planted_root)

    def router(root: Path) -> DataRouter:
        vendor = SnapshotVendor(root)
        return DataRouter({cat: [vendor] for cat in Category})

    return router(snapshot_dir), router(planted_root)


Query = Callable[[DataRouter, SectionService, date], Coroutine[Any, Any, Result[Any]]]

QUERIES: dict[str, Query] = {
    "quote": lambda r, s, d: r.quote("AAPL", d),
    "bars": lambda r, s, d: r.bars("AAPL", date(2024, 6, 1), date(2025, 12, 31), d),
    "filings": lambda r, s, d: r.filings("AAPL", d, None, 200),
    "events": lambda r, s, d: r.material_events("AAPL", d, 50),
    "facts": lambda r, s, d: r.facts("AAPL", "Revenues", d),
    "section": lambda r, s, d: s.section("AAPL", "10-K", "1A", d),
    "reddit": lambda r, s, d: r.reddit_posts("AAPL", d, 1000),
    "news": lambda r, s, d: r.news("AAPL", d, 1000),
    "transcripts": lambda r, s, d: r.transcripts("AAPL", d, 50),
}


def _ask(router: DataRouter, cache: Path, query: Query, day: date) -> Result[Any]:
    return asyncio.run(query(router, SectionService(router, cache), day))


@pytest.mark.parametrize("day", EARLIER, ids=str)
@pytest.mark.parametrize("name", list(QUERIES))
def test_planted_later_data_never_changes_an_earlier_answer(
    routers: tuple[DataRouter, DataRouter], tmp_path: Path, name: str, day: date
) -> None:
    original, planted = routers
    before = _ask(original, tmp_path / "a", QUERIES[name], day)
    after = _ask(planted, tmp_path / "b", QUERIES[name], day)
    assert type(before) is type(after)
    if isinstance(before, Ok) and isinstance(after, Ok):
        assert before.value == after.value
    assert "PLANTED" not in repr(after) and "999.99" not in repr(after)


def test_stocktwits_planted_next_day_is_invisible(routers: tuple[DataRouter, DataRouter]) -> None:
    original, planted = routers
    day = date(2020, 4, 24)
    before = asyncio.run(original.stocktwits_posts("AAPL", day, 100))
    after = asyncio.run(planted.stocktwits_posts("AAPL", day, 100))
    assert isinstance(before, Ok) and isinstance(after, Ok) and before.value == after.value
    later = asyncio.run(planted.stocktwits_posts("AAPL", date(2020, 4, 25), 100))
    assert isinstance(later, Ok) and any("PLANTED" in p.text for p in later.value)


@pytest.mark.parametrize("name", list(QUERIES))
def test_plants_are_visible_later(routers: tuple[DataRouter, DataRouter], tmp_path: Path, name: str) -> None:
    """Control: the plants are real data to the vendor, so this test would catch a broken filter."""
    _, planted = routers
    got = _ask(planted, tmp_path, QUERIES[name], LATER)
    assert isinstance(got, Ok), got
    text = repr(got.value)
    assert "PLANTED" in text or "999.99" in text or "1.03" in text or "9990000000000" in text
