"""The snapshot earnings calendar, point in time: a calendar recorded 2025-10-01 shows no date after an
earlier as-of date, and its scheduled dates from that day on."""

from __future__ import annotations

import asyncio
import shutil
from datetime import date
from pathlib import Path

import pytest

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.models import EarningsCalendar
from findesk.data.router import DataRouter
from findesk.data.vendors.base import Category, Vendor
from findesk.data.vendors.snapshot import SnapshotVendor
from findesk.data.vendors.snapshot.transcripts import EVENTS, PROVENANCE

RECORDED = date(2025, 10, 1)
FOCUS = ("AAPL", "NVDA", "MSFT", "AMZN", "GOOGL", "TSLA", "META", "F", "JPM", "WFC")


def _router(root: Path) -> DataRouter:
    return DataRouter({Category.EARNINGS_CALENDAR: [SnapshotVendor(root)]})


@pytest.fixture(scope="module")
def router(snapshot_dir: Path) -> DataRouter:
    return _router(snapshot_dir)


def _calendar(router: DataRouter, symbol: str, day: date) -> EarningsCalendar:
    got = asyncio.run(router.earnings_calendar(symbol, day))
    assert isinstance(got, Ok), got
    return got.value


@pytest.mark.parametrize("symbol", FOCUS)
def test_before_the_recording_day_no_later_date_is_visible(router: DataRouter, symbol: str) -> None:
    cal = _calendar(router, symbol, date(2025, 8, 29))
    assert cal.next_event is None and cal.recorded_on == RECORDED
    assert cal.last_event is not None and cal.last_event.day <= date(2025, 8, 29)
    assert "2025-10-" not in repr(cal).replace("2025-10-01", "")  # neither MSFT's 10-29 nor JPM's 10-14


def test_the_day_before_recording_still_hides_jpms_october_date(router: DataRouter) -> None:
    assert _calendar(router, "JPM", date(2025, 9, 30)).next_event is None


@pytest.mark.parametrize("day", [date(2025, 10, 1), date(2025, 10, 6), date(2025, 10, 28)])
def test_msft_next_date_from_the_recording_day_on(router: DataRouter, day: date) -> None:
    cal = _calendar(router, "MSFT", day)
    assert cal.next_event is not None
    assert (cal.next_event.day, cal.next_event.status) == (date(2025, 10, 29), "scheduled")
    assert (cal.next_event.fiscal_year, cal.next_event.fiscal_quarter) == (2026, 1)
    assert cal.last_event is not None and cal.last_event.day == date(2025, 7, 30)
    assert cal.last_event.status == "held"


def test_jpm_next_date_and_a_ticker_with_nothing_scheduled(router: DataRouter) -> None:
    jpm = _calendar(router, "JPM", RECORDED)
    assert jpm.next_event is not None and jpm.next_event.day == date(2025, 10, 14)
    aapl = _calendar(router, "AAPL", date(2025, 10, 6))
    assert aapl.next_event is None and aapl.last_event is not None
    assert aapl.last_event.day == date(2025, 7, 31)


def test_a_passed_scheduled_date_stays_scheduled(router: DataRouter) -> None:
    cal = _calendar(router, "MSFT", date(2025, 11, 3))
    assert cal.last_event is not None and cal.last_event.day == date(2025, 10, 29)
    assert cal.last_event.status == "scheduled"  # the calendar cannot confirm a call it had not seen


def test_googl_reads_goog_and_skips_a_mislabelled_row(router: DataRouter) -> None:
    # earnings_events.csv lists Alphabet as GOOG only, with a "2019 Q1" row dated 2024-04-29
    cal = _calendar(router, "GOOGL", date(2024, 5, 1))
    assert cal.ticker == "GOOGL" and cal.company_name == "Alphabet Inc."
    assert cal.last_event is not None
    assert (cal.last_event.day, cal.last_event.fiscal_year, cal.last_event.fiscal_quarter) == (
        date(2024, 4, 25),
        2024,
        1,
    )


def test_source_and_public_link(router: DataRouter) -> None:
    cal = _calendar(router, "MSFT", date(2025, 8, 29))
    assert cal.source.ref == EVENTS
    assert cal.url is not None and cal.url.startswith(
        "https://github.com/lingtouyangLeo/Tariff_Sentiment/blob/"
    )
    assert cal.url.endswith("/dataset/events_20251001.csv")


def test_unknown_ticker_is_not_found(router: DataRouter) -> None:
    got = asyncio.run(router.earnings_calendar("ZZZZ", date(2025, 10, 6)))
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_FOUND


def _copy(snapshot_dir: Path, root: Path, provenance: str | None) -> Path:
    (root / "transcripts").mkdir(parents=True)
    shutil.copyfile(snapshot_dir / EVENTS, root / EVENTS)
    if provenance is not None:
        (root / PROVENANCE).write_text(provenance, encoding="utf-8")
    return root


def test_the_recording_day_is_read_from_sources_tsv(snapshot_dir: Path, tmp_path: Path) -> None:
    header = "snapshot_path\tsource\tlicense\tas_of\tnotes\n"
    later = _copy(
        snapshot_dir,
        tmp_path / "later",
        header + f"{EVENTS}\towner/repo@abc:events.csv\tMIT\t2025-10-20\tx\n",
    )
    cal = _calendar(_router(later), "MSFT", date(2025, 10, 6))
    assert cal.recorded_on == date(2025, 10, 20) and cal.next_event is None
    assert cal.url == "https://github.com/owner/repo/blob/abc/events.csv"


def test_without_a_recording_day_no_calendar_is_given(snapshot_dir: Path, tmp_path: Path) -> None:
    for name, provenance in (("none", None), ("blank", f"{EVENTS}\towner/repo@abc:e.csv\tMIT\t\tx\n")):
        root = _copy(snapshot_dir, tmp_path / name, provenance)
        got = asyncio.run(_router(root).earnings_calendar("MSFT", date(2025, 10, 6)))
        assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA and PROVENANCE in got.reason


def test_no_configured_vendor_says_so() -> None:
    unconfigured = asyncio.run(DataRouter({}).earnings_calendar("MSFT", date(2025, 10, 6)))
    assert isinstance(unconfigured, Err) and unconfigured.code is ErrorCode.NOT_CONFIGURED
    other = asyncio.run(Vendor().earnings_calendar("MSFT", date(2025, 10, 6)))
    assert isinstance(other, Err) and other.code is ErrorCode.NOT_CONFIGURED
