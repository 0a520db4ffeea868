"""Live Reddit vendor through MockTransport.

The listings and profiles are HAND-WRITTEN fixtures (``tests/fixtures/reddit/``, see its README) from
Reddit's documented JSON formats: the snapshot holds no Reddit listing JSON.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import httpx
from live_fakes import FakeUpstream, body

from findesk.core.config import Settings
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.vendors.base import Category
from findesk.data.vendors.reddit import ABOUT_URL, SEARCH_URL, SUBREDDITS, RedditVendor

FIXTURES = Path(__file__).parents[2] / "fixtures" / "reddit"
AS_OF = date(2025, 8, 29)


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def nvda_upstream() -> FakeUpstream:
    routes = {SEARCH_URL.format(sub=s): body(fixture(f"search_{s}_NVDA.json")) for s in SUBREDDITS}
    for name in ("New_Group3576", "moon_alerts_2025"):
        routes[ABOUT_URL.format(name=name)] = body(fixture(f"about_{name}.json"))
    return FakeUpstream(routes)


def vendor(upstream: FakeUpstream, author_lookups: int = 10) -> RedditVendor:
    return RedditVendor(upstream.client(), Settings(), author_lookups=author_lookups)


def searched(upstream: FakeUpstream) -> list[httpx.URL]:
    return [r.url for r in upstream.requests if r.url.path.endswith("/search.json")]


async def test_posts_from_the_three_subreddits_filtered_and_point_in_time() -> None:
    upstream = nvda_upstream()
    v = vendor(upstream)
    assert v.name == "reddit" and v.categories == frozenset({Category.REDDIT})
    got = await v.reddit_posts("NVDA", AS_OF, 50)
    assert isinstance(got, Ok), got
    ids = [p.id for p in got.value]
    # 1n9zz01 is from 2025-09-02 (after as_of); 1n0c222 and 1n0a444 never write the ticker
    assert ids == ["reddit:1n0b333", "reddit:1n0e4ys", "reddit:1n0d111"]
    urls = searched(upstream)
    assert sorted(u.path for u in urls) == sorted(f"/r/{s}/search.json" for s in SUBREDDITS)
    for u in urls:
        assert u.params["q"] == "NVDA" and u.params["restrict_sr"] == "1" and u.params["sort"] == "new"


async def test_post_fields_and_author_profiles() -> None:
    got = await vendor(nvda_upstream()).reddit_posts("NVDA", AS_OF, 50)
    assert isinstance(got, Ok)
    by_id = {p.id: p for p in got.value}
    play = by_id["reddit:1n0e4ys"]
    assert play.title == "NVDA Earnings Play (Call Debit Spread)" and play.community == "wallstreetbets"
    assert (play.score, play.num_comments, play.upvote_ratio) == (105, 87, 0.9)
    assert play.published_at == datetime(2025, 8, 26, 13, 20, tzinfo=UTC)
    assert play.url is not None and play.url.startswith(
        "https://www.reddit.com/r/wallstreetbets/comments/1n0e4ys/"
    )
    assert play.link_url is None
    assert play.author is not None and play.author.username == "New_Group3576"
    assert play.author.created_at == datetime(2023, 2, 14, 8, 0, tzinfo=UTC)
    assert (play.author.karma, play.author.followers, play.author.verified) == (10350, 37, True)
    assert play.source.vendor == "reddit" and "restrict_sr=1" in play.source.ref
    pump = by_id["reddit:1n0d111"]
    assert pump.link_url == "https://pump-signals.example.com/join"
    assert pump.author is not None and pump.author.karma == 2  # link + comment karma (no total given)
    assert pump.author.created_at == datetime(2025, 8, 20, 3, 0, tzinfo=UTC)


async def test_author_lookups_are_bounded() -> None:
    upstream = nvda_upstream()
    got = await vendor(upstream, author_lookups=1).reddit_posts("NVDA", AS_OF, 50)
    assert isinstance(got, Ok)
    profiles = [r.url.path for r in upstream.requests if r.url.path.endswith("/about.json")]
    assert profiles == ["/user/Apprehensive_Two1528/about.json"]  # the newest post's author only
    # that profile 404s in the fake: the post keeps the name, the call still succeeds
    assert got.value[0].author is not None and got.value[0].author.created_at is None


async def test_one_letter_ticker_needs_a_cashtag() -> None:
    routes = {SEARCH_URL.format(sub=s): body(fixture("search_investing_NVDA.json")) for s in SUBREDDITS}
    routes[SEARCH_URL.format(sub="stocks")] = body(fixture("search_stocks_F.json"))
    got = await vendor(FakeUpstream(routes), author_lookups=0).reddit_posts("F", AS_OF, 50)
    assert isinstance(got, Ok)
    # "$F beat" matches; "F in chat" and "Ford (F) vs GM" are prose
    assert [p.id for p in got.value] == ["reddit:1n0f555"]


async def test_other_subreddits_are_refused_without_a_request() -> None:
    upstream = nvda_upstream()
    got = await vendor(upstream).search("pennystocks", "NVDA")
    assert isinstance(got, Err) and got.code is ErrorCode.OUT_OF_SCOPE
    assert "r/wallstreetbets, r/stocks, r/investing" in got.reason
    assert upstream.requests == []
    ok = await vendor(upstream).search("r/Stocks", "NVDA")
    assert isinstance(ok, Ok) and [p.id for p in ok.value] == ["reddit:1n0b333"]


async def test_429_everywhere_is_rate_limited_and_partial_failure_is_noted() -> None:
    limited = FakeUpstream({SEARCH_URL.format(sub=s): body(b"{}", status=429) for s in SUBREDDITS})
    got = await vendor(limited).reddit_posts("NVDA", AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.RATE_LIMITED
    partial = nvda_upstream()
    partial.routes[SEARCH_URL.format(sub="investing")] = body(b"{}", status=429)
    some = await vendor(partial, author_lookups=0).reddit_posts("NVDA", AS_OF)
    assert isinstance(some, Ok) and len(some.value) == 3
    assert all(p.source.note == "partial: r/investing failed (rate_limited)" for p in some.value)


async def test_malformed_listing_is_bad_response() -> None:
    for content in (b"not json", b'{"kind": "t3", "data": {}}', b'{"kind": "Listing", "data": {}}'):
        upstream = FakeUpstream({SEARCH_URL.format(sub=s): body(content) for s in SUBREDDITS})
        got = await vendor(upstream).reddit_posts("NVDA", AS_OF)
        assert isinstance(got, Err) and got.code is ErrorCode.BAD_RESPONSE, content


async def test_nothing_visible_at_an_old_as_of_is_no_data() -> None:
    got = await vendor(nvda_upstream()).reddit_posts("NVDA", date(2025, 8, 1))
    assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA
    assert "found 4 post(s) about NVDA" in got.reason


async def test_bad_symbol_sends_nothing() -> None:
    upstream = nvda_upstream()
    got = await vendor(upstream).reddit_posts("VOD.L", AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.OUT_OF_SCOPE and upstream.requests == []
