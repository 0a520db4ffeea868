"""One session of every US-listed stock through the router, on the real snapshot: the rows are the
table's own for that session (checked against an independent pyarrow read), a weekend or an as-of
date before the requested day gives the session before, nothing before the table's first session
is invented, market caps come from the latest month-end on or before the session (never a later
one, never an older month for a symbol missing that month, never 0 for unknown), and each session's
caveats (missing scrape days, relabelled lagged scrapes) are stated."""

from __future__ import annotations

import asyncio
import statistics
import time
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest

from findesk.core.config import Settings
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.context import resolve_context
from findesk.data.models.market_scan import ListedSession
from findesk.data.registry import build_router
from findesk.data.router import DataRouter
from findesk.data.vendors.base import Category
from findesk.data.vendors.snapshot import SnapshotVendor
from findesk.data.vendors.snapshot.listed import METADATA
from findesk.data.vendors.snapshot.price_tables import MARKET_CAPS, MOVERS

FRIDAY = date(2025, 8, 29)


@pytest.fixture(scope="module")
def vendor(snapshot_dir: Path) -> SnapshotVendor:
    return SnapshotVendor(snapshot_dir)


@pytest.fixture(scope="module")
def router(vendor: SnapshotVendor) -> DataRouter:
    return DataRouter({Category.UNIVERSE: [vendor]})


def _session(router: DataRouter, session: date, as_of: date) -> ListedSession:
    got = asyncio.run(router.listed_session(session, as_of))
    assert isinstance(got, Ok), got
    return got.value


def _file_rows(root: Path, day: str) -> dict[str, dict[str, Any]]:
    """The movers table's rows of ``day``, by symbol, read independently of the store."""
    table = pq.read_table(root / MOVERS)
    dates = table.column("date").cast(pa.string())
    rows = table.filter(pc.equal(dates, day)).to_pylist()
    return {r["symbol"]: r for r in rows}


def _caps(root: Path, day: date) -> dict[str, float]:
    table = pcsv.read_csv(root / MARKET_CAPS)
    rows = table.filter(pc.equal(table.column("date"), pa.scalar(day, pa.date32()))).to_pylist()
    return {r["symbol"]: r["market_cap_usd"] for r in rows}


@pytest.fixture(scope="module")
def friday(router: DataRouter) -> ListedSession:
    return _session(router, FRIDAY, FRIDAY)


# ---- the session's rows are the table's -----------------------------------------------------------


def test_the_session_holds_exactly_the_tables_rows_for_that_day(
    friday: ListedSession, snapshot_dir: Path
) -> None:
    rows = _file_rows(snapshot_dir, "2025-08-29")
    assert friday.session == FRIDAY
    assert len(friday) == len(rows) == 6617  # the README's count for the default as-of session
    assert list(friday.symbols) == sorted(rows)
    for i, symbol in enumerate(friday.symbols):
        row = rows[symbol]
        assert friday.exchanges[i] == row["exchange"]
        assert friday.close[i] == row["close"]
        assert friday.volume[i] == row["volume"]
        pct = row["pct_change"]
        assert (np.isnan(friday.pct_change[i]) and pct is None) or friday.pct_change[i] == pct, symbol


def test_nvda_reads_as_the_screener_published_it(friday: ListedSession) -> None:
    i = friday.row("NVDA")
    assert i is not None and friday.symbols[i] == "NVDA"
    assert (friday.close[i], friday.pct_change[i], friday.volume[i]) == (174.18, -3.325, 242712298.0)
    assert friday.exchanges[i] == "NASDAQ"
    assert friday.names[i] == "NVIDIA Corporation Common Stock"
    assert (friday.sectors[i], friday.industries[i]) == ("Technology", "Semiconductors")
    assert friday.row("NOT-LISTED") is None
    assert friday.source.ref == MOVERS and "unadjusted" in (friday.source.note or "")


def test_a_missing_percent_change_is_nan_and_an_empty_sector_is_none(
    friday: ListedSession, snapshot_dir: Path
) -> None:
    rows = _file_rows(snapshot_dir, "2025-08-29")
    no_pct = sorted(s for s, r in rows.items() if r["pct_change"] is None)
    assert no_pct, "the session has rows without a % change (README: nulls)"
    for symbol in no_pct:
        assert np.isnan(friday.pct_change[friday.row(symbol) or 0])
    empty = {
        r["symbol"]
        for r in pcsv.read_csv(snapshot_dir / METADATA).to_pylist()
        if not (r["sector"] or "").strip()
    }
    shown = [friday.sectors[i] for i, s in enumerate(friday.symbols) if s in empty]
    assert shown and all(sector is None for sector in shown)  # unknown, never ""
    assert "" not in friday.sectors and "" not in friday.industries


def test_arrays_are_read_only(friday: ListedSession) -> None:
    for array in (friday.close, friday.pct_change, friday.volume, friday.market_cap_usd):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 1.0


# ---- which session -------------------------------------------------------------------------------


def test_a_saturday_resolves_to_the_friday(router: DataRouter, friday: ListedSession) -> None:
    saturday = _session(router, date(2025, 8, 30), date(2025, 8, 30))
    assert saturday.session == FRIDAY
    assert saturday.symbols == friday.symbols
    assert np.array_equal(saturday.close, friday.close)


def test_a_session_after_as_of_is_capped_at_as_of_and_says_so(router: DataRouter, snapshot_dir: Path) -> None:
    got = _session(router, date(2025, 9, 5), FRIDAY)
    assert got.session == FRIDAY
    assert any("after the as-of date" in note for note in got.notes)
    later = _file_rows(snapshot_dir, "2025-09-05")
    i = got.row("NVDA")
    assert i is not None and got.close[i] == 174.18 != later["NVDA"]["close"]


def test_a_date_before_the_table_is_no_data_naming_its_range(router: DataRouter) -> None:
    got = asyncio.run(router.listed_session(date(2023, 12, 29), date(2024, 6, 1)))
    assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA
    assert "2024-01-02" in got.reason and "Do not estimate" in got.reason


def test_a_missing_scrape_day_gives_the_session_before_with_its_caveats(router: DataRouter) -> None:
    got = _session(router, date(2025, 3, 28), date(2025, 3, 31))
    assert got.session == date(2025, 3, 27)
    text = " ".join(got.notes)
    assert "2025-03-28 (missing scrapes" in text  # README caveat 5
    assert "relabelled to 2025-03-27" in text  # caveat 4: the 03-28 evening scrape held 03-27
    plain = " ".join(_session(router, FRIDAY, FRIDAY).notes)
    assert "missing scrapes" not in plain and "relabelled" not in plain


# ---- market caps ---------------------------------------------------------------------------------


def test_caps_come_from_the_latest_month_end_on_or_before_the_session(
    router: DataRouter, snapshot_dir: Path
) -> None:
    # the file's August month-end is dated 2025-08-29: the same evening scrape as that session
    friday = _session(router, FRIDAY, FRIDAY)
    assert friday.market_cap_date == FRIDAY
    august = _caps(snapshot_dir, FRIDAY)
    nvda = friday.row("NVDA")
    assert nvda is not None and friday.market_cap_usd[nvda] == august["NVDA"] == 4232574000000.0
    # one session earlier, August's month-end is later than the session: July's is used
    thursday = _session(router, date(2025, 8, 28), date(2025, 8, 28))
    assert thursday.market_cap_date == date(2025, 7, 31)
    july = _caps(snapshot_dir, date(2025, 7, 31))
    nvda = thursday.row("NVDA")
    assert nvda is not None and thursday.market_cap_usd[nvda] == july["NVDA"] == 4340028000000.0
    assert any("month-end values of 2025-07-31" in note for note in thursday.notes)
    for i, symbol in enumerate(thursday.symbols[:500]):
        cap = july.get(symbol)
        if cap is not None and cap > 0:
            assert thursday.market_cap_usd[i] == cap, symbol


def test_a_zero_or_missing_month_end_cap_is_unknown(router: DataRouter, snapshot_dir: Path) -> None:
    thursday = _session(router, date(2025, 8, 28), date(2025, 8, 28))
    july = _caps(snapshot_dir, date(2025, 7, 31))
    zero = [s for s in thursday.symbols if july.get(s) == 0.0]
    assert zero, "the file writes 0 where the screener had no cap"
    assert all(np.isnan(thursday.market_cap_usd[thursday.row(s) or 0]) for s in zero)
    # absent at July's month-end but listed in June's: unknown, not June's value (symbols get reused)
    june = _caps(snapshot_dir, date(2025, 6, 30))
    absent = [s for s in thursday.symbols if s not in july and june.get(s, 0.0) > 0]
    assert absent
    assert all(np.isnan(thursday.market_cap_usd[thursday.row(s) or 0]) for s in absent)
    assert not (thursday.market_cap_usd == 0).any()


# ---- cost and wiring -----------------------------------------------------------------------------


def test_a_warm_call_is_cheap(vendor: SnapshotVendor, friday: ListedSession) -> None:
    store = vendor._listed.get()
    timings = []
    for day in (date(2025, 8, 25), date(2025, 8, 26), date(2024, 5, 10), date(2024, 12, 31), FRIDAY):
        started = time.perf_counter()
        assert isinstance(store.session(day, day), Ok)
        timings.append(time.perf_counter() - started)
    assert statistics.median(timings) < 0.05  # ~1 ms measured; a per-row Python loop would be ~1 s


def test_live_mode_has_no_vendor_for_the_universe(snapshot_dir: Path) -> None:
    settings = Settings(snapshot_dir=snapshot_dir)
    ctx = resolve_context(settings, mode="live")
    assert isinstance(ctx, Ok)
    built = build_router(settings, ctx.value)
    assert isinstance(built, Ok)
    router = built.value
    assert router.chain_names(Category.UNIVERSE) == []
    for got in (
        asyncio.run(router.listed_session(FRIDAY, FRIDAY)),
        asyncio.run(router.equity_panel(FRIDAY, date(2025, 1, 1))),
        asyncio.run(router.index_constituents(FRIDAY)),
    ):
        assert isinstance(got, Err) and got.code is ErrorCode.NOT_CONFIGURED
        assert "does not serve" not in got.reason
    asyncio.run(router.aclose())
