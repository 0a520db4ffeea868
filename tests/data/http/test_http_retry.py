"""Retry policy helpers: Retry-After parsing and the backoff schedule."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from email.utils import format_datetime

from findesk.data.http.retry import backoff_delay, is_retryable_status, parse_retry_after

NOW = 1_700_000_000.0


def test_retryable_statuses() -> None:
    assert [s for s in (200, 400, 401, 403, 404, 429, 500, 502, 503) if is_retryable_status(s)] == [
        429,
        500,
        502,
        503,
    ]


def test_parse_retry_after() -> None:
    assert parse_retry_after(None, NOW) is None
    assert parse_retry_after("2", NOW) == 2.0
    assert parse_retry_after(" 1.5 ", NOW) == 1.5
    assert parse_retry_after("-3", NOW) == 0.0
    assert parse_retry_after("soon", NOW) is None
    date = format_datetime(datetime.fromtimestamp(NOW + 30, UTC), usegmt=True)
    assert parse_retry_after(date, NOW) == 30.0


def test_backoff_grows_exponentially_with_jitter_and_cap() -> None:
    rng = random.Random(1)
    for i, ceiling in enumerate([0.5, 1.0, 2.0, 4.0, 8.0, 8.0]):
        d = backoff_delay(i, base=0.5, cap=8.0, rng=rng)
        assert ceiling / 2 <= d <= ceiling
    assert backoff_delay(0, base=0.5, cap=8.0, retry_after=3.0) == 3.0
    assert backoff_delay(0, base=0.5, cap=8.0, retry_after=30.0) == 8.0
    draws = {backoff_delay(3, base=0.5, cap=8.0, rng=rng) for _ in range(5)}
    assert len(draws) > 1  # jittered, not lockstep
