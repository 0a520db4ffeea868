"""News, social and transcript tools on the real snapshot: dated, attributed, linked, and marked."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from findesk.tools.base import ToolOutcome

Call = Callable[..., ToolOutcome]


def test_news_headlines_with_publisher_and_url(call: Call) -> None:
    out = call("get_news", symbol="AAPL", limit=3)
    assert out.ok, out.summary
    assert len(out.payload) == 3 and all(n["published_at"][:10] <= "2025-08-29" for n in out.payload)
    line = (
        "- 2025-08-07 06:37Z cnbc.com: How Meta could challenge Apple and Google to become the AI king on "
        "our devices — https://www.cnbc.com/2025/08/07/how-meta-could-challenge-apple-and-google-for-ai-on-"
        "our-devices.html (id finance_news:"
    )
    # each line ends with the item's id, so a model can cite the exact article
    assert any(s.startswith(line) and s.endswith(")") for s in out.summary.splitlines())


def test_reddit_posts_are_marked_unverified_and_linked(call: Call) -> None:
    out = call("get_reddit_posts", symbol="NVDA", limit=10)
    assert out.ok, out.summary
    assert out.summary.startswith("UNVERIFIED user content")
    assert (
        "r/wallstreetbets u/New_Group3576 (score 105, 87 comments): NVDA Earnings Play (Call Debit Spread) "
        "— https://www.reddit.com/r/wallstreetbets/comments/1n0e4ys/"
    ) in out.summary
    assert "day-resolution" in out.summary  # the source's caveat about post times travels with it
    times = [p["published_at"] for p in out.payload]
    assert times == sorted(times, reverse=True) and max(times)[:10] <= "2025-08-29"


def test_reddit_point_in_time(call: Call) -> None:
    out = call("get_reddit_posts", at=date(2025, 8, 25), symbol="NVDA", limit=50)
    assert out.ok, out.summary
    assert "1n0e4ys" not in out.summary  # posted 2025-08-26
    assert max(p["published_at"][:10] for p in out.payload) <= "2025-08-25"


def test_stocktwits_messages_with_author_and_own_label(call: Call) -> None:
    out = call("get_stocktwits_posts", symbol="AAPL", limit=5)
    assert out.ok, out.summary
    lines = out.summary.splitlines()
    assert lines[0].startswith("UNVERIFIED user content") and "5 stocktwits posts" in lines[0]
    assert lines[1] == (
        "- 2020-04-24 18:35Z stocktwits @braves716 (1 followers): $MSFT why underperforming $QQQ $AAPL and "
        "Nasdaq? Again. — https://stocktwits.com/braves716/message/208435113 (id stocktwits:208435113)"
    )
    assert "self-labelled Bearish" in out.summary


def test_transcripts_newest_call_with_its_opening(call: Call) -> None:
    out = call("get_transcripts", symbol="NVDA")
    assert out.ok, out.summary
    assert "NVDA (NVIDIA Corporation) FY2026 Q2 earnings call held 2025-08-27 17:00 EDT" in out.summary
    assert "snapshot:transcripts/NVDA/2026Q2_2025-08-27.txt" in out.summary
    assert "second quarter fiscal 2026" in out.summary
    assert len(out.summary) < 1_200  # the opening only; the full text is in the payload
    assert len(out.payload[0]["text"]) > 40_000


def test_transcripts_point_in_time(call: Call) -> None:
    out = call("get_transcripts", at=date(2025, 8, 26), symbol="NVDA", limit=2)
    assert out.ok, out.summary
    assert "2025-08-27" not in out.summary and "held 2025-05-28" in out.summary
