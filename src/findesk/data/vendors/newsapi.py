"""Live NewsAPI: ``https://newsapi.org/v2/everything``.

Rules this vendor keeps:
- The key goes in the ``X-Api-Key`` header (never the query string, which logs and caches keep).
  Without ``settings.newsapi_api_key`` every call answers ``not_configured`` and sends nothing.
- ``status: "error"`` bodies become typed errors (``formats.newsapi``); an HTTP 401 (NewsAPI's answer
  to a missing or bad key) is ``not_configured``, 429 ``rate_limited``.
- Point in time: the request asks for articles up to the New York end of ``as_of`` (``to``, in UTC)
  and the answer is filtered again by ``publishedAt``, newest first.
- NewsAPI is a full-text search, not a ticker feed: ``news(symbol)`` searches the ticker itself
  (GOOGL also searches GOOG); ``search(query)`` takes any query, e.g. a company name.
- Cache class "news".
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import httpx

from findesk.core.dates import end_of_day
from findesk.core.result import Err, ErrorCode, Result
from findesk.data.formats import newsapi as fmt
from findesk.data.formats.mentions import company_tickers
from findesk.data.models import NewsItem, Source
from findesk.data.symbols import normalize_symbol
from findesk.data.vendors.base import Category, HttpVendor, newest_visible

EVERYTHING_URL = "https://newsapi.org/v2/everything"
NO_KEY = "NewsAPI needs an API key: set FINDESK_NEWSAPI_API_KEY"
PAGE_MAX = 100  # NewsAPI's largest pageSize


class NewsApiVendor(HttpVendor):
    name = "newsapi"
    categories = frozenset({Category.NEWS})

    async def news(self, symbol: str, as_of: date, limit: int = 20) -> Result[list[NewsItem]]:
        checked = normalize_symbol(symbol)
        if isinstance(checked, Err):
            return Err(checked.code, checked.reason, self.name)
        query = " OR ".join(sorted(company_tickers(checked.value)))
        return await self.search(query, as_of, limit, symbol=checked.value)

    async def search(
        self, query: str, as_of: date, limit: int = 20, *, symbol: str | None = None
    ) -> Result[list[NewsItem]]:
        """Articles matching ``query`` published on or before ``as_of``, newest first."""
        key = self.settings.newsapi_api_key
        if key is None or not key.get_secret_value().strip():
            return Err(ErrorCode.NOT_CONFIGURED, NO_KEY, self.name)
        if not query.strip():
            return Err(ErrorCode.INVALID_INPUT, "the NewsAPI query is empty", self.name)
        if limit < 1:
            return Err(ErrorCode.INVALID_INPUT, f"limit must be at least 1, got {limit}", self.name)
        params: dict[str, str | int] = {
            "q": query,
            "to": end_of_day(as_of).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S"),
            "sortBy": "publishedAt",
            "language": "en",
            "pageSize": min(limit, PAGE_MAX),
        }
        got = await self.http.get_json(
            EVERYTHING_URL,
            params=params,
            headers={"X-Api-Key": key.get_secret_value().strip()},
            freshness="news",
            source=self.name,
        )
        if isinstance(got, Err):
            if got.details.get("status") == 401:
                return Err(
                    ErrorCode.NOT_CONFIGURED,
                    "NewsAPI rejected the API key (401); check FINDESK_NEWSAPI_API_KEY",
                    self.name,
                    got.details,
                )
            return got
        ref = str(httpx.URL(EVERYTHING_URL, params=params))
        source = Source(vendor=self.name, ref=ref, retrieved_at=datetime.now(UTC))
        return newest_visible(
            fmt.parse_everything(got.value, source, symbol),
            as_of,
            limit,
            self.name,
            lambda _: (
                f"NewsAPI has no articles matching {query!r} published on or before "
                f"{as_of.isoformat()} (free plans search only about the last month)"
            ),
        )
