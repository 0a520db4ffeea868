"""Snapshot Reddit exports and Stocktwits streams: ticker rules, authors, point in time, no_data."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from findesk.core.dates import end_of_day
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.models import SocialPost
from findesk.data.vendors.snapshot import SnapshotVendor
from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.social import SocialStore

REDDIT_0708 = "social/reddit/reddit_posts_2025-07-28_2025-08-27.csv.gz"
REDDIT_0406 = "social/reddit/reddit_posts_2025-04-26_2025-06-04.csv"
WSB_2022 = "social/reddit/wsb_posts_2022-01-18_2022-01-21.csv"
AAPL_STREAM = "social/stocktwits/streams_symbol_AAPL_2020-04-24.json"


@pytest.fixture(scope="module")
def store(snapshot_dir: Path) -> SocialStore:
    return SocialStore(SnapshotFiles(snapshot_dir))


def reddit(store: SocialStore, symbol: str, as_of: date, limit: int = 2000) -> list[SocialPost]:
    got = store.reddit(symbol, as_of, limit)
    assert isinstance(got, Ok), got
    return got.value


def test_nvda_reddit_posts_around_august_2025(store: SocialStore) -> None:
    posts = reddit(store, "NVDA", date(2025, 8, 29))
    [play] = [p for p in posts if p.title == "NVDA Earnings Play (Call Debit Spread)"]
    assert play.author is not None and play.author.username == "New_Group3576"
    assert (play.score, play.num_comments, play.upvote_ratio) == (105, 87, 0.9)
    assert play.community == "wallstreetbets"
    assert play.url == "https://www.reddit.com/r/wallstreetbets/comments/1n0e4ys/"
    assert play.id == "reddit:1n0e4ys" and "NVDA" in play.tickers
    assert play.published_at.date() == date(2025, 8, 26)
    assert play.source.ref == REDDIT_0708 and play.source.note and "day-resolution" in play.source.note
    assert play.text  # body (and comments) after the title line
    times = [p.published_at for p in posts]
    assert times == sorted(times, reverse=True)
    assert {p.source.ref for p in posts} == {REDDIT_0708, REDDIT_0406, WSB_2022}


def test_reddit_point_in_time(store: SocialStore) -> None:
    for as_of in (date(2025, 8, 29), date(2025, 8, 25), date(2025, 6, 1)):
        assert all(p.published_at <= end_of_day(as_of) for p in reddit(store, "NVDA", as_of))
    assert [p for p in reddit(store, "NVDA", date(2025, 8, 26)) if p.id == "reddit:1n0e4ys"]
    assert not [p for p in reddit(store, "NVDA", date(2025, 8, 25)) if p.id == "reddit:1n0e4ys"]
    june = reddit(store, "NVDA", date(2025, 6, 1))
    assert not [p for p in june if p.source.ref == REDDIT_0708]


def test_tickers_mentioned_export_has_author_and_exact_utc_time(store: SocialStore) -> None:
    posts = reddit(store, "AAPL", date(2025, 6, 1))
    [post] = [p for p in posts if p.title == "AAPL went up today"]
    assert post.author is not None and post.author.username == "_thispageexists"
    assert post.published_at == datetime(2025, 5, 27, 20, 58, 8, tzinfo=UTC)
    assert (post.score, post.community, post.tickers) == (17, "wallstreetbets", ["AAPL"])


def test_wsb_2022_export_matches_by_cashtag_and_whole_word(store: SocialStore) -> None:
    hd = reddit(store, "HD", date(2022, 1, 21))  # 2 letters: cashtag only
    assert [p.id for p in hd if p.title and "$HD puts" in p.title] == ["reddit:s8w8ii"]
    lcid = reddit(store, "LCID", date(2022, 1, 21))
    assert any(p.id == "reddit:s87rrf" for p in lcid)
    wsb = next(p for p in lcid if p.id == "reddit:s87rrf")
    assert wsb.url == "https://www.reddit.com/r/wallstreetbets/comments/s87rrf/"
    assert wsb.published_at.tzinfo is not None


def test_one_letter_ticker_is_not_matched_in_prose(store: SocialStore) -> None:
    # "F in chat" (s84ck3) and "F..." (s7enew) are prose, not Ford; no "$F" cashtag exists in the export.
    got = store.reddit("F", date(2022, 1, 21), 50)
    assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA
    assert "none about F" in got.reason


def test_reddit_no_data_says_nothing_of_later_posts(store: SocialStore) -> None:
    got = store.reddit("NVDA", date(2021, 6, 1), 10)
    assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA
    # nothing after the as-of date is named, dated or counted (issue 12, defect 16)
    assert "hold no post" in got.reason and "2022" not in got.reason and "2025" not in got.reason
    assert WSB_2022 not in got.reason and "published after" not in got.reason


def test_stocktwits_aapl_messages_with_labels_and_authors(store: SocialStore) -> None:
    got = store.stocktwits("AAPL", date(2025, 8, 29), 30)
    assert isinstance(got, Ok)
    posts = got.value
    assert len(posts) == 30
    labels = [p.sentiment for p in posts]
    assert labels.count("Bullish") == 9 and labels.count("Bearish") == 8 and labels.count(None) == 13
    first = posts[0]
    assert (
        first.id == "stocktwits:208435113"
        and first.text == "$MSFT why underperforming $QQQ $AAPL and Nasdaq? Again."
    )
    assert first.published_at == datetime(2020, 4, 24, 18, 35, 11, tzinfo=UTC)
    assert first.tickers == ["AAPL", "MSFT", "QQQ"] and first.community == "AAPL"
    assert first.author is not None
    assert first.author.username == "braves716"
    assert first.author.created_at == datetime(2018, 9, 25, tzinfo=UTC)
    assert (first.author.followers, first.author.following, first.author.post_count) == (1, 0, 0)
    assert first.author.official is False
    assert first.url == "https://stocktwits.com/braves716/message/208435113"
    assert first.source.ref == AAPL_STREAM
    bearish = [p for p in posts if p.sentiment == "Bearish"]
    assert all(p.author is not None and p.author.created_at is not None for p in bearish)


def test_stocktwits_point_in_time_and_limit(store: SocialStore) -> None:
    got = store.stocktwits("AAPL", date(2020, 4, 23), 30)
    assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA
    limited = store.stocktwits("aapl", date(2020, 4, 24), 5)
    assert isinstance(limited, Ok) and len(limited.value) == 5


def test_stocktwits_eth_pages_are_merged_by_id(store: SocialStore) -> None:
    got = store.stocktwits("ETH.X", date(2022, 6, 30), 500)
    assert isinstance(got, Ok)
    ids = [p.id for p in got.value]
    assert len(ids) == len(set(ids)) == 60  # three 30-message pages that overlap
    assert any(p.score is not None for p in got.value)  # these payloads carry likes


def test_stocktwits_other_symbols_name_what_the_snapshot_holds(store: SocialStore) -> None:
    got = store.stocktwits("NVDA", date(2025, 8, 29), 30)
    assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA
    assert "AAPL (2020-04-24..2020-04-24)" in got.reason and "ETH.X" in got.reason
    bad = store.stocktwits("../etc", date(2025, 8, 29), 30)
    assert isinstance(bad, Err) and bad.code is ErrorCode.INVALID_INPUT


async def test_through_the_snapshot_vendor(snapshot_dir: Path) -> None:
    vendor = SnapshotVendor(snapshot_dir)
    got = await vendor.reddit_posts("NVDA", date(2025, 8, 29), 3)
    assert isinstance(got, Ok) and len(got.value) == 3
    st = await vendor.stocktwits_posts("AAPL", date(2025, 8, 29), 2)
    assert isinstance(st, Ok) and len(st.value) == 2
