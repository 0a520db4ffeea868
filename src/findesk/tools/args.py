"""Argument types the data tools share, and the small text helpers their summaries use.

Rules:
- Every tool's arguments model derives from ``ToolArgs``: unknown argument names are rejected
  (``extra="forbid"``), so a model that invents an argument sees its mistake instead of having it
  silently ignored. No tool takes an as-of date: the run's date comes from ``ToolContext.as_of``.
- Field types carry their own description, so the JSON schema a model reads explains each field.
- Summary helpers are pure and deterministic: same value, same text. Exact figures are printed
  exactly (``exact``); only sizes such as market caps are abbreviated (``compact``), and the long
  form stays in the full result.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

QUOTE_RULE = (
    "Quote figures exactly as returned, with their source and date; never estimate or fill in a "
    "value the tool did not return."
)
POINT_IN_TIME = "Only data public on or before the run's as-of date is visible."
UNVERIFIED = "UNVERIFIED user content: opinions and claims, not facts"

# Summaries stay well below the executor's 4,000-character cap so they are never cut mid-line.
SUMMARY_BUDGET = 3_200


class ToolArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")


Ticker = Annotated[
    str,
    StringConstraints(strip_whitespace=True, to_upper=True, min_length=1, max_length=10),
    Field(description="US ticker symbol, e.g. AAPL; share classes take a dash, e.g. BRK-B."),
]


class SymbolArgs(ToolArgs):
    symbol: Ticker


def exact(value: float | int) -> str:
    """A figure as the source gave it, with thousands separators (46,743,000,000; 4.23)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e18:
        return f"{int(value):,}"
    return f"{value:,}"


def money(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "n/a"
    if value != 0 and abs(value) < 1:
        return f"{value:,.6g}"
    return f"{value:,.{digits}f}"


def compact(value: float | None) -> str:
    """Sizes for reading (3.45T, 274.29B); the exact number stays in the full result."""
    if value is None:
        return "n/a"
    for unit, size in (("T", 1e12), ("B", 1e9), ("M", 1e6)):
        if abs(value) >= size:
            return f"{value / size:,.2f}{unit}"
    return f"{value:,.0f}"


def when(moment: datetime) -> str:
    """A timestamp in UTC to the minute (naive times are taken as UTC), e.g. 2025-08-27 20:22Z."""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return aware.astimezone(UTC).strftime("%Y-%m-%d %H:%MZ")


def clip(text: str, limit: int) -> str:
    """``text`` on one line, cut at a word boundary near ``limit`` characters."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit].rsplit(" ", 1)[0] if " " in flat[:limit] else flat[:limit]
    return cut.rstrip(" ,;:") + " …"


def fit_lines(head: str, lines: Sequence[str], tail: str = "", budget: int = SUMMARY_BUDGET) -> str:
    """``head``, as many whole lines as fit in ``budget``, a count of those left out, ``tail``."""
    used = len(head) + len(tail) + 80
    kept: list[str] = []
    for line in lines:
        if used + len(line) + 1 > budget:
            break
        kept.append(line)
        used += len(line) + 1
    parts = [head, *kept]
    left = len(lines) - len(kept)
    if left:
        parts.append(f"… {left} more not shown in this summary.")
    if tail:
        parts.append(tail)
    return "\n".join(parts)
