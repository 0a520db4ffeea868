"""Pump-bot scoring says which of its features the posts' data allowed."""

from __future__ import annotations

from datetime import UTC, datetime

from findesk.analytics.pump_bot import features
from findesk.data.models import SocialAuthor, SocialPost, Source


def _post(author: SocialAuthor | None, when: datetime) -> SocialPost:
    return SocialPost(
        id="reddit:x",
        platform="reddit",
        author=author,
        title="t",
        text="text",
        published_at=when,
        source=Source(vendor="test", ref="made"),
    )


def test_names_only_and_day_resolution_times_leave_account_features_out() -> None:
    # the snapshot's 2025-07..08 Reddit export: author name only, post time a whole day
    got = features([_post(SocialAuthor(username="a"), datetime(2025, 8, 20, 23, 59, 59, tzinfo=UTC))])
    assert got.available == [
        "promotional phrases",
        "cashtag stuffing",
        "chat or paid-group links",
        "duplicate text across accounts",
    ]
    assert got.missing == [
        "account age (no account creation dates)",
        "followers (no follower counts)",
        "posting bursts (post times are whole days)",
    ]


def test_profiles_and_exact_times_allow_every_feature() -> None:
    author = SocialAuthor(username="a", created_at=datetime(2025, 8, 1, tzinfo=UTC), followers=3)
    got = features([_post(author, datetime(2025, 8, 20, 14, 5, tzinfo=UTC))])
    assert got.missing == []
    assert {"account age", "followers", "posting bursts"} <= set(got.available)


def test_no_posts_no_features() -> None:
    assert features([]).available == []
