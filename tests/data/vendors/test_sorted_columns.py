"""The persisted symbol index: reused across processes, rebuilt on any doubt, same answers."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

import numpy as np
import pytest

from findesk.core.result import Ok
from findesk.data.vendors.snapshot import sorted_columns
from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.prices import PriceStore
from findesk.data.vendors.snapshot.sorted_columns import SortedColumns


def _table() -> SortedColumns:
    names = ["BBB", "AAA"]
    codes = np.array([0, 1, 0, 1])
    dates = np.array(["2025-01-03", "2025-01-02", "2025-01-02", "2025-01-03"], dtype="datetime64[D]")
    close = np.array([4.0, 1.0, 3.0, 2.0])
    return SortedColumns.build(names, codes, dates, {"close": close}, {"sessions": np.unique(dates)})


def test_rows_are_grouped_by_symbol_and_sorted_by_date() -> None:
    table = _table()
    index = table.index()
    assert list(table.columns["close"][index["AAA"]]) == [1.0, 2.0]
    assert list(table.columns["close"][index["BBB"]]) == [3.0, 4.0]
    assert str(table.columns["date"][index["BBB"]][0]) == "2025-01-02"


def test_cached_builds_once_then_maps_the_saved_copy(tmp_path: Path) -> None:
    source = tmp_path / "prices.parquet"
    source.write_bytes(b"v1")
    calls: list[int] = []

    def build() -> SortedColumns:
        calls.append(1)
        return _table()

    first = sorted_columns.cached(tmp_path / "cache", source, build)
    second = sorted_columns.cached(tmp_path / "cache", source, build)
    assert len(calls) == 1
    assert second.names == first.names
    assert np.array_equal(second.columns["close"], first.columns["close"])
    assert np.array_equal(second.extras["sessions"], first.extras["sessions"])

    os.utime(source, ns=(1, 1))  # the source changed: the copy no longer applies
    sorted_columns.cached(tmp_path / "cache", source, build)
    assert len(calls) == 2


def test_damaged_or_unwritable_cache_means_rebuild(tmp_path: Path) -> None:
    source = tmp_path / "prices.parquet"
    source.write_bytes(b"v1")
    calls: list[int] = []

    def build() -> SortedColumns:
        calls.append(1)
        return _table()

    sorted_columns.cached(tmp_path / "cache", source, build)
    for npy in (tmp_path / "cache").rglob("bounds.npy"):
        npy.write_bytes(b"not numpy")
    again = sorted_columns.cached(tmp_path / "cache", source, build)
    assert len(calls) == 2 and again.names == ["BBB", "AAA"]

    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder should be")
    got = sorted_columns.cached(blocked, source, build)
    assert got.names == ["BBB", "AAA"]


def test_price_store_answers_the_same_with_a_cold_or_mapped_index(
    snapshot_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    day = date(2025, 8, 29)
    quotes = ("AAPL", "NVDA", "F", "SPY")
    series = ("MSFT", "XLK")

    def answers(store: PriceStore) -> list[object]:
        got: list[object] = [store.quote(s, day) for s in quotes]
        got += [store.bars(s, date(2025, 1, 1), day, day) for s in series]
        assert all(isinstance(g, Ok) for g in got)
        return got

    expected = answers(PriceStore(SnapshotFiles(snapshot_dir)))  # no cache: built in memory
    answers(PriceStore(SnapshotFiles(snapshot_dir, tmp_path)))  # builds and saves the index

    def no_rebuild(*args: object, **kwargs: object) -> SortedColumns:
        raise AssertionError("the index should have been mapped from the cache, not rebuilt")

    monkeypatch.setattr(sorted_columns.SortedColumns, "build", no_rebuild)
    assert answers(PriceStore(SnapshotFiles(snapshot_dir, tmp_path))) == expected
