"""NewsAPI's topic search (``news_search``): the query NewsAPI's syntax wants (quoted phrases joined by
OR, at most ten, within 500 characters, searched in title and description), the window sent as
``from``/``to`` and applied again to the answer; served the snapshot's real recorded page."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from live_fakes import FakeUpstream, body
from pydantic import SecretStr

from findesk.core.config import Settings
from findesk.core.dates import new_york_day
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.vendors.base import Category
from findesk.data.vendors.newsapi import (
    EVERYTHING_URL,
    MAX_QUERY_TERMS,
    QUERY_CHARS,
    NewsApiVendor,
    search_query,
)

KEY = "test-key-0123456789abcdef"
PAGE1 = "news/newsapi/everything_q-inflection-ai_page1.json"  # 100 articles, 2023-06-23..07-22


def vendor(upstream: FakeUpstream, key: str | None = KEY) -> NewsApiVendor:
    settings = Settings(newsapi_api_key=SecretStr(key) if key is not None else None)
    return NewsApiVendor(upstream.client(), settings)


async def test_sends_quoted_terms_and_the_window_and_parses(snapshot_dir: Path) -> None:
    upstream = FakeUpstream({EVERYTHING_URL: body((snapshot_dir / PAGE1).read_bytes())})
    v = vendor(upstream)
    assert Category.NEWS_SEARCH in v.categories
    got = await v.news_search(
        ["AI safety", "Inflection", "ai safety"], date(2023, 7, 21), date(2023, 7, 17), 50
    )
    assert isinstance(got, Ok), got
    [request] = upstream.requests
    params = request.url.params
    assert params["q"] == '"AI safety" OR "Inflection"'  # a repeat in another case is asked once
    assert params["from"] == "2023-07-17T04:00:00"  # New York midnight (EDT), in UTC
    assert params["to"] == "2023-07-22T03:59:59"  # the end of the as-of day in New York
    assert params["searchIn"] == "title,description"
    assert params["sortBy"] == "publishedAt" and params["pageSize"] == "50"
    assert request.headers["X-Api-Key"] == KEY and KEY not in str(request.url)
    days = [new_york_day(i.published_at) for i in got.value]
    # the recorded page runs 2023-06-23..07-22: the answer keeps only the window, newest first
    assert days and min(days) >= date(2023, 7, 17) and max(days) <= date(2023, 7, 21)
    assert days == sorted(days, reverse=True)
    assert all(i.source.vendor == "newsapi" and i.tickers == [] for i in got.value)


def test_the_query_keeps_the_first_ten_terms_within_500_characters() -> None:
    terms = [f"term{n}" for n in range(15)]
    assert search_query(terms) == " OR ".join(f'"term{n}"' for n in range(MAX_QUERY_TERMS))
    long_terms = [chr(ord("a") + n) * 40 for n in range(10)]  # ten 40-character terms: 479 characters
    assert len(search_query(long_terms)) <= QUERY_CHARS
    longer = [chr(ord("a") + n) * 60 for n in range(10)]
    query = search_query(longer)
    assert len(query) <= QUERY_CHARS and query.count(" OR ") == 6  # seven phrases fit
    assert search_query(['say "gold"', "  ", '"']) == '"say gold"'  # an inner quote would end the phrase
    assert search_query(["", " "]) == ""


async def test_an_empty_window_is_no_data_saying_so(snapshot_dir: Path) -> None:
    upstream = FakeUpstream({EVERYTHING_URL: body((snapshot_dir / PAGE1).read_bytes())})
    got = await vendor(upstream).news_search(["Inflection"], date(2023, 8, 10), date(2023, 8, 1))
    assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA
    assert "on or after 2023-08-01" in got.reason


async def test_without_a_key_nothing_is_sent() -> None:
    upstream = FakeUpstream()
    got = await vendor(upstream, key=None).news_search(["gold"], date(2025, 8, 29), date(2025, 8, 23))
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_CONFIGURED
    assert upstream.requests == []
