"""A window of posts: ``since`` returns everything published in it, not the newest 50 before as-of."""

from __future__ import annotations

from collections.abc import Callable

from findesk.tools.base import ToolOutcome

Call = Callable[..., ToolOutcome]


def test_reddit_since_reads_the_whole_window_including_its_first_day(call: Call) -> None:
    # NVDA has 94 posts published 2025-07-30..2025-08-29; the old limit of 50 stopped at 2025-08-12
    out = call("get_reddit_posts", symbol="NVDA", limit=500, since="2025-07-30")
    assert out.ok, out.summary
    days = [p.published_at.date().isoformat() for p in out.result.value]
    assert len(days) == 94
    assert min(days) == "2025-07-30" and max(days) == "2025-08-27"
    assert out.summary.splitlines()[0].endswith(
        "94 reddit posts published 2025-07-30..2025-08-27, newest first:"
    )
    # the model reads a bounded sample: the summary says how many lines it left out
    assert "more not shown in this summary" in out.summary and len(out.summary) < 4_000


def test_msft_q4_beat_post_of_the_windows_first_day_is_read(call: Call) -> None:
    out = call("get_reddit_posts", symbol="MSFT", limit=500, since="2025-07-30")
    assert out.ok, out.summary
    titles = [p.title or "" for p in out.result.value]
    assert any(t.startswith("Microsoft posts Q4 beat on top and bottom line") for t in titles)


def test_since_then_limit_keeps_the_newest(call: Call) -> None:
    out = call("get_reddit_posts", symbol="NVDA", limit=5, since="2025-07-30")
    assert out.ok and len(out.result.value) == 5
    assert min(p.published_at.date().isoformat() for p in out.result.value) >= "2025-08-26"


def test_news_since(call: Call) -> None:
    out = call("get_news", symbol="AAPL", limit=500, since="2025-07-30")
    assert out.ok, out.summary
    days = [n.published_at.date().isoformat() for n in out.result.value]
    assert days and all("2025-07-30" <= d <= "2025-08-29" for d in days)
