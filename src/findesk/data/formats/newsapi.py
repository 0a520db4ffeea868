"""NewsAPI ``/v2/everything`` responses -> ``NewsItem``.

Rules this module keeps:
- A body with ``status: "error"`` becomes a typed ``Err`` from its documented ``code``
  (https://newsapi.org/docs/errors); an unknown code is ``unavailable`` with NewsAPI's own message.
- ``publishedAt`` is ISO 8601 in UTC (``2023-07-21T17:51:58Z``); an article without a title, URL or
  parseable time is skipped. NewsAPI's "[Removed]" placeholders are skipped too.
- NewsAPI links no tickers to articles: ``tickers`` holds only the symbol that was searched for.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats.news_feeds import short_id
from findesk.data.models import NewsItem, Source

SOURCE = "newsapi"

_ERROR_CODES: dict[str, tuple[ErrorCode, str]] = {
    "apiKeyMissing": (ErrorCode.NOT_CONFIGURED, "NewsAPI needs a key: set FINDESK_NEWSAPI_API_KEY"),
    "apiKeyInvalid": (ErrorCode.NOT_CONFIGURED, "NewsAPI rejected the key; check FINDESK_NEWSAPI_API_KEY"),
    "apiKeyDisabled": (ErrorCode.NOT_CONFIGURED, "the NewsAPI key is disabled; renew it or set another"),
    "apiKeyExhausted": (ErrorCode.RATE_LIMITED, "the NewsAPI key has no requests left today"),
    "rateLimited": (ErrorCode.RATE_LIMITED, "NewsAPI is rate limiting this key; try again later"),
    "parameterInvalid": (ErrorCode.INVALID_INPUT, "NewsAPI refused a request parameter"),
    "parametersMissing": (ErrorCode.INVALID_INPUT, "NewsAPI says a required parameter is missing"),
    "sourcesTooMany": (ErrorCode.INVALID_INPUT, "NewsAPI allows at most 20 sources per request"),
    "sourceDoesNotExist": (ErrorCode.INVALID_INPUT, "NewsAPI does not know one of the requested sources"),
    "maximumResultsReached": (ErrorCode.INVALID_INPUT, "NewsAPI's plan limit on result pages was reached"),
    "unexpectedError": (ErrorCode.UNAVAILABLE, "NewsAPI had an internal error"),
}


def error_from_body(body: Mapping[str, Any]) -> Err:
    """The typed error for a ``{"status": "error", "code": ..., "message": ...}`` body."""
    code = str(body.get("code") or "")
    message = str(body.get("message") or "").strip()
    known = _ERROR_CODES.get(code)
    if known is None:
        return Err(
            ErrorCode.UNAVAILABLE, f"NewsAPI answered an error ({code or 'no code'}): {message}", SOURCE
        )
    err_code, reason = known
    detail = f" (NewsAPI: {message})" if message else ""
    return Err(err_code, reason + detail, SOURCE, {"newsapi_code": code})


def parse_everything(body: Any, source: Source, symbol: str | None = None) -> Result[list[NewsItem]]:
    """Parse an ``/v2/everything`` (or ``/v2/top-headlines``) body."""
    if not isinstance(body, Mapping):
        return Err(ErrorCode.BAD_RESPONSE, "NewsAPI answered with JSON that is not an object", SOURCE)
    if body.get("status") == "error":
        return error_from_body(body)
    articles = body.get("articles")
    if body.get("status") != "ok" or not isinstance(articles, list):
        return Err(ErrorCode.BAD_RESPONSE, "NewsAPI answered without a status and an article list", SOURCE)
    items: list[NewsItem] = []
    for art in articles:
        item = _article(art, source, symbol)
        if item is not None:
            items.append(item)
    return Ok(items)


def _article(art: Any, source: Source, symbol: str | None) -> NewsItem | None:
    if not isinstance(art, Mapping):
        return None
    title, url, when = art.get("title"), art.get("url"), art.get("publishedAt")
    if not isinstance(title, str) or not isinstance(url, str) or not isinstance(when, str):
        return None
    if title.strip() == "[Removed]":
        return None
    try:
        published = datetime.fromisoformat(when.replace("Z", "+00:00"))
    except ValueError:
        return None
    if published.tzinfo is None:
        return None
    publisher = art.get("source", {}).get("name") if isinstance(art.get("source"), Mapping) else None
    description = art.get("description")
    return NewsItem(
        id=f"newsapi:{short_id(url)}",
        title=title.strip(),
        summary=description.strip() or None if isinstance(description, str) else None,
        url=url,
        publisher=publisher,
        published_at=published,
        tickers=[symbol] if symbol else [],
        source=source,
    )
