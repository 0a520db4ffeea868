"""``age_phrase``: how long before the as-of date a filing was filed, as an advisor says it (issue 12)."""

from __future__ import annotations

from datetime import date

import pytest

from findesk.core.dates import age_phrase

AS_OF = date(2025, 8, 29)


@pytest.mark.parametrize(
    ("filed", "said"),
    [
        (date(2025, 8, 29), "today"),
        (date(2025, 8, 28), "1 day ago"),
        (date(2025, 8, 1), "28 days ago"),
        (date(2025, 7, 16), "44 days ago"),
        (date(2025, 7, 15), "1 month ago"),
        (date(2025, 6, 29), "2 months ago"),
        (date(2024, 11, 1), "10 months ago"),
        (date(2023, 9, 15), "23 months ago"),
        (date(2023, 5, 1), "2.3 years ago"),
        (date(2025, 9, 2), "after the as-of date"),
    ],
)
def test_age_phrase(filed: date, said: str) -> None:
    assert age_phrase(filed, AS_OF) == said
