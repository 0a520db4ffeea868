"""One tokenisation per post text, shared by the passes over it (issue 12: pump-bot, claims, themes and
mentions each split every post again, about 44 % of a warm briefing)."""

from __future__ import annotations

from datetime import UTC, date, datetime

from findesk.analytics import post_text
from findesk.analytics.pump_bot import score_posts
from findesk.analytics.social_claims import extract_claims
from findesk.analytics.social_themes import post_tone, themes
from findesk.data.models import SocialAuthor, SocialPost, Source


def _post(i: int, text: str) -> SocialPost:
    return SocialPost(
        id=f"reddit:t{i}",
        platform="reddit",
        community="stocks",
        author=SocialAuthor(username=f"user{i}"),
        title=f"Apple post {i}",
        text=text,
        url=f"https://www.reddit.com/r/stocks/comments/t{i}/",
        published_at=datetime(2025, 8, 20, 12, 0, tzinfo=UTC),
        tickers=["AAPL"],
        source=Source(vendor="test", ref="planted"),
    )


POSTS = [
    _post(i, f"Apple revenue grew {i + 3}% to $9{i}.4 billion in the June quarter. Earnings beat again {i}.")
    for i in range(6)
]


def _passes() -> None:
    score_posts(POSTS, as_of=date(2025, 8, 29))
    extract_claims(POSTS, "AAPL", aliases=["Apple"])
    themes([(p.id, f"{p.title} {p.text}") for p in POSTS])
    [post_tone(p) for p in POSTS]


def test_sentences_keep_abbreviations_and_initials_inside_a_sentence() -> None:
    assert post_text.sentences("Apple Inc. vs. the U.S. grew 5%. Then? Yes!\n- bullet line") == (
        "Apple Inc. vs. the U.S. grew 5%.",
        "Then?",
        "Yes!",
        "bullet line",
    )
    assert post_text.sentences(None) == ()


def test_running_every_pass_again_splits_no_text_again() -> None:
    _passes()
    before = post_text.cache_info()
    _passes()
    after = post_text.cache_info()
    misses = {k: after[k] - before[k] for k in after if k.endswith("_misses")}
    assert misses == dict.fromkeys(misses, 0), misses
    assert after["words_hits"] > before["words_hits"] and after["sentences_hits"] > before["sentences_hits"]


def test_a_very_long_text_is_split_but_not_kept() -> None:
    long = "word " * 10_000
    before = post_text.cache_info()["words_misses"]
    assert len(post_text.words(long)) == 10_000
    assert post_text.cache_info()["words_misses"] == before  # bypassed the cache
