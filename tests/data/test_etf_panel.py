"""The ETF universe through the router: the ETF panel as matrices and the fund profiles, on the real
snapshot. Values are the file's own (split-adjusted, bad ticks kept), nothing after as_of is visible
(the real file's later rows, and bars planted into a copy), a missing bar is NaN, and a router without
the snapshot in its funds chain says so instead of crashing."""

from __future__ import annotations

import asyncio
import csv
from datetime import date
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from findesk.core.config import Settings
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.context import resolve_context
from findesk.data.models import FundProfile, PricePanel
from findesk.data.registry import build_router
from findesk.data.router import DataRouter
from findesk.data.vendors.base import Category, Vendor
from findesk.data.vendors.snapshot import SnapshotVendor, sorted_columns
from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.funds import PROFILES, FundStore
from findesk.data.vendors.snapshot.price_tables import ETFS, OHLCV, Panel
from findesk.data.vendors.snapshot.prices import PriceStore

AS_OF = date(2025, 8, 29)
START = date(2024, 6, 1)
PLANTED_CLOSE = 9999.0


def _day(panel: PricePanel, day: str) -> int:
    hits = np.flatnonzero(panel.dates == np.datetime64(day, "D"))
    assert len(hits) == 1, f"{day} is not a session of the panel"
    return int(hits[0])


def _row(panel: PricePanel, ticker: str) -> int:
    row = panel.row(ticker)
    assert row is not None, f"{ticker} is not in the panel"
    return row


def _file_rows(root: Path, ticker: str) -> dict[str, dict[str, float]]:
    table = pq.read_table(root / ETFS, filters=[("ticker", "=", ticker)])
    return {str(r["date"]): r for r in table.to_pylist()}


def _panel(router: DataRouter, as_of: date, start: date) -> PricePanel:
    got = asyncio.run(router.etf_panel(as_of, start))
    assert isinstance(got, Ok), got
    return got.value


def _profiles(router: DataRouter, as_of: date) -> dict[str, FundProfile]:
    got = asyncio.run(router.fund_profiles(as_of))
    assert isinstance(got, Ok), got
    return got.value


@pytest.fixture(scope="module")
def router(snapshot_dir: Path) -> DataRouter:
    return DataRouter({Category.FUNDS: [SnapshotVendor(snapshot_dir)]})


@pytest.fixture(scope="module")
def panel(router: DataRouter) -> PricePanel:
    return _panel(router, AS_OF, START)


# ---- the panel on the real file ------------------------------------------------------------------


def test_xlk_close_is_the_files_split_adjusted_value(panel: PricePanel, snapshot_dir: Path) -> None:
    xlk = _row(panel, "XLK")
    file_close = _file_rows(snapshot_dir, "XLK")["2025-08-29"]["close"]
    assert panel.close[xlk, -1] == file_close
    assert 130.8 < panel.close[xlk, -1] < 130.9  # it traded near 262: the 2025-12-05 split is applied
    assert panel.source.ref == ETFS and panel.adjusted


def test_the_panel_spans_start_to_as_of_and_holds_the_whole_universe(panel: PricePanel) -> None:
    assert str(panel.dates[0]) == "2024-06-03"  # the first session on or after Saturday 2024-06-01
    assert panel.last_date == AS_OF
    assert len(panel.tickers) == 1670 and "SPY" in panel.tickers and "XLK" in panel.tickers
    assert list(panel.tickers) == sorted(set(panel.tickers))
    for matrix in (panel.open, panel.high, panel.low, panel.close, panel.volume, panel.splits):
        assert matrix.shape == (1670, len(panel.dates))
    assert not np.isnan(panel.close[:, -1]).any()  # every ETF has a bar on 2025-08-29 (README)
    spy = _row(panel, "SPY")
    assert panel.tickers[spy] == "SPY" and panel.row("NOT-AN-ETF") is None


def test_no_session_after_as_of_appears(router: DataRouter, snapshot_dir: Path) -> None:
    panel = _panel(router, date(2025, 5, 16), date(2025, 1, 1))
    assert panel.last_date == date(2025, 5, 16)
    later = [v["close"] for d, v in _file_rows(snapshot_dir, "XLK").items() if d > "2025-05-16"]
    shown = panel.close[_row(panel, "XLK")]
    assert later and not set(later) & set(shown.tolist())  # the file's later closes stay hidden
    weekend = _panel(router, date(2025, 5, 18), date(2025, 1, 1))
    assert weekend.last_date == date(2025, 5, 16)


def test_dfen_bad_ticks_and_split_rows_show_as_in_the_file(router: DataRouter, snapshot_dir: Path) -> None:
    dfen_file = _file_rows(snapshot_dir, "DFEN")
    panel = _panel(router, date(2024, 6, 6), date(2024, 5, 30))
    dfen = _row(panel, "DFEN")
    for day in ("2024-06-03", "2024-06-04"):
        col = _day(panel, day)
        for name in ("open", "high", "low", "close", "volume"):
            assert getattr(panel, name)[dfen, col] == dfen_file[day][name], (day, name)
        assert panel.splits[dfen, col] == dfen_file[day]["stock_splits"] == 0.0
    drop = panel.close[dfen, _day(panel, "2024-06-03")] / panel.close[dfen, _day(panel, "2024-05-31")]
    assert drop < 0.4  # the -64 % bad tick of README caveat 3 is kept, not cleaned

    late = _panel(router, date(2025, 12, 24), date(2025, 12, 1))
    xlk = late.splits[_row(late, "XLK")]
    assert xlk[_day(late, "2025-12-05")] == 2.0 and np.count_nonzero(xlk) == 1
    early = _panel(router, date(2023, 8, 10), date(2023, 8, 1))
    assert early.splits[_row(early, "NVDS"), _day(early, "2023-08-09")] == 0.2


def test_a_ticker_without_a_bar_that_day_is_nan(panel: PricePanel, router: DataRouter) -> None:
    eggq = _row(panel, "EGGQ")  # first bar 2024-12-30
    first = _day(panel, "2024-12-30")
    for matrix in (panel.open, panel.high, panel.low, panel.close, panel.volume, panel.splits):
        assert np.isnan(matrix[eggq, :first]).all() and not np.isnan(matrix[eggq, first])
    late = _panel(router, date(2025, 12, 24), date(2025, 10, 1))
    inds = late.close[_row(late, "INDS")]  # no row on 2025-10-24, rows either side
    assert np.isnan(inds[_day(late, "2025-10-24")])
    assert not np.isnan(inds[_day(late, "2025-10-23")]) and not np.isnan(inds[_day(late, "2025-10-27")])


def test_a_fund_without_bars_in_the_window_is_left_out(router: DataRouter) -> None:
    before = _panel(router, date(2024, 12, 20), START)
    assert "EGGQ" not in before.tickers and before.row("EGGQ") is None
    assert "XLK" in before.tickers and len(before.tickers) < 1670
    assert not np.isnan(before.close).all(axis=1).any()


def test_matrices_are_read_only_so_no_caller_can_change_the_next_panel(router: DataRouter) -> None:
    first = _panel(router, AS_OF, START)
    xlk = _row(first, "XLK")
    with pytest.raises(ValueError, match="read-only"):
        first.close[xlk, -1] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        first.dates[-1] = np.datetime64("2030-01-01")
    again = _panel(router, AS_OF, START)
    assert again.close[_row(again, "XLK"), -1] == first.close[xlk, -1] != 1.0


def test_bad_windows_are_errors_that_date_nothing_hidden(router: DataRouter) -> None:
    swapped = asyncio.run(router.etf_panel(date(2024, 1, 1), date(2024, 6, 1)))
    assert isinstance(swapped, Err) and swapped.code is ErrorCode.INVALID_INPUT
    too_early = asyncio.run(router.etf_panel(date(2020, 6, 1), date(2020, 1, 1)))
    assert isinstance(too_early, Err) and too_early.code is ErrorCode.NO_DATA
    assert "2021" not in too_early.reason  # the panel's first session is after that as-of date


# ---- planted future bars -------------------------------------------------------------------------


def _planted_snapshot(snapshot_dir: Path, root: Path) -> None:
    """A copy of the ETF panel cut to three funds, with XLK's 2025-05-19 close replaced by
    ``PLANTED_CLOSE`` and a fund ``ZZPL`` whose only bar is 2025-05-19."""
    table = pq.read_table(snapshot_dir / ETFS, filters=[("ticker", "in", ["XLK", "SPY", "DFEN"])])
    planted = (pc.equal(table["ticker"], "XLK").to_numpy(zero_copy_only=False)) & (
        table["date"].to_numpy() == np.datetime64("2025-05-19")
    )
    close = np.where(planted, PLANTED_CLOSE, table["close"].to_numpy())
    table = table.set_column(table.schema.get_field_index("close"), "close", pa.array(close))
    extra = table.slice(0, 1).to_pylist()[0] | {"ticker": "ZZPL", "date": date(2025, 5, 19)}
    table = pa.concat_tables([table, pa.Table.from_pylist([extra], schema=table.schema)])
    (root / ETFS).parent.mkdir(parents=True)
    pq.write_table(table, root / ETFS)


@pytest.fixture(scope="module")
def planted_root(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("planted-etfs")
    _planted_snapshot(snapshot_dir, root)
    return root


def test_planted_future_bars_and_funds_never_show(planted_root: Path) -> None:
    router = DataRouter({Category.FUNDS: [SnapshotVendor(planted_root)]})
    panel = _panel(router, date(2025, 5, 16), date(2025, 5, 1))
    assert panel.last_date == date(2025, 5, 16)
    assert panel.tickers == ("DFEN", "SPY", "XLK")  # ZZPL lists later
    assert np.nanmax(panel.close) < PLANTED_CLOSE
    seen = _panel(router, date(2025, 5, 19), date(2025, 5, 1))  # the plants are there to be seen
    assert seen.close[_row(seen, "XLK"), -1] == PLANTED_CLOSE and "ZZPL" in seen.tickers


def test_the_saved_index_keeps_splits_and_an_older_copy_without_them_is_rebuilt(
    planted_root: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"

    def without_splits() -> sorted_columns.SortedColumns:
        return Panel.build(pq.read_table(planted_root / ETFS, columns=["date", "ticker", *OHLCV]))

    # a copy saved by code that did not keep splits, under this file's key
    stale = sorted_columns.cached(cache / "price-index", planted_root / ETFS, without_splits)
    assert "splits" not in stale.columns

    def splits_of_dfen() -> float:
        files = SnapshotFiles(planted_root, cache)
        got = FundStore(files, PriceStore(files)).panel(date(2024, 6, 4), date(2024, 6, 3))
        assert isinstance(got, Ok), got
        return float(got.value.splits[_row(got.value, "DFEN"), 0])

    assert splits_of_dfen() == 0.0  # rebuilt from the file, not served without splits

    def must_not_build() -> sorted_columns.SortedColumns:
        raise AssertionError("the rebuilt copy should have been saved and reused")

    saved = sorted_columns.cached(cache / "price-index", planted_root / ETFS, must_not_build, ("splits",))
    assert "splits" in saved.columns
    assert splits_of_dfen() == 0.0


# ---- profiles ------------------------------------------------------------------------------------


def test_xlk_profile(router: DataRouter) -> None:
    xlk = _profiles(router, AS_OF)["XLK"]
    assert xlk.category == "Technology"
    assert xlk.name == "State Street Technology Select Sector SPDR ETF"  # longName, not shortName
    assert xlk.family == "State Street Investment Management"
    assert xlk.expense_ratio_pct == 0.08  # already percent: 0.08 %
    assert xlk.inception == date(1998, 12, 16) and xlk.recorded_on == date(2025, 12, 26)
    assert xlk.quote_type == "ETF" and xlk.total_assets == 93463552000.0
    assert xlk.source.ref == PROFILES


def test_a_fund_incepted_after_as_of_is_absent(router: DataRouter) -> None:
    assert "AAAA" not in _profiles(router, date(2025, 7, 14))  # incepted 2025-07-15
    assert "AAAA" in _profiles(router, date(2025, 7, 15))
    # no inception in the file: the first trade date (2021-12-15) stands in
    assert "ABLD" not in _profiles(router, date(2021, 12, 14))
    assert _profiles(router, date(2021, 12, 15))["ABLD"].inception == date(2021, 12, 15)
    everything = _profiles(router, date(2025, 12, 31))
    assert len(everything) == 3869 and "TWF" not in everything  # TWF has neither date
    assert len(_profiles(router, AS_OF)) < len(everything)
    none_yet = asyncio.run(router.fund_profiles(date(1980, 1, 1)))
    assert isinstance(none_yet, Err) and none_yet.code is ErrorCode.NO_DATA


def test_summaries_are_cut_to_600_characters(router: DataRouter, snapshot_dir: Path) -> None:
    with (snapshot_dir / PROFILES).open(encoding="utf-8", newline="") as fh:
        text = {r["ticker"]: r["longBusinessSummary"] for r in csv.DictReader(fh)}
    profiles = _profiles(router, date(2025, 12, 31))
    longest = max(profiles, key=lambda t: len(text[t]))
    cut = profiles[longest].summary
    assert len(text[longest]) > 600 and cut is not None
    assert len(cut) <= 600 and cut.endswith("…") and text[longest].startswith(cut[:-1])
    assert profiles["XLK"].summary == text["XLK"].strip() and len(text["XLK"]) <= 600


# ---- without the snapshot ------------------------------------------------------------------------


def _live(snapshot_dir: Path, chains: dict[str, list[str]] | None = None) -> DataRouter:
    settings = Settings(snapshot_dir=snapshot_dir, chains=chains or {})
    ctx = resolve_context(settings, mode="live")
    assert isinstance(ctx, Ok)
    built = build_router(settings, ctx.value)
    assert isinstance(built, Ok), built
    return built.value


def test_a_live_router_says_funds_are_not_configured(snapshot_dir: Path) -> None:
    router = _live(snapshot_dir)
    assert router.chain_names(Category.FUNDS) == []
    for got in (
        asyncio.run(router.etf_panel(AS_OF, START)),
        asyncio.run(router.fund_profiles(AS_OF)),
    ):
        assert isinstance(got, Err) and got.code is ErrorCode.NOT_CONFIGURED
        assert "no vendor is configured for funds" in got.reason

    class LiveOnly(Vendor):
        name = "live-only"

    direct = DataRouter({Category.FUNDS: [LiveOnly()]})
    got = asyncio.run(direct.etf_panel(AS_OF, START))
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_CONFIGURED
    assert "live-only does not serve funds" in got.reason


def test_funds_chains_may_name_the_snapshot_but_no_live_vendor(snapshot_dir: Path) -> None:
    settings = Settings(snapshot_dir=snapshot_dir, chains={"funds": ["yahoo"]})
    ctx = resolve_context(settings, mode="live")
    assert isinstance(ctx, Ok)
    wrong = build_router(settings, ctx.value)
    assert isinstance(wrong, Err) and "does not serve funds" in wrong.reason
    served = _live(snapshot_dir, {"funds": ["snapshot"]})
    assert _profiles(served, AS_OF)["XLK"].category == "Technology"
