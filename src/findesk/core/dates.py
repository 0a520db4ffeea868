"""Dates: parsing user dates, the as-of rule, and the run's data context.

Rules: an as-of date is a calendar date (US market sessions close at 16:00 America/New_York; a
timestamp is visible at ``as_of`` when it falls on or before the end of that day in New York).
A malformed or future date is ``invalid_input``, never silently clamped. Ages ("10 months ago") are
measured from the as-of date, never from today. A date that comes from outside (a request, a workflow's
input) is an ISO calendar day, ``YYYY-MM-DD``, and nothing else: ``IsoDate`` refuses the numbers (unix
times) and timestamps pydantic's lax ``date`` would turn into a day.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from typing import Annotated
from zoneinfo import ZoneInfo

from pydantic import BeforeValidator
from pydantic_core import PydanticCustomError

from findesk.core.result import Err, ErrorCode, Ok, Result

NEW_YORK = ZoneInfo("America/New_York")
_ISO_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _iso_day(value: object) -> object:
    # a date object is already a day; a string must be exactly YYYY-MM-DD (pydantic then checks the
    # calendar); anything else (0, 1.5, "0", "2025-08-29T00:00:00") would be read as a unix time or a
    # timestamp by pydantic's lax mode, and is refused
    if isinstance(value, date) and not isinstance(value, datetime):
        return value
    if isinstance(value, str) and _ISO_DAY.fullmatch(value):
        return value
    raise PydanticCustomError("iso_date", "should be a date as YYYY-MM-DD, e.g. 2025-08-29")


IsoDate = Annotated[date, BeforeValidator(_iso_day)]


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


def age_phrase(day: date, as_of: date) -> str:
    """How long before ``as_of`` a dated thing is, as an advisor says it: "today", "12 days ago",
    "10 months ago", "2.3 years ago" (days up to 44, months up to 23, then years)."""
    days = (as_of - day).days
    if days <= 0:
        return "today" if days == 0 else "after the as-of date"
    if days < 45:
        return f"{days} day{'s' if days != 1 else ''} ago"
    months = round(days / 30.44)
    if months < 24:
        return f"{months} month{'s' if months != 1 else ''} ago"
    return f"{days / 365.25:.1f} years ago"


def new_york_day(moment: datetime) -> date:
    """The New York calendar day of a timestamp (naive times are taken as UTC)."""
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(NEW_YORK).date()


def published_since(moment: datetime, day: date) -> bool:
    """Whether ``moment`` falls on or after ``day`` in New York (a window's first day is inclusive)."""
    return not visible_at(moment, day - timedelta(days=1))


def previous_weekday(day: date) -> date:
    day -= timedelta(days=1)
    while day.weekday() >= 5:
        day -= timedelta(days=1)
    return day
