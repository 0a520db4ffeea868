"""Dates: parsing user dates, the as-of rule, and the run's data context.

Rules: an as-of date is a calendar date (US market sessions close at 16:00 America/New_York; a
timestamp is visible at ``as_of`` when it falls on or before the end of that day in New York).
A malformed or future date is ``invalid_input``, never silently clamped.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from findesk.core.result import Err, ErrorCode, Ok, Result

NEW_YORK = ZoneInfo("America/New_York")


def today_new_york() -> date:
    return datetime.now(NEW_YORK).date()


def parse_date(text: str, *, what: str = "date", allow_future: bool = False) -> Result[date]:
    """Parse ``YYYY-MM-DD``. Future dates are rejected unless ``allow_future``."""
    try:
        value = date.fromisoformat(text.strip())
    except (ValueError, AttributeError):
        return Err(ErrorCode.INVALID_INPUT, f"{what} {text!r} is not a date; use YYYY-MM-DD, e.g. 2025-08-29")
    if not allow_future and value > today_new_york():
        return Err(
            ErrorCode.INVALID_INPUT,
            f"{what} {value.isoformat()} is in the future; findesk only answers about the past",
        )
    return Ok(value)


def end_of_day(as_of: date) -> datetime:
    """The last instant (UTC) visible at ``as_of``: 23:59:59.999999 New York time on that day."""
    local = datetime.combine(as_of, time.max, tzinfo=NEW_YORK)
    return local.astimezone(UTC)


def visible_at(moment: datetime | date, as_of: date) -> bool:
    """Point-in-time test for a timestamp or date."""
    if isinstance(moment, datetime):
        aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
        return aware <= end_of_day(as_of)
    return moment <= as_of


def previous_weekday(day: date) -> date:
    day -= timedelta(days=1)
    while day.weekday() >= 5:
        day -= timedelta(days=1)
    return day
