"""Snapshot FRED store on the real ``fred/`` files: release lags per frequency, missing values,
unknown series."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.models import MacroSeries
from findesk.data.vendors.snapshot import SnapshotVendor
from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.macro import MacroStore, release_lag_days

AS_OF = date(2025, 8, 29)


@pytest.fixture(scope="module")
def store(snapshot_dir: Path) -> MacroStore:
    return MacroStore(SnapshotFiles(snapshot_dir))


def series(store: MacroStore, sid: str, as_of: date = AS_OF, start: date | None = None) -> MacroSeries:
    got = store.series(sid, as_of, start)
    assert isinstance(got, Ok), got
    return got.value


def dates(s: MacroSeries) -> set[date]:
    return {o.date for o in s.observations}


def test_daily_series_include_as_of_itself(store: MacroStore) -> None:
    s = series(store, "DGS10")
    assert s.observations[-1].date == AS_OF
    assert s.observations[-1].value == 4.23
    assert s.frequency == "D" and s.release_lag_days == 0
    assert s.title == "10Y Treasury"
    assert s.source.ref == "fred/DGS10.csv"
    assert max(dates(s)) <= AS_OF  # the file runs to 2025-12-30


def test_monthly_cpi_for_august_and_july_is_not_known_on_aug_29(store: MacroStore) -> None:
    s = series(store, "CPIAUCSL")
    assert s.frequency == "M" and s.release_lag_days == 61
    assert date(2025, 8, 1) not in dates(s)
    assert date(2025, 7, 1) not in dates(s)  # conservative: counted as known from 2025-08-31
    assert s.observations[-1].date == date(2025, 6, 1)
    assert s.observations[-1].value == 321.5


def test_monthly_cpi_for_july_is_known_on_aug_31(store: MacroStore) -> None:
    s = series(store, "CPIAUCSL", date(2025, 8, 31))
    assert s.observations[-1].date == date(2025, 7, 1)
    assert s.observations[-1].value == 322.132


def test_quarterly_gdp_q3_is_not_known_on_aug_29(store: MacroStore) -> None:
    s = series(store, "GDP")
    assert s.frequency == "Q" and s.release_lag_days == 122
    assert date(2025, 7, 1) not in dates(s)
    assert s.observations[-1].date == date(2025, 4, 1)


def test_weekly_claims_need_a_week(store: MacroStore) -> None:
    s = series(store, "ICSA")
    assert s.frequency == "W" and s.release_lag_days == 7
    assert s.observations[-1].date == date(2025, 8, 16)  # week ending 08-23 is counted known 08-30


def test_frequency_is_inferred_from_the_dates_not_the_label(store: MacroStore) -> None:
    s = series(store, "BUSLOANS")  # labelled W in series_coverage.csv, but monthly rows
    assert s.frequency == "M" and s.release_lag_days == 61
    assert "labelled W" in (s.source.note or "")


def test_missing_observation_is_none_not_dropped(store: MacroStore) -> None:
    s = series(store, "CPIAUCSL", date(2026, 1, 31), start=date(2025, 9, 1))
    by_date = {o.date: o.value for o in s.observations}
    assert by_date[date(2025, 10, 1)] is None  # the 2025 shutdown gap
    assert by_date[date(2025, 9, 1)] is not None
    assert min(by_date) == date(2025, 9, 1)


def test_series_specific_lags() -> None:
    assert release_lag_days("JTSJOL", "M") == 92
    assert release_lag_days("DCOILWTICO", "D") == 7
    assert release_lag_days("UNKNOWN", None) == 61


def test_unknown_series_lists_some_that_exist(store: MacroStore) -> None:
    got = store.series("NOSUCHSERIES", AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_FOUND
    assert "DGS10" in got.reason or "CPIAUCSL" in got.reason


def test_path_like_id_is_invalid_input(store: MacroStore) -> None:
    got = store.series("../prices/x", AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT


def test_before_the_series_starts_is_no_data(store: MacroStore) -> None:
    got = store.series("T10YIE", date(2002, 12, 31))
    assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA


async def test_vendor_macro(snapshot_dir: Path) -> None:
    got = await SnapshotVendor(snapshot_dir).macro("dgs10", AS_OF, date(2025, 8, 25))
    assert isinstance(got, Ok)
    assert [o.date.day for o in got.value.observations] == [25, 26, 27, 28, 29]
