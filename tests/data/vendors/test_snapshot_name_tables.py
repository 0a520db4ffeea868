"""The snapshot's reference name tables the research router reads: the real lists load, and a missing
or damaged file is named instead of raising."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from findesk.data.vendors.snapshot.name_tables import COINS_LIST, load_name_tables
from findesk.data.vendors.snapshot.sec import TICKERS_CSV, TICKERS_JSON


def test_the_real_tables_load(snapshot_dir: Path, tmp_path: Path) -> None:
    tables = load_name_tables(snapshot_dir, tmp_path)
    assert tables.missing == ()
    assert tables.tickers["NVDA"] == "NVIDIA CORP"
    assert "SPY" in tables.etfs and "AAPL" not in tables.etfs
    assert ("bitcoin", "btc", "Bitcoin") in tables.coins
    assert len(tables.fred) == 49 and "metadata" not in tables.fred
    # the second process reads the cached tables: same content
    load_name_tables.cache_clear()
    assert load_name_tables(snapshot_dir, tmp_path) == tables


def test_no_snapshot_is_said_not_raised(tmp_path: Path) -> None:
    tables = load_name_tables(tmp_path / "absent", None)
    assert tables.tickers == {} and tables.missing == (f"snapshot directory ({tmp_path / 'absent'})",)


def test_missing_and_damaged_files_are_named(snapshot_dir: Path, tmp_path: Path) -> None:
    root = tmp_path / "snap"
    (root / "sec").mkdir(parents=True)
    (root / "crypto" / "coingecko").mkdir(parents=True)
    shutil.copy(snapshot_dir / TICKERS_JSON, root / TICKERS_JSON)
    (root / COINS_LIST).write_text(json.dumps({"status": {"error_code": 429}}), encoding="utf-8")
    tables = load_name_tables(root, None)
    assert tables.tickers["AAPL"] == "Apple Inc."  # the older JSON alone still gives tickers
    assert TICKERS_CSV in tables.missing
    assert any(m.startswith(COINS_LIST) for m in tables.missing)
    assert "fred/*.csv" in tables.missing
    assert tables.coins == ()
