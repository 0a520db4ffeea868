"""Quote basis, the 52-week range and concurrent reads of the snapshot price store (issue 12: 8, 17).

Figures are checked against the raw snapshot files read here with pyarrow, not through the store.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.vendors.snapshot import price_tables
from findesk.data.vendors.snapshot import prices as prices_module
from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.price_tables import MOVERS
from findesk.data.vendors.snapshot.prices import PriceStore


@pytest.fixture(scope="module")
def store(snapshot_dir: Path) -> PriceStore:
    return PriceStore(SnapshotFiles(snapshot_dir))


def _raw_closes(snapshot_dir: Path, symbol: str, first: date, last: date) -> list[tuple[date, float]]:
    table = pq.read_table(snapshot_dir / MOVERS, columns=["date", "symbol", "close"])
    table = table.filter(pc.equal(table["symbol"].cast("string"), symbol))
    rows = [
        (date.fromisoformat(str(d)), float(c))
        for d, c in zip(table["date"].to_pylist(), table["close"].to_pylist(), strict=True)
    ]
    return sorted((d, c) for d, c in rows if first < d <= last)


def test_a_date_before_as_traded_data_gets_an_adjusted_quote_that_says_so(store: PriceStore) -> None:
    got = store.quote("TSLA", date(2022, 1, 21))
    assert isinstance(got, Ok)
    q = got.value
    assert q.basis == "adjusted"
    assert q.as_traded_from == date(2024, 1, 2)
    assert any("not as traded" in n and "start 2024-01-02" in n for n in q.notes)


def test_a_quote_before_2021_comes_from_the_long_history_file(store: PriceStore) -> None:
    # the volume check of the same run reads long_history; the quote must not claim data starts 2021
    got = store.quote("AAPL", date(2020, 4, 24))
    assert isinstance(got, Ok), got
    assert got.value.session_date == date(2020, 4, 24)
    assert got.value.source.ref.endswith("long_history/AAPL.csv")
    assert got.value.basis == "adjusted"


def test_no_price_before_every_file_is_no_data(store: PriceStore) -> None:
    got = store.quote("AAPL", date(2004, 1, 2))
    assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA
    assert "2021-01-04" not in got.reason  # no longer the S&P panel's start: no file reaches back


@pytest.mark.parametrize("symbol", ["AAPL", "NVDA", "TSLA"])
def test_52_week_range_is_the_as_traded_closes_of_the_last_52_weeks(
    store: PriceStore, snapshot_dir: Path, symbol: str
) -> None:
    session = date(2025, 8, 29)
    got = store.quote(symbol, session)
    assert isinstance(got, Ok)
    r = got.value.range_52w
    assert r is not None
    raw = _raw_closes(snapshot_dir, symbol, session - timedelta(weeks=52), session)
    low, high = min(raw, key=lambda x: x[1]), max(raw, key=lambda x: x[1])
    assert (r.low, r.low_date, r.high, r.high_date) == (low[1], low[0], high[1], high[0])
    assert r.sessions == len(raw) and r.complete and r.basis == "as_traded"


def test_52_week_range_undoes_a_split_and_says_the_window_is_short(
    store: PriceStore, snapshot_dir: Path
) -> None:
    session = date(2024, 11, 15)
    got = store.quote("NVDA", session)
    assert isinstance(got, Ok)
    r = got.value.range_52w
    assert r is not None
    raw = _raw_closes(snapshot_dir, "NVDA", session - timedelta(weeks=52), session)
    # NVDA split 10:1 after 2024-06-07: earlier as-traded closes are divided by 10
    adjusted = [(d, c / 10 if d <= date(2024, 6, 7) else c) for d, c in raw]
    low = min(adjusted, key=lambda x: x[1])
    assert r.low == pytest.approx(low[1]) and r.low_date == low[0]
    assert r.split_adjusted and not r.complete
    assert r.start == date(2024, 1, 2)
    assert any("not the full 52 weeks" in n for n in r.notes)


# ---- defect 17: concurrent reads --------------------------------------------------------------


def _overlap_probe(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Wrap every pyarrow file read the store makes; record the most running at once."""
    state = {"now": 0, "most": 0}
    lock = threading.Lock()

    def probe(fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with lock:
                state["now"] += 1
                state["most"] = max(state["most"], state["now"])
            try:
                threading.Event().wait(0.05)  # widen the window a race needs
                return fn(*args, **kwargs)
            finally:
                with lock:
                    state["now"] -= 1

        return wrapped

    # both store modules use the same pyarrow.csv / pyarrow.parquet module objects: patch each once
    assert price_tables.pcsv is prices_module.pcsv and price_tables.pq is prices_module.pq
    monkeypatch.setattr(price_tables.pcsv, "read_csv", probe(price_tables.pcsv.read_csv))
    monkeypatch.setattr(price_tables.pq, "read_table", probe(price_tables.pq.read_table))
    return state


def test_many_concurrent_quotes_and_bars_on_a_cold_store_all_succeed(
    snapshot_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = _overlap_probe(monkeypatch)
    cold = PriceStore(SnapshotFiles(snapshot_dir))
    symbols = ["UNH", "AAPL", "NVDA", "TSLA", "MSFT", "SPY", "QQQ", "^VIX"]
    day = date(2024, 11, 15)

    async def burst() -> list[Any]:
        calls = []
        for s in symbols * 3:
            calls.append(asyncio.to_thread(cold.quote, s, day))
            calls.append(asyncio.to_thread(cold.bars, s, day - timedelta(days=70), day, day))
        return await asyncio.gather(*calls, return_exceptions=True)

    got = asyncio.run(burst())
    assert [g for g in got if not isinstance(g, Ok)] == []
    # the same answers as one at a time, and no two pyarrow reads ever ran at once
    warm = PriceStore(SnapshotFiles(snapshot_dir))
    first = {q.value.symbol: q.value for q in got[0::2][: len(symbols)] if isinstance(q, Ok)}
    assert all(warm.quote(s, day) == Ok(first[s]) for s in symbols)
    assert reads["most"] == 1
