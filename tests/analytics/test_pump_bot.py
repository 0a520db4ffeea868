"""Pump-bot scoring: the snapshot's real Reddit/Stocktwits posts, and constructed bot-like posts."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from findesk.analytics.pump_bot import FLAG_THRESHOLD, PostRisk, score_posts
from findesk.core.result import Ok
from findesk.data.models import SocialAuthor, SocialPost, Source
from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.social import SocialStore

AS_OF = date(2025, 8, 29)
NOON = datetime(2025, 8, 28, 12, 0, tzinfo=UTC)
SRC = Source(vendor="test", ref="t")
_seq = iter(range(10**6))


def _author(
    name: str, *, age_days: int | None = 2000, followers: int | None = 300, posts: int = 800
) -> SocialAuthor:
    created = (
        None
        if age_days is None
        else datetime.combine(AS_OF - timedelta(days=age_days), datetime.min.time(), UTC)
    )
    return SocialAuthor(username=name, created_at=created, followers=followers, post_count=posts)


def _post(
    text: str, author: SocialAuthor | None, *, at: datetime = NOON, link_url: str | None = None
) -> SocialPost:
    n = next(_seq)
    return SocialPost(
        id=f"stocktwits:{n}",
        platform="stocktwits",
        author=author,
        text=text,
        url=f"https://stocktwits.com/m/{n}",
        link_url=link_url,
        published_at=at,
        source=SRC,
    )


def _by_author(risks: list[PostRisk]) -> dict[str | None, PostRisk]:
    return {r.author: r for r in risks}


@pytest.fixture(scope="module")
def store(snapshot_dir: Path) -> SocialStore:
    return SocialStore(SnapshotFiles(snapshot_dir))


# --- real snapshot posts ---------------------------------------------------------------------------


def test_real_aapl_reddit_posts_are_not_flagged(store: SocialStore) -> None:
    got = store.reddit("AAPL", AS_OF, limit=50)
    assert isinstance(got, Ok) and len(got.value) == 50
    risks = score_posts(got.value, as_of=AS_OF)
    assert [r.post_id for r in risks] == [p.id for p in got.value]
    assert not [r for r in risks if r.flagged]
    # no author metadata on Reddit: only text features can fire, and only three weak phrases do
    fired = {r.author: r.reasons for r in risks if r.reasons}
    assert fired == {
        "SnooMemesjellies3242": ["promotional phrase: 'easy money'"],
        "chicago1313": ["promotional phrase: 'load up'"],
        "Moirailogist": ["promotional phrase: '100x'"],
    }
    ordinary = [r for r in risks if r.author in ("s1n0d3utscht3k", "AutoModerator")]
    assert len(ordinary) == 8 and all(r.score == 0.0 and not r.reasons for r in ordinary)
    # WSB's "User Report" footer links the subreddit's own Discord: boilerplate, not an invitation
    wsb_footer = next(r for r in risks if r.author == "stealthmoderock")
    assert wsb_footer.reasons == []


def test_real_aapl_stocktwits_flags_only_the_new_account_with_a_sign_up_link(store: SocialStore) -> None:
    day = date(2020, 4, 24)
    got = store.stocktwits("AAPL", day, limit=30)
    assert isinstance(got, Ok) and len(got.value) == 30
    risks = score_posts(got.value, as_of=day)
    flagged = [r for r in risks if r.flagged]
    assert [(r.author, r.reasons) for r in flagged] == [
        (
            "tigerwang63",
            ["account 11 days old", "links to a sign-up page: stockwirenews.com/l/social/sign-up/"],
        )
    ]
    assert flagged[0].score == pytest.approx(0.61)
    by = _by_author(risks)
    # joined that very day, but nothing else suspicious: one signal does not flag
    assert by["Telebullb"].reasons == ["account 0 days old"] and not by["Telebullb"].flagged
    assert by["Reaperbahn"].reasons == ["promotional phrase: 'to the moon'"]
    assert by["Tdrjmz"].reasons == ["3 followers after 1,029 posts"]
    assert by["SarahVImoneywork"].reasons == ["5 cashtags in one post"]
    assert sum(bool(r.reasons) for r in risks) == 15


def test_real_eth_stream_shows_a_news_feed_burst_but_flags_nothing(store: SocialStore) -> None:
    day = date(2022, 6, 29)
    got = store.stocktwits("ETH.X", day, limit=200)
    assert isinstance(got, Ok)
    risks = score_posts(got.value, as_of=day)
    assert not [r for r in risks if r.flagged]
    feed = [r for r in risks if r.author == "Billionaireclubcollc"]
    assert len(feed) == 7
    assert all(any(x.endswith("posts within 60 minutes") for x in r.reasons) for r in feed)
    assert max(r.score for r in feed) == pytest.approx(0.475)  # burst + 5 cashtags: just under the flag


def test_real_wsb_2022_posts_without_authors_are_not_flagged(store: SocialStore) -> None:
    day = date(2022, 1, 21)
    got = store.reddit("GME", day, 200)
    assert isinstance(got, Ok) and len(got.value) == 76
    risks = score_posts(got.value, as_of=day)
    assert not [r for r in risks if r.flagged]
    assert max(r.score for r in risks) == pytest.approx(0.45)  # "demanding 100x, 1000x": a sceptic's words


# --- constructed cases -----------------------------------------------------------------------------

RING_TEXT = [
    "Huge news coming for $ACME this week, insiders are buying and the squeeze is coming soon, get in "
    "before the big announcement drops https://x.co/a",
    "Huge news coming for $ACME this week, insiders are buying and the squeeze is coming fast, get in "
    "before the big announcement drops!!",
    "HUGE news coming for $ACMX this week: insiders are buying and the squeeze is coming soon, get in "
    "before the big announcement drops 2025",
    "Huge news coming for $ACME this week, insiders are loading and the squeeze is coming soon, get in "
    "before the big announcement drops",
]


def test_bot_ring_of_new_accounts_is_flagged_and_names_the_others() -> None:
    names = ["pumpa", "pumpb", "pumpc", "pumpd"]
    posts = [
        _post(t, _author(n, age_days=5, followers=2, posts=40), at=NOON + timedelta(hours=i))
        for i, (n, t) in enumerate(zip(names, RING_TEXT, strict=True))
    ]
    risks = score_posts(posts, as_of=AS_OF)
    assert all(r.flagged for r in risks)
    for name, risk in zip(names, risks, strict=True):
        others = ", ".join(f"@{n}" for n in names if n != name)
        assert f"same text as 3 other accounts ({others})" in risk.reasons
        assert risk.reasons[0].startswith("same text as")  # heaviest reason first
    # the same ring text from old, followed accounts is still flagged: duplicates + a promo phrase
    old = [_post(t, _author(n)) for n, t in zip(names, RING_TEXT, strict=True)]
    assert all(r.flagged for r in score_posts(old, as_of=AS_OF))


def test_same_text_from_one_account_or_short_texts_is_not_a_ring() -> None:
    bot = _author("AutoModerator")
    daily = "This is the daily discussion, so anything stocks related is fine, but keep it civil please"
    posts = [
        _post(daily, bot),
        _post(daily, bot),
        _post("GME to the moon", _author("a")),
        _post("GME to the moon", _author("b")),
    ]
    risks = score_posts(posts, as_of=AS_OF)
    assert not any(x.startswith("same text") for r in risks for x in r.reasons)


def test_paid_group_link_from_a_new_account_is_flagged() -> None:
    text = "Free $XYZ alerts every morning, join us: https://t.me/alphasignals"
    new, old = _author("fresh", age_days=3), _author("veteran")
    fresh_risk, old_risk = score_posts([_post(text, new), _post(text, old)], as_of=AS_OF)
    assert fresh_risk.flagged and fresh_risk.score == pytest.approx(0.61)
    assert fresh_risk.reasons == ["account 3 days old", "links to a chat invite: t.me/alphasignals"]
    assert not old_risk.flagged and old_risk.reasons == ["links to a chat invite: t.me/alphasignals"]
    vip = score_posts([_post("Join my VIP group for the next play", new)], as_of=AS_OF)[0]
    assert vip.flagged and "invites to a paid group: join my vip group" in vip.reasons
    via_link = score_posts([_post("see you there", new, link_url="https://discord.gg/pumpers")], as_of=AS_OF)
    assert "links to a chat invite: discord.gg/pumpers" in via_link[0].reasons


def test_cashtag_stuffing_with_promo_phrases_is_flagged() -> None:
    text = "$AAA $BBB $CCC $DDD $EEE $FFF $GGG $HHH next 10 bagger, buy now 🚀🚀🚀"
    risk = score_posts([_post(text, _author("veteran"))], as_of=AS_OF)[0]
    assert risk.flagged
    assert risk.reasons == [
        "promotional phrases: 'next 10 bagger', 'buy now', '🚀🚀'",
        "8 cashtags in one post",
    ]
    # a long write-up that names eight companies is not stuffing
    essay = " ".join(["Revenue grew while margins held up across the segment this quarter."] * 20)
    long_post = _post(essay + " $AAA $BBB $CCC $DDD $EEE $FFF $GGG $HHH", _author("analyst"))
    assert score_posts([long_post], as_of=AS_OF)[0].reasons == []


def test_one_promo_emoji_from_an_old_account_is_not_flagged() -> None:
    text = "Apple reported services revenue up 13% this quarter, solid quarter overall 🚀"
    risk = score_posts([_post(text, _author("longtimer"))], as_of=AS_OF)[0]
    assert not risk.flagged and risk.score == 0.0 and risk.reasons == []


def test_burst_of_six_posts_in_thirty_minutes_is_reported() -> None:
    me = _author("spammer")
    posts = [_post(f"$ABC update number {i}", me, at=NOON + timedelta(minutes=6 * i)) for i in range(6)]
    posts.append(_post("an unrelated post", _author("someone"), at=NOON))
    risks = score_posts(posts, as_of=AS_OF)
    assert all("6 posts within 60 minutes" in r.reasons for r in risks[:6])
    assert risks[6].reasons == []
    # day-resolution stamps (23:59:59 UTC, the Reddit 2025-07..08 export) are not simultaneous posts
    day_only = [_post(f"post {i}", me, at=datetime(2025, 8, 20, 23, 59, 59, tzinfo=UTC)) for i in range(6)]
    assert all(r.reasons == [] for r in score_posts(day_only, as_of=AS_OF))


def test_missing_metadata_and_odd_input_never_error() -> None:
    bare = [SocialAuthor(username=f"nobody{i}") for i in range(4)]
    naive = datetime(2025, 8, 28, 12, 0)  # a naive time next to aware ones must not break the burst check
    posts = [
        _post("", None),
        _post("", bare[0]),
        _post("🚀", bare[1]),
        _post("https://example.com/x " * 50, bare[2], at=naive),
        _post("$ $$ $1 $$$$ &amp; ... \n\t", bare[3]),
        _post("x " * 20000, None),
        _post("ok", _author("future", age_days=-30, followers=None)),  # joined after as_of: inconsistent
    ]
    risks = score_posts(posts, as_of=AS_OF)
    assert len(risks) == len(posts)
    assert all(r.score == 0.0 and r.reasons == [] and not r.flagged for r in risks)
    assert risks[0].author is None and risks[1].author == "nobody0"
    assert score_posts([], as_of=AS_OF) == []


def test_news_urls_with_subscribe_in_them_are_not_sign_up_pages() -> None:
    text = "https://www.bloomberg.com/news/articles/2025-08-18/comcast-subscribers-are-bailing"
    assert score_posts([_post(text, _author("reader"))], as_of=AS_OF)[0].reasons == []
    signup = score_posts([_post("https://promo.example.com/l/signup?ref=1", _author("reader"))], as_of=AS_OF)
    assert signup[0].reasons == ["links to a sign-up page: promo.example.com/l/signup"]


def test_scores_are_bounded_deterministic_and_follow_input_order() -> None:
    everything = (
        "to the moon 100x guaranteed buy now $AAA $BBB $CCC $DDD $EEE $FFF $GGG $HHH join my premium group "
        "https://discord.gg/x and so much more text to make this one long enough for shingles"
    )
    ring = [_author(f"bot{i}", age_days=1, followers=0, posts=5000) for i in range(3)]
    posts = [_post(everything, a, at=NOON + timedelta(minutes=m)) for a in ring for m in range(5)]
    posts.append(_post("plain post about dividends", _author("human")))
    first = score_posts(posts, as_of=AS_OF)
    assert first == score_posts(posts, as_of=AS_OF)
    assert [r.post_id for r in first] == [p.id for p in posts]
    assert all(0.0 <= r.score <= 1.0 for r in first)
    assert all(r.flagged == (r.score >= FLAG_THRESHOLD) for r in first)
    assert first[0].score > 0.95 and first[-1].score == 0.0
    # the set decides the burst and duplicate features, not its order
    reverse = {r.post_id: r for r in score_posts(posts[::-1], as_of=AS_OF)}
    assert all(reverse[r.post_id] == r for r in first)
