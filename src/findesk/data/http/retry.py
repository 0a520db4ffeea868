"""Retry policy: which outcomes are retried and how long to wait between attempts.

Rules this module keeps:
- Retried: timeouts, connection errors, 429 and 5xx. Never retried: any other 4xx (asking again will
  not change the answer) and responses we could not decode.
- The wait before retry ``n`` (0-based) is exponential, ``base * 2**n`` capped at ``cap``, with "equal
  jitter" (half fixed, half random) so that many clients do not retry in lockstep.
- A ``Retry-After`` header (seconds, or an HTTP date) replaces the computed wait, capped at ``cap``:
  the server knows best, but a vendor asking for ten minutes must not stall an agent's turn.
"""

from __future__ import annotations

import random
from email.utils import parsedate_to_datetime


def is_retryable_status(status: int) -> bool:
    return status == 429 or status >= 500


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from a ``Retry-After`` value; ``None`` when absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # an HTTP date is always GMT; a naive parse means "-0000"
        return None
    return max(0.0, when.timestamp() - now)


def backoff_delay(
    retry_index: int,
    *,
    base: float,
    cap: float,
    retry_after: float | None = None,
    rng: random.Random | None = None,
) -> float:
    if retry_after is not None:
        return min(retry_after, cap)
    ceiling = min(cap, base * 2.0**retry_index)
    draw = rng.random() if rng is not None else random.random()
    return ceiling / 2 + draw * ceiling / 2
