"""Snapshot news store on the real recorded feeds: merge, point in time, de-dup, sentiment, no_data."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from findesk.core.dates import end_of_day
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.models import NewsItem
from findesk.data.vendors.snapshot import SnapshotVendor
from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.news import NewsStore

TRADINGVIEW = "news/tradingview_news_10tickers_2025-04-09_2025-05-25.csv.gz"
FINANCE_NEWS = "news/finance_news_2025-05-01_2025-08-26.csv"
SWEDEN = "Swedish Consortium, Nvidia Unveil Plan to Construct AI Infrastructure in Sweden"


@pytest.fixture(scope="module")
def store(snapshot_dir: Path) -> NewsStore:
    return NewsStore(SnapshotFiles(snapshot_dir))


def items(store: NewsStore, symbol: str, as_of: date, limit: int = 1000) -> list[NewsItem]:
    got = store.news(symbol, as_of, limit)
    assert isinstance(got, Ok), got
    return got.value


def titled(found: list[NewsItem], title: str) -> list[NewsItem]:
    return [i for i in found if i.title == title]


def test_nvda_may_2025_has_the_tradingview_story_once_with_publisher_and_utc_time(store: NewsStore) -> None:
    found = items(store, "NVDA", date(2025, 5, 31))
    [story] = titled(found, SWEDEN)  # the NVDA file holds 4 copies of it: de-duplicated
    assert story.publisher == "MT Newswires"
    assert story.url == "https://www.tradingview.com/news/mtnewswires.com:20250525:G2507652:0/"
    assert story.published_at == datetime(2025, 5, 25, 9, 51, 38, tzinfo=UTC)
    assert story.source.ref == TRADINGVIEW and story.source.vendor == "snapshot"
    assert "NVDA" in story.tickers
    assert story.summary is not None and len(story.summary) <= 1202


def test_finance_news_item_merged_and_results_newest_first(store: NewsStore) -> None:
    found = items(store, "NVDA", date(2025, 5, 31))
    assert (
        found[0].title == "NVDA Stock Overvalued At $140?"
    )  # finance_news, 2025-05-29, newer than TradingView
    assert found[0].publisher == "forbes.com" and found[0].source.ref == FINANCE_NEWS
    assert found[0].published_at == datetime(2025, 5, 29, 9, 0, 16, tzinfo=UTC)
    times = [i.published_at for i in found]
    assert times == sorted(times, reverse=True)
    assert all(i.published_at.tzinfo is not None for i in found)
    refs = {i.source.ref for i in found}
    assert {TRADINGVIEW, FINANCE_NEWS} <= refs
    assert any(r.startswith("news/alphavantage_news_sentiment/") for r in refs)  # 2023-24, also visible
    assert not any(r.startswith("news/stocknewsapi/") for r in refs)


def test_nothing_after_as_of_and_moving_as_of_back_hides_items(store: NewsStore) -> None:
    for as_of in (date(2025, 5, 31), date(2025, 5, 24), date(2025, 8, 29)):
        assert all(i.published_at <= end_of_day(as_of) for i in items(store, "NVDA", as_of))
    assert titled(items(store, "NVDA", date(2025, 5, 25)), SWEDEN)
    assert not titled(items(store, "NVDA", date(2025, 5, 24)), SWEDEN)  # published 05:51 New York on 05-25
    assert not titled(items(store, "NVDA", date(2025, 5, 28)), "NVDA Stock Overvalued At $140?")


def test_as_of_is_the_new_york_day_end(store: NewsStore) -> None:
    # 2025-07-09 00:30 UTC is 2025-07-08 20:30 in New York: visible on the 8th, not the 7th.
    title = "3 Stocks Seeing Big Investor Interest: NVDA, PLTR, AMZN"
    assert titled(items(store, "NVDA", date(2025, 7, 8)), title)
    assert not titled(items(store, "NVDA", date(2025, 7, 7)), title)


def test_stocknewsapi_is_hidden_at_default_as_of_and_present_in_november(store: NewsStore) -> None:
    assert not [
        i for i in items(store, "NVDA", date(2025, 8, 29)) if i.source.ref.startswith("news/stocknewsapi")
    ]
    later = items(store, "NVDA", date(2025, 11, 1))
    [move] = titled(later, "Nvidia Just Made a Game-Changing Move")
    assert move.publisher == "The Motley Fool"
    assert move.sentiment == "Positive"
    assert move.source.ref == "news/stocknewsapi/training/NVDA.csv"
    assert move.published_at == datetime(2025, 11, 1, 18, 15, tzinfo=timezone(timedelta(hours=-4)))
    assert all(i.published_at <= end_of_day(date(2025, 11, 1)) for i in later)


def test_alpha_vantage_items_carry_the_per_ticker_sentiment(store: NewsStore) -> None:
    found = items(store, "AAPL", date(2024, 1, 5))
    [art] = [i for i in found if i.title.startswith("T-Mobile Unveils Hulu")]
    assert art.sentiment == "Somewhat-Bullish" and art.sentiment_score == pytest.approx(0.283406)
    assert art.publisher == "Benzinga"
    assert art.published_at == datetime(2024, 1, 3, 16, 28, 56, tzinfo=UTC)
    assert art.source.ref == "news/alphavantage_news_sentiment/NEWS_SENTIMENT_2024-01-03_laurittab.json"
    tmus = items(store, "TMUS", date(2024, 1, 5))
    [same] = [i for i in tmus if i.title.startswith("T-Mobile Unveils Hulu")]
    assert same.sentiment == "Bullish" and same.sentiment_score == pytest.approx(0.458376)


def test_overlapping_alpha_vantage_files_are_deduplicated(store: NewsStore) -> None:
    found = items(store, "AAPL", date(2024, 7, 22))
    assert len({i.url for i in found}) == len(found)
    assert len({i.title for i in found}) == len(found)


def test_title_duplicates_only_within_days_recurring_titles_survive(store: NewsStore) -> None:
    goog = items(store, "GOOG", date(2025, 5, 31))
    # two MT Newswires story ids 3 minutes apart, one story
    assert len(titled(goog, "Google Introduces AI Video Communication Platform")) == 1
    # the weekly "Review — Barron's" column is a new story each week
    amzn = items(store, "AMZN", date(2025, 5, 31))
    assert len([i for i in amzn if i.title == "Review — Barron's"]) >= 1


def test_googl_and_goog_are_one_company(store: NewsStore) -> None:
    googl = items(store, "GOOGL", date(2025, 5, 31))
    goog = items(store, "GOOG", date(2025, 5, 31))
    assert [i.id for i in googl] == [i.id for i in goog]
    assert any(i.source.ref == TRADINGVIEW and "GOOG" in i.tickers for i in googl)


def test_yahoo_search_items_by_related_tickers(store: NewsStore) -> None:
    found = items(store, "AMZN", date(2025, 2, 25))
    yahoo = [i for i in found if i.source.ref == "news/yahoo_search/search-AMZN.json"]
    assert any(i.title.startswith("Wells Fargo Adjusts Price Target on Amazon.com") for i in yahoo)
    aapl = items(store, "AAPL", date(2025, 2, 25))
    # the Buffett story sits in the AAPL search but Yahoo tags it BRK-B only
    assert not [i for i in aapl if i.title.startswith("Warren Buffett Just Gave Investors")]
    indonesia = next(i for i in aapl if i.title.startswith("Indonesia and Apple said to agree"))
    assert indonesia.publisher == "Bloomberg"


def test_limit(store: NewsStore) -> None:
    assert len(items(store, "NVDA", date(2025, 5, 31), limit=3)) == 3


def test_no_data_names_the_feeds_and_their_coverage_up_to_as_of(store: NewsStore) -> None:
    got = store.news("NVDA", date(2023, 1, 1), 10)
    assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA
    for part in ("TradingView (nothing)", "finance_news", "Alpha Vantage", "StockNewsAPI", "Yahoo"):
        assert part in got.reason
    # coverage is capped at the as-of date: no later date or count (issue 12, defect 16)
    assert "2025" not in got.reason and "published after" not in got.reason
    unknown = store.news("ZZZZ", date(2025, 8, 29), 10)
    assert isinstance(unknown, Err) and unknown.code is ErrorCode.NO_DATA and "ZZZZ" in unknown.reason


def test_bad_symbol_and_limit_are_refused(store: NewsStore) -> None:
    got = store.news("VOD.L", date(2025, 8, 29), 10)
    assert isinstance(got, Err) and got.code is ErrorCode.OUT_OF_SCOPE
    got = store.news("NVDA", date(2025, 8, 29), 0)
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT


async def test_through_the_snapshot_vendor(snapshot_dir: Path) -> None:
    got = await SnapshotVendor(snapshot_dir).news("NVDA", date(2025, 5, 31), 5)
    assert isinstance(got, Ok) and len(got.value) == 5
