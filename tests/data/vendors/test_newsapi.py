"""Live NewsAPI vendor, served the snapshot's real recorded ``/v2/everything`` page through MockTransport.

The error bodies are hand-written from NewsAPI's documented error format (https://newsapi.org/docs/errors).
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

from live_fakes import FakeUpstream, body
from pydantic import SecretStr

from findesk.core.config import Settings
from findesk.core.dates import end_of_day
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.vendors.base import Category
from findesk.data.vendors.newsapi import EVERYTHING_URL, NewsApiVendor

KEY = "test-key-0123456789abcdef"
PAGE1 = "news/newsapi/everything_q-inflection-ai_page1.json"


def vendor(upstream: FakeUpstream, key: str | None = KEY) -> NewsApiVendor:
    settings = Settings(newsapi_api_key=SecretStr(key) if key is not None else None)
    return NewsApiVendor(upstream.client(), settings)


def error_body(code: str, message: str) -> bytes:
    return json.dumps({"status": "error", "code": code, "message": message}).encode()


async def test_recorded_page_parses_with_key_in_header(snapshot_dir: Path) -> None:
    upstream = FakeUpstream({EVERYTHING_URL: body((snapshot_dir / PAGE1).read_bytes())})
    v = vendor(upstream)
    assert v.name == "newsapi" and v.categories == frozenset({Category.NEWS, Category.NEWS_SEARCH})
    got = await v.search("Inflection AI", date(2023, 7, 31), 100)
    assert isinstance(got, Ok), got
    [request] = upstream.requests
    assert request.headers["X-Api-Key"] == KEY
    assert KEY not in str(request.url)
    assert request.url.params["q"] == "Inflection AI" and request.url.params["sortBy"] == "publishedAt"
    assert request.url.params["to"] == "2023-08-01T03:59:59"  # New York day end, in UTC
    items = got.value
    assert len(items) == 100
    safety = next(
        i
        for i in items
        if i.title == "Google and others agree to advance AI safety practices with the White House"
    )
    assert safety.publisher == "Android Central"
    assert (
        safety.url == "https://www.androidcentral.com/apps-software/google-others-advance-ai-safety-practices"
    )
    assert safety.published_at == datetime(2023, 7, 21, 17, 51, 58, tzinfo=UTC)
    assert safety.source.vendor == "newsapi" and "q=Inflection+AI" in safety.source.ref
    assert KEY not in safety.source.ref
    times = [i.published_at for i in items]
    assert times == sorted(times, reverse=True)


async def test_point_in_time_filters_the_answer(snapshot_dir: Path) -> None:
    upstream = FakeUpstream({EVERYTHING_URL: body((snapshot_dir / PAGE1).read_bytes())})
    got = await vendor(upstream).search("Inflection AI", date(2023, 7, 20), 100)
    assert isinstance(got, Ok)
    assert 0 < len(got.value) < 100
    assert all(i.published_at <= end_of_day(date(2023, 7, 20)) for i in got.value)
    assert not [i for i in got.value if i.title.startswith("Google and others agree to advance AI safety")]


async def test_news_searches_the_ticker_and_company_classes(snapshot_dir: Path) -> None:
    upstream = FakeUpstream({EVERYTHING_URL: body((snapshot_dir / PAGE1).read_bytes())})
    got = await vendor(upstream).news("GOOGL", date(2023, 7, 31), 5)
    assert isinstance(got, Ok) and len(got.value) == 5
    assert upstream.requests[0].url.params["q"] == "GOOG OR GOOGL"
    assert all(i.tickers == ["GOOGL"] for i in got.value)


async def test_no_key_is_not_configured_and_sends_nothing() -> None:
    for key in (None, "  "):
        upstream = FakeUpstream()
        got = await vendor(upstream, key=key).news("NVDA", date(2025, 8, 29))
        assert isinstance(got, Err) and got.code is ErrorCode.NOT_CONFIGURED
        assert "FINDESK_NEWSAPI_API_KEY" in got.reason
        assert upstream.requests == []


async def test_error_bodies_become_typed_errors() -> None:
    cases = [
        (429, "rateLimited", ErrorCode.RATE_LIMITED),
        (401, "apiKeyInvalid", ErrorCode.NOT_CONFIGURED),
        (200, "rateLimited", ErrorCode.RATE_LIMITED),  # an error body behind a 200 (e.g. a proxy)
        (200, "apiKeyInvalid", ErrorCode.NOT_CONFIGURED),
        (200, "apiKeyExhausted", ErrorCode.RATE_LIMITED),
        (200, "somethingNew", ErrorCode.UNAVAILABLE),
    ]
    for status, code, expected in cases:
        upstream = FakeUpstream({EVERYTHING_URL: body(error_body(code, "documented message"), status)})
        got = await vendor(upstream).news("NVDA", date(2025, 8, 29))
        assert isinstance(got, Err) and got.code is expected, (status, code, got)
        assert got.source == "newsapi"


async def test_malformed_bodies_are_bad_response() -> None:
    for content in (b"<html>oops</html>", b"[]", b'{"status": "ok"}'):
        got = await vendor(FakeUpstream({EVERYTHING_URL: body(content)})).news("NVDA", date(2025, 8, 29))
        assert isinstance(got, Err) and got.code is ErrorCode.BAD_RESPONSE, content


async def test_empty_answer_is_no_data() -> None:
    empty = json.dumps({"status": "ok", "totalResults": 0, "articles": []}).encode()
    got = await vendor(FakeUpstream({EVERYTHING_URL: body(empty)})).news("NVDA", date(2025, 8, 29))
    assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA
