"""The snapshot's price and listing indexes (``snapshot_index_dir``): by default each cache folder
builds its own under ``<cache_dir>/snapshot``; with the setting, servers and processes with different
cache folders share one copy, built once, and answer exactly as with their own."""

from __future__ import annotations

import asyncio
from datetime import date
from pathlib import Path
from typing import Any

from findesk.core.config import Settings
from findesk.core.result import Err, Ok
from findesk.data.context import resolve_context
from findesk.data.registry import build_router

INDEXES = ("price-index", "listed-index")


def _answers(settings: Settings) -> tuple[Any, Any]:
    """AAPL's August bars (the price index) and the listed session of 2025-08-29 (the listing index)."""
    context = resolve_context(settings, mode="snapshot", as_of="2025-08-29")
    assert not isinstance(context, Err), context
    router = build_router(settings, context.value)
    assert not isinstance(router, Err), router
    day, end = date(2025, 8, 1), date(2025, 8, 29)
    bars = asyncio.run(router.value.bars("AAPL", day, end, end))
    listed = asyncio.run(router.value.listed_session(end, end))
    asyncio.run(router.value.aclose())
    assert isinstance(bars, Ok) and isinstance(listed, Ok), (bars, listed)
    return [(b.date, b.close) for b in bars.value.bars], (listed.value.symbols, listed.value.close.tolist())


def _files(folder: Path) -> dict[str, int]:
    """Every file under ``folder`` with its modification time: a rebuilt index changes both."""
    return {p.relative_to(folder).as_posix(): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


def test_by_default_each_cache_folder_keeps_its_own_indexes(snapshot_dir: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _answers(Settings(snapshot_dir=snapshot_dir, cache_dir=cache, snapshot_index_dir=None, chains={}))
    for name in INDEXES:
        saved = list((cache / "snapshot" / name).glob("*/col.date.npy"))
        assert saved, f"no {name} under the cache folder"


def test_two_cache_folders_share_one_index_folder_built_once(snapshot_dir: Path, tmp_path: Path) -> None:
    shared = tmp_path / "indexes"
    first = Settings(
        snapshot_dir=snapshot_dir, cache_dir=tmp_path / "a", snapshot_index_dir=shared, chains={}
    )
    second = first.model_copy(update={"cache_dir": tmp_path / "b"})
    expected = _answers(first)
    built = _files(shared)
    assert {path.split("/")[0] for path in built} == set(INDEXES)
    assert _answers(second) == expected  # the same figures from the shared copy
    assert _files(shared) == built  # nothing rebuilt, nothing added
    for cache in (tmp_path / "a", tmp_path / "b"):  # and no private copies
        assert not any((cache / "snapshot" / name).exists() for name in INDEXES)


def test_an_unwritable_index_folder_still_answers_the_same(snapshot_dir: Path, tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    expected = _answers(
        Settings(snapshot_dir=snapshot_dir, cache_dir=tmp_path / "a", snapshot_index_dir=None)
    )
    got = _answers(Settings(snapshot_dir=snapshot_dir, cache_dir=tmp_path / "b", snapshot_index_dir=blocked))
    assert got == expected  # built in memory instead: derived data is never an error
    assert blocked.read_text() == "not a folder"


class _Payload:
    """What a planted pickle would run on load: it leaves a file behind."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.write_text, (self.marker, "ran"))


def test_a_pickle_planted_in_a_shared_index_folder_is_never_run(snapshot_dir: Path, tmp_path: Path) -> None:
    import numpy as np

    shared = tmp_path / "indexes"
    settings = Settings(snapshot_dir=snapshot_dir, cache_dir=tmp_path / "a", snapshot_index_dir=shared)
    expected = _answers(settings)
    marker = tmp_path / "payload-ran"
    planted = list(shared.rglob("col.close.npy"))
    assert planted
    for path in planted:  # another user of the folder swaps a column for an object array
        np.save(path, np.array([_Payload(marker)], dtype=object), allow_pickle=True)
    got = _answers(settings.model_copy(update={"cache_dir": tmp_path / "b"}))
    assert not marker.exists()  # numpy refuses pickles: the copy counts as damaged and is rebuilt
    assert got == expected
