"""get_earnings_calendar as a model meets it: the briefing's own sentence, the date only when known."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from findesk.data.models import EarningsCalendar
from findesk.tools.base import ToolOutcome

Call = Callable[..., ToolOutcome]


def test_at_the_default_date_the_october_date_is_not_shown(call: Call) -> None:
    out = call("get_earnings_calendar", symbol="msft")  # 2025-08-29
    assert out.ok, out.summary
    assert out.summary.startswith("MSFT next earnings date: not known at this date")
    assert (
        "recorded 2025-10-01" in out.summary
        and "last earnings call 2025-07-30 (fiscal 2025 Q4)" in out.summary
    )
    assert "2025-10-29" not in out.summary and "2025-10-29" not in str(out.payload)
    assert "Source: snapshot:transcripts/earnings_events.csv" in out.summary


def test_after_the_recording_day_the_scheduled_date_is_given(call: Call) -> None:
    out = call("get_earnings_calendar", at=date(2025, 10, 6), symbol="MSFT")
    assert out.ok and isinstance(out.result.value, EarningsCalendar)
    assert (
        "2025-10-29 (fiscal 2026 Q1), scheduled, per the earnings calendar recorded 2025-10-01" in out.summary
    )
    jpm = call("get_earnings_calendar", at=date(2025, 10, 6), symbol="JPM")
    assert "next earnings date: 2025-10-14 (fiscal 2025 Q3), scheduled" in jpm.summary


def test_nothing_scheduled_and_unknown_ticker(call: Call) -> None:
    aapl = call("get_earnings_calendar", at=date(2025, 10, 6), symbol="AAPL")
    assert (
        "not known: the earnings calendar recorded 2025-10-01 lists no AAPL date after 2025-10-06"
        in aapl.summary
    )
    unknown = call("get_earnings_calendar", symbol="ZZZZ")
    assert unknown.error_code == "not_found" and "ZZZZ" in unknown.summary


def test_no_as_of_argument(call: Call) -> None:
    out = call("get_earnings_calendar", symbol="MSFT", as_of="2025-10-06")
    assert out.error_code == "invalid_input" and "as_of" in out.summary
