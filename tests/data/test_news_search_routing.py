"""The full-text news search through the router: the snapshot offline, NewsAPI live (no recorded data
mixed in unless the user's chain says so), a missing key answered ``not_configured`` without a
request, and the router's own checks of the terms and the window."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import httpx

from findesk.core.config import Settings
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.context import resolve_context
from findesk.data.models import NewsItem
from findesk.data.registry import build_router
from findesk.data.router import DataRouter
from findesk.data.vendors.base import Category, Vendor

SINCE, AS_OF = date(2025, 5, 17), date(2025, 5, 23)


class RecordingSearch(Vendor):
    name = "recorder"
    categories = frozenset({Category.NEWS_SEARCH})

    def __init__(self) -> None:
        self.calls: list[tuple[list[str], date, date, int]] = []

    async def news_search(
        self, query_terms: list[str], as_of: date, since: date, limit: int = 20
    ) -> Result[list[NewsItem]]:
        self.calls.append((query_terms, as_of, since, limit))
        return Err(ErrorCode.NO_DATA, "nothing", self.name)


def _router(
    snapshot_dir: Path, mode: str, chains: dict[str, list[str]], sent: list[httpx.Request]
) -> DataRouter:
    settings = Settings(snapshot_dir=snapshot_dir, chains=chains)
    ctx = resolve_context(settings, mode=mode, as_of=AS_OF)  # type: ignore[arg-type]
    assert isinstance(ctx, Ok), ctx

    def refuse(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(500)

    router = build_router(settings, ctx.value, transport=httpx.MockTransport(refuse))
    assert isinstance(router, Ok), router
    return router.value


async def test_snapshot_mode_searches_the_recorded_news(snapshot_dir: Path) -> None:
    sent: list[httpx.Request] = []
    router = _router(snapshot_dir, "snapshot", {}, sent)
    assert router.chain_names(Category.NEWS_SEARCH) == ["snapshot"]
    got = await router.news_search(["tariffs"], AS_OF, SINCE, 10)
    assert isinstance(got, Ok) and len(got.value) == 10
    assert all(i.source.vendor == "snapshot" for i in got.value)
    assert sent == []
    await router.aclose()


async def test_live_mode_asks_newsapi_only_and_without_a_key_sends_nothing(snapshot_dir: Path) -> None:
    sent: list[httpx.Request] = []
    router = _router(snapshot_dir, "live", {}, sent)
    assert router.chain_names(Category.NEWS_SEARCH) == ["newsapi"]  # live chains never name the snapshot
    got = await router.news_search(["tariffs"], AS_OF, SINCE, 10)
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_CONFIGURED
    assert "FINDESK_NEWSAPI_API_KEY" in got.reason
    assert sent == []
    await router.aclose()


async def test_a_chain_may_add_the_recording_as_the_live_fallback(snapshot_dir: Path) -> None:
    sent: list[httpx.Request] = []
    router = _router(snapshot_dir, "live", {"news_search": ["newsapi", "snapshot"]}, sent)
    got = await router.news_search(["tariffs"], AS_OF, SINCE, 5)
    assert isinstance(got, Ok) and [i.source.vendor for i in got.value] == ["snapshot"] * 5
    assert sent == []
    await router.aclose()


async def test_the_router_cleans_the_terms_and_checks_the_window() -> None:
    first, second = RecordingSearch(), RecordingSearch()
    router = DataRouter({Category.NEWS_SEARCH: [first, second]})
    got = await router.news_search(["  gold ", "Gold", "precious  metals", "", "silver"], AS_OF, SINCE, 7)
    assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA
    assert "no vendor has news mentioning gold, precious metals, silver published 2025-05-17..2025-05-23" in (
        got.reason
    )
    assert first.calls == second.calls == [(["gold", "precious metals", "silver"], AS_OF, SINCE, 7)]
    mistakes = [(["  ", ""], SINCE, 5), (["gold"], date(2025, 5, 24), 5), (["gold"], SINCE, 0)]
    for terms, since, limit in mistakes:
        bad = await router.news_search(terms, AS_OF, since, limit)
        assert isinstance(bad, Err) and bad.code is ErrorCode.INVALID_INPUT, (terms, since, limit)
    assert len(first.calls) == 1  # a caller's mistake never reaches a vendor
