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
- ``news_search(terms)`` asks for any of the first ``MAX_QUERY_TERMS`` terms as quoted phrases
  (``"gold" OR "silver"``, NewsAPI's syntax; ``q`` stays within NewsAPI's 500 characters) in the
  title and description only (``searchIn``), the fields the snapshot's search reads; ``from`` is the
  New York start of ``since`` (in UTC) and the answer is filtered again by that window.
- Cache class "news".
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time

import httpx

from findesk.core.dates import NEW_YORK, end_of_day, published_since
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats import newsapi as fmt
from findesk.data.formats.mentions import company_tickers
from findesk.data.models import NewsItem, Source
from findesk.data.symbols import normalize_symbol
from findesk.data.vendors.base import Category, HttpVendor, newest_visible

EVERYTHING_URL = "https://newsapi.org/v2/everything"
NO_KEY = "NewsAPI needs an API key: set FINDESK_NEWSAPI_API_KEY"
PAGE_MAX = 100  # NewsAPI's largest pageSize
MAX_QUERY_TERMS = 10  # terms of one news_search query: a sector's most telling words come first
QUERY_CHARS = 500  # NewsAPI's longest q
_UTC_STAMP = "%Y-%m-%dT%H:%M:%S"


class NewsApiVendor(HttpVendor):
    name = "newsapi"
    categories = frozenset({Category.NEWS, Category.NEWS_SEARCH})

    async def news(self, symbol: str, as_of: date, limit: int = 20) -> Result[list[NewsItem]]:
        checked = normalize_symbol(symbol)
        if isinstance(checked, Err):
            return Err(checked.code, checked.reason, self.name)
        query = " OR ".join(sorted(company_tickers(checked.value)))
        return await self.search(query, as_of, limit, symbol=checked.value)

    async def news_search(
        self, query_terms: list[str], as_of: date, since: date, limit: int = 20
    ) -> Result[list[NewsItem]]:
        query = search_query(query_terms)
        if not query:
            return Err(ErrorCode.INVALID_INPUT, "no search terms for NewsAPI", self.name)
        return await self.search(query, as_of, limit, since=since, in_fields="title,description")

    async def search(
        self,
        query: str,
        as_of: date,
        limit: int = 20,
        *,
        symbol: str | None = None,
        since: date | None = None,
        in_fields: str | None = None,
    ) -> Result[list[NewsItem]]:
        """Articles matching ``query`` published on or before ``as_of`` (and, with ``since``, on or
        after the New York start of that day), newest first. ``in_fields`` is NewsAPI's ``searchIn``."""
        key = self.settings.newsapi_api_key
        if key is None or not key.get_secret_value().strip():
            return Err(ErrorCode.NOT_CONFIGURED, NO_KEY, self.name)
        if not query.strip():
            return Err(ErrorCode.INVALID_INPUT, "the NewsAPI query is empty", self.name)
        if limit < 1:
            return Err(ErrorCode.INVALID_INPUT, f"limit must be at least 1, got {limit}", self.name)
        params: dict[str, str | int] = {
            "q": query,
            "to": end_of_day(as_of).astimezone(UTC).strftime(_UTC_STAMP),
            "sortBy": "publishedAt",
            "language": "en",
            "pageSize": min(limit, PAGE_MAX),
        }
        if since is not None:
            params["from"] = datetime.combine(since, time.min, NEW_YORK).astimezone(UTC).strftime(_UTC_STAMP)
        if in_fields is not None:
            params["searchIn"] = in_fields
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
        window = "" if since is None else f" and on or after {since.isoformat()}"
        return newest_visible(
            _published_since(fmt.parse_everything(got.value, source, symbol), since),
            as_of,
            limit,
            self.name,
            lambda _: (
                f"NewsAPI has no articles matching {query!r} published on or before "
                f"{as_of.isoformat()}{window} (free plans search only about the last month)"
            ),
        )


def search_query(terms: list[str]) -> str:
    """``"a" OR "b" OR …``: the first ``MAX_QUERY_TERMS`` distinct terms as exact phrases, as many
    as fit in ``QUERY_CHARS``; empty when no term is usable. Quotes inside a term are dropped (a
    quote would end the phrase)."""
    phrases: list[str] = []
    for term in terms:
        cleaned = " ".join(term.replace('"', " ").split())
        phrase = f'"{cleaned}"'
        if not cleaned or phrase.lower() in (p.lower() for p in phrases):
            continue
        if len(" OR ".join([*phrases, phrase])) > QUERY_CHARS or len(phrases) == MAX_QUERY_TERMS:
            break
        phrases.append(phrase)
    return " OR ".join(phrases)


def _published_since(read: Result[list[NewsItem]], since: date | None) -> Result[list[NewsItem]]:
    if isinstance(read, Err) or since is None:
        return read
    return Ok([item for item in read.value if published_since(item.published_at, since)])
