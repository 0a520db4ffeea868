"""Earnings-call transcripts and the earnings calendar.

Rule: a calendar answer holds only what was known at its ``as_of``: the latest listed date on or
before it, and a date after it only when the calendar itself was recorded by then (``recorded_on``).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from findesk.data.models.base import DataModel, Source


class Transcript(DataModel):
    ticker: str
    company_name: str | None = None
    fiscal_year: int  # the company's fiscal year and quarter, as the call names them
    fiscal_quarter: int
    conference_at: datetime  # timezone-aware; the point-in-time key
    text: str
    source: Source


class EarningsEvent(DataModel):
    """One earnings date: a call the calendar lists as held, or one it lists as scheduled."""

    fiscal_year: int  # the company's fiscal year and quarter
    fiscal_quarter: int
    day: date  # the call's day, US/Eastern
    status: Literal["held", "scheduled"]  # "scheduled": still ahead when the calendar was recorded


class EarningsCalendar(DataModel):
    ticker: str
    company_name: str | None = None
    as_of: date
    recorded_on: date  # when the calendar was known; no date after ``as_of`` is given before this day
    last_event: EarningsEvent | None = None  # the latest listed date on or before ``as_of``
    next_event: EarningsEvent | None = None  # the first date after ``as_of``, when known at ``as_of``
    url: str | None = None  # a public link to the calendar file, when there is one
    source: Source
