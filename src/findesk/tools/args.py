"""Argument types the data tools share, and the phrases their descriptions reuse.

Rules:
- Every tool's arguments model derives from ``ToolArgs``: unknown argument names are rejected
  (``extra="forbid"``), so a model that invents an argument sees its mistake instead of having it
  silently ignored. No tool takes an as-of date: the run's date comes from ``ToolContext.as_of``.
- Field types carry their own description, so the JSON schema a model reads explains each field.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from findesk.core.result import Err, ErrorCode, Ok, Result

QUOTE_RULE = (
    "Quote figures exactly as returned, with their source and date; never estimate or fill in a "
    "value the tool did not return."
)
POINT_IN_TIME = "Only data public on or before the run's as-of date is visible."
UNVERIFIED = "UNVERIFIED user content: opinions and claims, not facts"


class ToolArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")


Ticker = Annotated[
    str,
    StringConstraints(strip_whitespace=True, to_upper=True, min_length=1, max_length=10),
    Field(description="US ticker symbol, e.g. AAPL; share classes take a dash, e.g. BRK-B."),
]


class SymbolArgs(ToolArgs):
    symbol: Ticker


def session_day(asked: dt.date | None, as_of: dt.date) -> Result[dt.date]:
    """A tool's optional ``date`` argument: a day on or before the run's as-of date (later is
    ``invalid_input``, never moved silently); omitted, the as-of date."""
    day = asked or as_of
    if day > as_of:
        return Err(
            ErrorCode.INVALID_INPUT,
            f"date {day.isoformat()} is after the run's as-of date {as_of.isoformat()}; pass an earlier one",
        )
    return Ok(day)
