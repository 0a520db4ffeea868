"""Parsed snapshot stores kept on disk: same answers as a fresh parse, never stale, never a crash."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import threading
from datetime import date
from pathlib import Path

import pytest

from findesk.core.result import Ok
from findesk.data.vendors.snapshot import SnapshotVendor, store_cache
from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.prices import PriceStore
from findesk.data.vendors.snapshot.store_cache import Blobs
from findesk.data.vendors.snapshot.transcripts import EVENTS, PROVENANCE, TranscriptStore

AS_OF = date(2025, 8, 29)


def _answers(vendor: SnapshotVendor) -> list[object]:
    """What a briefing and the data commands ask the snapshot, over stores of every kind."""

    async def ask() -> list[object]:
        got: list[object] = []
        for symbol in ("AAPL", "NVDA", "GOOGL", "JPM", "SPY", "NOPE"):
            got += [
                await vendor.company(symbol, AS_OF),
                await vendor.quote(symbol, AS_OF),
                await vendor.filings(symbol, AS_OF, frozenset({"10-K", "8-K"}), 5),
                await vendor.news(symbol, AS_OF, 20),
                await vendor.reddit_posts(symbol, AS_OF, 20),
                await vendor.stocktwits_posts(symbol, date(2020, 4, 24), 5),
                await vendor.earnings_calendar(symbol, AS_OF),
                await vendor.facts(symbol, "EarningsPerShareDiluted", AS_OF),
                await vendor.facts(symbol, "Revnues", AS_OF),  # misspelt: not_found with close matches
            ]
        got.append(await vendor.news("AAPL", date(2019, 1, 2)))  # no_data naming every feed's dates
        return got

    return asyncio.run(ask())


def test_a_new_process_reads_the_saved_stores_and_answers_exactly_as_a_fresh_parse(
    snapshot_dir: Path, tmp_path: Path
) -> None:
    fresh = _answers(SnapshotVendor(snapshot_dir))  # no cache folder: everything parsed from the files
    assert _answers(SnapshotVendor(snapshot_dir, tmp_path)) == fresh  # parses and saves
    assert any((tmp_path / "stores").rglob("*.pickle"))
    again = _answers(SnapshotVendor(snapshot_dir, tmp_path))  # a new vendor: loads what was saved
    assert again == fresh
    assert [repr(a) for a in again] == [repr(f) for f in fresh]  # field order and types too
    assert sum(isinstance(a, Ok) for a in fresh) > 30


def _tiny_snapshot(snapshot_dir: Path, root: Path) -> None:
    (root / "transcripts").mkdir(parents=True)
    shutil.copy(snapshot_dir / PROVENANCE, root / PROVENANCE)
    lines = (snapshot_dir / EVENTS).read_text(encoding="utf-8").splitlines(keepends=True)
    keep = [lines[0], *(line for line in lines[1:] if ",AAPL," in line or line.startswith("AAPL,"))]
    (root / EVENTS).write_text("".join(keep), encoding="utf-8")


def _last_aapl_call(cache: Path, root: Path) -> date | None:
    got = TranscriptStore(SnapshotFiles(root, cache)).calendar("AAPL", AS_OF)
    assert isinstance(got, Ok), got
    return got.value.last_event.day if got.value.last_event else None


def test_an_edited_snapshot_file_is_parsed_again_never_served_from_the_old_copy(
    snapshot_dir: Path, tmp_path: Path
) -> None:
    root, cache = tmp_path / "snap", tmp_path / "cache"
    _tiny_snapshot(snapshot_dir, root)
    before = _last_aapl_call(cache, root)
    assert before is not None and before <= AS_OF
    assert _last_aapl_call(cache, root) == before  # served from the saved copy

    # drop AAPL's latest held call from the file: the next process must not see it any more
    text = (root / EVENTS).read_text(encoding="utf-8").splitlines(keepends=True)
    (root / EVENTS).write_text(
        "".join(line for line in text if before.isoformat() not in line), encoding="utf-8"
    )
    after = _last_aapl_call(cache, root)
    assert after is not None and after < before
    assert len(list((cache / "stores" / "earnings-events").glob("*.pickle"))) == 1  # the old entry went


def _source(tmp_path: Path) -> Path:
    source = tmp_path / "table.csv"
    source.write_text("a,b\n1,2\n")
    return source


def test_damaged_truncated_or_foreign_entries_are_rebuilt(tmp_path: Path) -> None:
    source, folder = _source(tmp_path), tmp_path / "cache"
    calls: list[int] = []

    def build() -> dict[str, int]:
        calls.append(1)
        return {"rows": 1}

    def get() -> dict[str, int]:
        return store_cache.load_or_build(folder, "table", [source], build, expect=dict)

    assert get() == {"rows": 1} and len(calls) == 1
    assert get() == {"rows": 1} and len(calls) == 1
    [entry] = folder.rglob("*.pickle")
    whole = entry.read_bytes()
    for damaged in (whole[: len(whole) // 2], whole[:-1] + bytes([whole[-1] ^ 0xFF]), b"", b"junk" * 10):
        entry.write_bytes(damaged)
        assert get() == {"rows": 1}
    assert len(calls) == 5
    # an entry of another type (e.g. written by an older layout) is not trusted
    assert store_cache.load_or_build(folder, "table", [source], lambda: ["x"], expect=list) == ["x"]


def test_a_changed_or_missing_source_or_changed_code_gives_another_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source, folder = _source(tmp_path), tmp_path / "cache"
    first = store_cache.entry_path(folder, "table", "", [source])
    assert first is not None
    source.write_text("a,b\n1,2\n3,4\n")
    assert store_cache.entry_path(folder, "table", "", [source]) != first
    assert store_cache.entry_path(folder, "table", "", [tmp_path / "gone.csv"]) != first
    assert store_cache.entry_path(folder, "table", "AAPL", [source]) != store_cache.entry_path(
        folder, "table", "MSFT", [source]
    )
    current = store_cache.entry_path(folder, "table", "", [source])
    monkeypatch.setattr(store_cache, "code_fingerprint", lambda: "an edited parser")
    assert store_cache.entry_path(folder, "table", "", [source]) != current
    monkeypatch.setattr(store_cache, "code_fingerprint", lambda: None)  # code not readable: no cache
    assert store_cache.entry_path(folder, "table", "", [source]) is None
    assert store_cache.load_or_build(folder, "table", [source], lambda: 7) == 7


def test_an_unusable_cache_folder_means_no_cache_not_an_error(tmp_path: Path) -> None:
    source = _source(tmp_path)
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder should be")
    assert store_cache.load_or_build(blocked, "table", [source], lambda: [1, 2]) == [1, 2]
    assert store_cache.load_or_build(None, "table", [source], lambda: [3]) == [3]


def test_processes_building_at_once_all_get_the_answer_and_leave_one_whole_entry(tmp_path: Path) -> None:
    source, folder = _source(tmp_path), tmp_path / "cache"
    start = threading.Barrier(8)
    got: list[object] = []

    def build() -> dict[str, list[int]]:
        return {"rows": list(range(50_000))}

    def worker() -> None:
        start.wait()
        got.append(store_cache.load_or_build(folder, "table", [source], build, expect=dict))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [build()] * 8
    files = [p.name for p in (folder / "table").iterdir()]
    assert len(files) == 1 and files[0].endswith(".pickle")  # no temporary file left behind
    assert store_cache.load_or_build(folder, "table", [source], lambda: {}, expect=dict) == build()


def test_blobs_unpickle_only_what_is_asked_and_keep_order() -> None:
    import pickle

    blobs = Blobs({"b": [2], "a": [1], "none": None})
    back: Blobs[list[int] | None] = pickle.loads(pickle.dumps(blobs))
    assert list(back) == ["b", "a", "none"] and len(back) == 3
    assert back._values == {}  # nothing unpickled yet
    assert back.get("a") == [1] and list(back._values) == ["a"]
    assert back.get("missing") is None and "missing" not in back and "b" in back
    assert back.get("none") is None and "none" in back
    assert list(back.items()) == [("b", [2]), ("a", [1]), ("none", None)]


def test_after_a_code_change_a_write_removes_what_the_old_code_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source, folder = _source(tmp_path), tmp_path / "cache"
    monkeypatch.setattr(store_cache, "code_fingerprint", lambda: "0" * 40)
    for variant in ("AAPL", "MSFT", "BRK-B"):
        store_cache.load_or_build(folder, "facts", [source], lambda: 1, variant=variant)
    assert len(list((folder / "facts").iterdir())) == 3
    monkeypatch.setattr(store_cache, "code_fingerprint", lambda: "1" * 40)  # an edited parser
    assert store_cache.load_or_build(folder, "facts", [source], lambda: 2, variant="AAPL") == 2
    [left] = (folder / "facts").iterdir()
    assert left == store_cache.entry_path(folder, "facts", "AAPL", [source])


def test_a_process_whose_price_tables_are_saved_never_loads_pyarrow(
    snapshot_dir: Path, tmp_path: Path
) -> None:
    fresh = PriceStore(SnapshotFiles(snapshot_dir, tmp_path)).quote("AAPL", AS_OF)  # parses and saves
    assert isinstance(fresh, Ok)
    probe = (
        "import sys\nfrom pathlib import Path\nfrom datetime import date\n"
        "from findesk.data.vendors.snapshot.files import SnapshotFiles\n"
        "from findesk.data.vendors.snapshot.prices import PriceStore\n"
        f"store = PriceStore(SnapshotFiles(Path({str(snapshot_dir)!r}), Path({str(tmp_path)!r})))\n"
        "quote = store.quote('AAPL', date(2025, 8, 29)).unwrap()\n"
        "print(quote.model_dump_json())\nprint('pyarrow' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    dumped, loaded = out.stdout.strip().splitlines()[-2:]
    assert dumped == fresh.value.model_dump_json()  # the same quote, to the last note
    assert loaded == "False"
