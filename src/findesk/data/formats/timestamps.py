"""Timestamps as upstream APIs write them.

Rule: ISO 8601 text (a trailing ``Z`` allowed) becomes an aware datetime; one without an offset is
read as UTC (the APIs that omit it mean UTC); absent or malformed text is None, never an exception.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any


def parse_utc(text: Any) -> datetime | None:
    """``"2025-08-29T12:00:00Z"`` -> 2025-08-29 12:00 UTC; None when ``text`` is not a timestamp."""
    if not isinstance(text, str) or not text:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
