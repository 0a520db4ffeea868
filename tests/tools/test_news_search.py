"""``search_news``: the tickers' news and a full-text search for the topic's words, merged.

On the snapshot, the search finds a sector's words in articles of stocks it does not name (gold in a
week when no miner has recorded news); with a live NewsAPI vendor (served from a fake upstream) its
articles join the snapshot's once each; without a NewsAPI key the tool still answers from the
tickers' news and lists no failure."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

import httpx
from pydantic import SecretStr

from findesk.analytics.etf.sector_taxonomy import news_sources
from findesk.core.config import HttpSettings, Settings
from findesk.data.http.client import HttpClient
from findesk.data.router import DataRouter
from findesk.data.vendors.base import Category
from findesk.data.vendors.newsapi import NewsApiVendor
from findesk.tools.base import ToolContext, ToolOutcome, execute
from findesk.tools.catalog import default_registry

Call = Callable[..., ToolOutcome]
WEEK_END = date(2025, 5, 23)
SINCE = "2025-05-19"
TARIFF = re.compile(r"\btariffs?\b", re.IGNORECASE)
# a real NVDA story of the week in the snapshot (TradingView, Barron's via Dow Jones)
DIMON = "Jamie Dimon's Tariffs Warning Should Have Rocked Markets. Why He's Being Ignored. — Barrons.com"


def _title_key(title: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", title.lower()).split())


def test_a_sector_without_ticker_news_finds_its_words_in_other_articles(call: Call) -> None:
    tickers, terms = news_sources("Gold & Precious Metals")
    out = call(
        "search_news", at=WEEK_END, tickers=list(tickers), terms=list(terms), since="2025-05-17", limit=10
    )
    assert out.ok, out.summary
    found = out.payload
    # the miners have no recorded news; the search finds the metal in the week's headlines
    assert found["items"] and found["failures"] == []
    first = found["items"][0]
    assert first["title"] == "Platinum Gets a Glimmer of Hope. But Gold Still Rules. — Barrons.com"
    assert not set(first["tickers"]) & set(tickers)
    assert all(re.search(r"\b(gold|silver|platinum|palladium)\b", i["title"], re.I) for i in found["items"])
    assert found["searched"].startswith("news of NEM, AEM, WPM, FNV published 2025-05-17..2025-05-23")
    assert re.search(
        r"and a full-text search of snapshot news for the terms \(\d+ article\(s\) read\)", found["searched"]
    )


def test_search_articles_count_only_when_their_headline_names_the_topic(call: Call) -> None:
    out = call(
        "search_news", at=WEEK_END, tickers=["NVDA"], terms=["tariff", "tariffs"], since=SINCE, limit=50
    )
    assert out.ok, out.summary
    items = out.payload["items"]
    assert out.payload["matched"] == 62 and len(items) == 50
    others = [i for i in items if "NVDA" not in i["tickers"]]
    assert len(others) > 30 and all(TARIFF.search(i["title"]) for i in others)
    # NVDA's own articles may name the topic in the summary only (a weekly digest)
    assert any(not TARIFF.search(i["title"]) for i in items if "NVDA" in i["tickers"])
    assert len({i["url"] for i in items}) == len({_title_key(i["title"]) for i in items}) == len(items)
    days = [i["published_at"][:10] for i in items]
    assert min(days) >= SINCE and max(days) <= "2025-05-24"  # the NY evening of the 23rd is 00:xx UTC
    hits = [len(TARIFF.findall(i["title"])) > 0 for i in items]
    assert hits == sorted(hits, reverse=True)  # headlines that name the topic first


def _newsapi_body(published: datetime) -> bytes:
    def article(title: str, url: str, when: str, description: str) -> dict[str, Any]:
        return {
            "source": {"id": None, "name": "Example Wire"},
            "title": title,
            "description": description,
            "url": url,
            "publishedAt": when,
        }

    articles = [
        # the snapshot's story again, under the publisher's own URL
        article(
            DIMON, "https://www.barrons.com/articles/jamie-dimon-tariffs-warning", published.isoformat(), ""
        ),
        article(
            "Gold jumps as tariff threats revive haven demand",
            "https://example.com/gold",
            "2025-05-23T15:00:00Z",
            "",
        ),
        article(
            "Markets wobble into the long weekend",
            "https://example.com/wobble",
            "2025-05-23T16:00:00Z",
            "Tariffs again.",
        ),
        article("Tariffs paused, stocks rally", "https://example.com/old", "2025-05-12T14:00:00Z", ""),
    ]
    return json.dumps({"status": "ok", "totalResults": len(articles), "articles": articles}).encode()


def _with_newsapi(tool_ctx: ToolContext, upstream: httpx.MockTransport, key: str | None) -> ToolContext:
    """The session's snapshot for the tickers' news and a NewsAPI vendor on ``upstream`` for the search."""
    http = HttpClient(HttpSettings(retries=0, rate_limits={}, default_rps=10_000.0), transport=upstream)
    newsapi = NewsApiVendor(http, Settings(newsapi_api_key=SecretStr(key) if key else None))
    router = DataRouter(
        {Category.NEWS: tool_ctx.router.chains[Category.NEWS], Category.NEWS_SEARCH: [newsapi]}
    )
    context = tool_ctx.context.model_copy(update={"as_of": WEEK_END, "as_of_is_default": False})
    return ToolContext(router=router, sections=tool_ctx.sections, context=context)


def _run(ctx: ToolContext, **arguments: Any) -> ToolOutcome:
    return asyncio.run(execute(default_registry().get("search_news"), "search_news", arguments, ctx))


def _dimon_time(call: Call) -> datetime:
    out = call("search_news", at=WEEK_END, tickers=["NVDA"], terms=["tariffs"], since=SINCE, limit=50)
    [story] = [i for i in out.payload["items"] if i["title"] == DIMON]
    return datetime.fromisoformat(story["published_at"]).astimezone(UTC)


def test_newsapi_articles_join_the_snapshot_once_each(tool_ctx: ToolContext, call: Call) -> None:
    sent: list[httpx.Request] = []
    body = _newsapi_body(_dimon_time(call))

    def upstream(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, content=body, headers={"Content-Type": "application/json"})

    ctx = _with_newsapi(tool_ctx, httpx.MockTransport(upstream), "test-key")
    out = _run(ctx, tickers=["NVDA"], terms=["tariff", "tariffs"], since=SINCE, limit=50)
    assert out.ok, out.summary
    [request] = sent
    assert (
        request.url.params["q"] == '"tariff" OR "tariffs"'
        and request.url.params["from"] == "2025-05-19T04:00:00"
    )
    items = out.payload["items"]
    by_title = {i["title"]: i for i in items}
    assert by_title["Gold jumps as tariff threats revive haven demand"]["source"]["vendor"] == "newsapi"
    # the story both found is listed once, as the snapshot's copy (the ticker's news comes first)
    assert [i["source"]["vendor"] for i in items if i["title"] == DIMON] == ["snapshot"]
    assert "Markets wobble into the long weekend" not in by_title  # the topic only in its description
    assert "Tariffs paused, stocks rally" not in by_title  # before the window
    assert out.payload["failures"] == []
    # NewsAPI's answer held 3 articles in the window (the fourth was dropped by the vendor itself)
    assert (
        "and a full-text search of newsapi news for the terms (3 article(s) read)" in out.payload["searched"]
    )


def test_without_a_newsapi_key_the_snapshot_answers_and_nothing_failed(
    tool_ctx: ToolContext, call: Call
) -> None:
    sent: list[httpx.Request] = []

    def upstream(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(500)

    ctx = _with_newsapi(tool_ctx, httpx.MockTransport(upstream), None)
    out = _run(ctx, tickers=["NVDA"], terms=["tariff", "tariffs"], since=SINCE, limit=50)
    assert out.ok, out.summary
    assert sent == [] and out.payload["failures"] == []
    assert out.payload["searched"].endswith("; no full-text news search is configured")
    items = out.payload["items"]
    assert items and all("NVDA" in i["tickers"] for i in items)  # the ticker's own news only
    assert any(i["title"] == DIMON for i in items)


def test_a_failing_search_vendor_is_a_listed_failure(tool_ctx: ToolContext) -> None:
    ctx = _with_newsapi(tool_ctx, httpx.MockTransport(lambda r: httpx.Response(503)), "test-key")
    out = _run(ctx, tickers=["NVDA"], terms=["tariffs"], since=SINCE, limit=5)
    assert out.ok, out.summary
    assert out.payload["failures"] == ["full-text search: unavailable"]
    assert out.payload["searched"].endswith(
        "and a full-text search for the terms, which failed (unavailable)"
    )
    assert "Sources failed for full-text search: unavailable" in out.summary
    assert len(out.payload["items"]) == 5  # the ticker's news still answers
