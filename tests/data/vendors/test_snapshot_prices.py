"""Snapshot price store on the real snapshot: as-traded quotes, rescaled day ranges, adjusted bars,
fallbacks, and point in time (the snapshot's rows after as_of are the planted future)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.models import PriceBars, Quote
from findesk.data.vendors.snapshot import SnapshotVendor
from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.prices import (
    ETFS,
    MARKET_CAPS,
    MOVERS,
    SP500,
    VIX_FILE,
    PriceStore,
)

AS_OF = date(2025, 8, 29)


@pytest.fixture(scope="module")
def store(snapshot_dir: Path) -> PriceStore:
    return PriceStore(SnapshotFiles(snapshot_dir))


def quote(store: PriceStore, symbol: str, as_of: date = AS_OF) -> Quote:
    got = store.quote(symbol, as_of)
    assert isinstance(got, Ok), got
    return got.value


def bars(store: PriceStore, symbol: str, start: date, end: date, as_of: date = AS_OF) -> PriceBars:
    got = store.bars(symbol, start, end, as_of)
    assert isinstance(got, Ok), got
    return got.value


def movers_rows(snapshot_dir: Path, symbol: str) -> dict[str, dict[str, float]]:
    table = pq.read_table(snapshot_dir / MOVERS, filters=[("symbol", "=", symbol)])
    return {r["date"]: r for r in table.to_pylist()}


# ---- quote: as traded ----------------------------------------------------------------------------


def test_aapl_quote_is_the_as_traded_close_not_the_adjusted_one(store: PriceStore) -> None:
    q = quote(store, "AAPL")
    assert q.price == 232.14  # the S&P panel's adjusted close that day is 231.915…
    assert q.session_date == AS_OF
    assert q.source.vendor == "snapshot"
    assert q.source.ref == MOVERS


def test_change_and_percent_come_from_the_movers_table(store: PriceStore, snapshot_dir: Path) -> None:
    rows = movers_rows(snapshot_dir, "AAPL")
    today, before = rows["2025-08-29"], rows["2025-08-28"]
    q = quote(store, "AAPL")
    assert q.change_pct == today["pct_change"] == -0.181
    assert q.previous_close == before["close"] == 232.56
    assert q.change == pytest.approx(232.14 - 232.56, abs=1e-9)
    assert q.volume == today["volume"] == 39387990


def test_day_range_is_rescaled_to_the_as_traded_basis(store: PriceStore) -> None:
    q = quote(store, "AAPL")
    assert q.day_low is not None and q.day_high is not None and q.open is not None
    assert q.day_low <= q.price <= q.day_high
    assert q.day_low <= q.open <= q.day_high
    # long_history/AAPL.csv (adjusted in Oct 2025, before the next dividend) shows the as-traded
    # 2025-08-29 range: O 232.51 H 233.38 L 231.37; rescaling the S&P panel must land there.
    assert q.open == pytest.approx(232.51, abs=0.005)
    assert q.day_high == pytest.approx(233.38, abs=0.005)
    assert q.day_low == pytest.approx(231.37, abs=0.005)
    assert any("rescaled" in n and SP500 in n for n in q.notes)


def test_market_cap_on_a_month_end_is_the_files_value(store: PriceStore, snapshot_dir: Path) -> None:
    table = pcsv.read_csv(snapshot_dir / MARKET_CAPS)
    row = table.filter(
        pc.and_(pc.equal(table["symbol"], "AAPL"), pc.equal(table["date"].cast("string"), "2025-08-29"))
    )
    q = quote(store, "AAPL")
    assert q.market_cap_date == AS_OF
    assert q.market_cap == row["market_cap_usd"][0].as_py()


def test_market_cap_between_month_ends_uses_implied_shares(store: PriceStore) -> None:
    q = quote(store, "AAPL", date(2025, 8, 15))
    assert q.market_cap_date == date(2025, 7, 31)
    assert q.market_cap is not None and 3.0e12 < q.market_cap < 3.8e12
    assert any("shares implied" in n for n in q.notes)


def test_split_between_month_end_and_session_rescales_the_share_count(store: PriceStore) -> None:
    # NVDA split 10:1 effective 2024-06-10; the 2024-05-31 row is pre-split.
    q = quote(store, "NVDA", date(2024, 6, 10))
    assert q.price == 121.79
    assert q.market_cap is not None and 2.5e12 < q.market_cap < 3.5e12
    assert q.previous_close is not None and q.change_pct is not None
    assert q.previous_close == pytest.approx(121.79 / (1 + q.change_pct / 100), abs=1e-3)
    assert q.previous_close < 200  # not the pre-split 1208.88 of the previous row
    assert any("split" in n for n in q.notes)


def test_weekend_and_holiday_give_the_friday_session(store: PriceStore) -> None:
    friday = quote(store, "AAPL")
    for as_of in (date(2025, 8, 30), date(2025, 8, 31), date(2025, 9, 1)):  # Sat, Sun, Labor Day
        q = quote(store, "AAPL", as_of)
        assert q.session_date == AS_OF
        assert q.price == friday.price


def test_missing_scrape_day_falls_back_to_the_adjusted_panel_with_a_note(store: PriceStore) -> None:
    q = quote(store, "AAPL", date(2025, 3, 28))  # listed in trading_days_missing.txt
    assert q.session_date == date(2025, 3, 28)
    assert q.source.ref == SP500
    assert any("no row for AAPL" in n and "adjusted" in n for n in q.notes)


def test_etf_quote_falls_back_to_the_etf_panel(store: PriceStore) -> None:
    q = quote(store, "SPY")
    assert q.session_date == AS_OF
    assert q.source.ref == ETFS
    assert q.price == pytest.approx(641.3714, abs=1e-4)
    assert any("adjusted" in n for n in q.notes)


def test_vix_quote_is_an_index_level(store: PriceStore) -> None:
    q = quote(store, "^VIX")
    assert q.price == 15.36 and q.source.ref == VIX_FILE and q.volume is None


def test_unknown_symbol_is_not_found(store: PriceStore) -> None:
    got = store.quote("QQQZZ", AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_FOUND
    assert "QQQZZ" in got.reason


def test_date_before_the_data_is_no_data(store: PriceStore) -> None:
    # long_history holds AAPL from 2005-10-10 (issue 12: the quote used to stop at the 2021 panel)
    got = store.quote("AAPL", date(2005, 1, 3))
    assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA
    # the data's first date is after the as-of date: not named (issue 12, defect 16: no future dates)
    assert "2005-10-10" not in got.reason and "later as-of date" in got.reason


def test_garbage_symbol_is_invalid_input(store: PriceStore) -> None:
    got = store.quote("../etc/passwd", AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT


# ---- bars ---------------------------------------------------------------------------------------


def test_spy_bars_come_from_the_etf_panel(store: PriceStore) -> None:
    b = bars(store, "SPY", date(2025, 8, 1), date(2025, 8, 29))
    assert b.source.ref == ETFS and b.adjusted
    assert len(b.bars) == 21  # August 2025 sessions (no holiday)
    assert b.bars[0].date == date(2025, 8, 1) and b.bars[-1].date == AS_OF
    assert b.bars[-1].volume == 74522200 and isinstance(b.bars[-1].volume, int)


def test_nvda_bars_come_from_the_sp500_panel(store: PriceStore) -> None:
    b = bars(store, "NVDA", date(2025, 8, 25), date(2025, 8, 29))
    assert b.source.ref == SP500
    assert [x.date.day for x in b.bars] == [25, 26, 27, 28, 29]
    assert b.bars[-1].close == pytest.approx(174.160477, abs=1e-6)
    assert all(isinstance(x.volume, int) for x in b.bars)


def test_xlk_bars_are_split_adjusted(store: PriceStore) -> None:
    b = bars(store, "XLK", date(2025, 8, 29), date(2025, 8, 29))
    assert b.bars[0].close == pytest.approx(130.86, abs=0.01)  # traded near 262 before the 2:1 split


def test_vix_and_gspc_are_unadjusted_index_levels(store: PriceStore) -> None:
    vix = bars(store, "^VIX", date(2025, 8, 25), date(2025, 8, 29))
    gspc = bars(store, "^GSPC", date(2025, 8, 25), date(2025, 8, 29))
    assert not vix.adjusted and not gspc.adjusted
    assert vix.bars[-1].close == 15.36 and vix.bars[-1].volume is None
    assert gspc.bars[-1].close == pytest.approx(6460.26, abs=0.01)


def test_long_range_is_served_from_a_file_that_covers_it(store: PriceStore) -> None:
    b = bars(store, "SPY", date(2010, 1, 4), date(2010, 1, 8))
    assert b.source.ref == "prices/equities/long_history/SPY.csv"
    assert len(b.bars) == 5


def test_float_written_volumes_parse_to_int(store: PriceStore) -> None:
    # ABNB's S&P panel rows write volume like "4159400.0" (2025-08-29)
    b = bars(store, "ABNB", date(2025, 8, 25), date(2025, 8, 29))
    assert all(isinstance(x.volume, int) for x in b.bars)
    assert b.bars[-1].volume == 4159400


@pytest.mark.parametrize("symbol", ["SPY", "NVDA", "XLK", "^VIX", "AAPL"])
def test_bars_never_pass_as_of(store: PriceStore, symbol: str) -> None:
    # every file runs to Oct-Dec 2025 (VIX to 2026-08): all of that is future at AS_OF
    b = bars(store, symbol, date(2025, 8, 1), date(2026, 12, 31))
    assert b.bars[-1].date == AS_OF
    assert b.end == AS_OF
    assert all(x.date <= AS_OF for x in b.bars)


def test_planted_future_bar_never_appears(tmp_path: Path) -> None:
    # a tiny hand-made snapshot whose only file has a wild bar after as_of
    lh = tmp_path / "prices/equities/long_history"
    lh.mkdir(parents=True)
    (lh / "TEST.csv").write_text(
        "Date,Open,High,Low,Close,Volume\n"
        "2025-08-28,10,11,9,10.5,100\n"
        "2025-08-29,10.5,12,10,11.5,200.0\n"
        "2025-09-02,999,999,999,999,999\n"
    )
    s = PriceStore(SnapshotFiles(tmp_path))
    b = s.bars("TEST", date(2025, 8, 1), date(2025, 12, 31), AS_OF)
    assert isinstance(b, Ok)
    assert [x.close for x in b.value.bars] == [10.5, 11.5]
    q = s.quote("TEST", date(2025, 8, 31))
    assert isinstance(q, Ok) and q.value.price == 11.5 and q.value.volume == 200


def test_start_after_end_is_invalid_input(store: PriceStore) -> None:
    got = store.bars("SPY", date(2025, 8, 29), date(2025, 8, 1), AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT


def test_unknown_symbol_bars_are_not_found(store: PriceStore) -> None:
    got = store.bars("QQQZZ", date(2025, 8, 1), date(2025, 8, 29), AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_FOUND


# ---- through the vendor facade -------------------------------------------------------------------


async def test_vendor_quote_and_bars(snapshot_dir: Path) -> None:
    vendor = SnapshotVendor(snapshot_dir)
    q = await vendor.quote("AAPL", AS_OF)
    assert isinstance(q, Ok) and q.value.price == 232.14
    b = await vendor.bars("AAPL", date(2025, 8, 25), date(2025, 9, 30), AS_OF)
    assert isinstance(b, Ok) and b.value.bars[-1].date == AS_OF
