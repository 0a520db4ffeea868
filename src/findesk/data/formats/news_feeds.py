"""Parsers of the recorded news feeds: TradingView, finance_news, Alpha Vantage, StockNewsAPI, Yahoo.

Rules this module keeps:
- Pure functions from rows / decoded JSON to ``NewsItem``; no file access. Each returns
  ``(ticker, item)`` pairs: the item is filed under every ticker the *source* links it to (never a
  ticker guessed from the text). Alpha Vantage gives a sentiment per ticker, so it yields one item
  per (article, ticker) carrying that ticker's label and score.
- Every ``published_at`` is timezone-aware; each parser states the timezone it assumes and why.
- A row without a title, a URL or a parseable time is skipped, never guessed.
- Summaries are capped at ``SUMMARY_CHARS`` (TradingView carries whole articles of up to 16k
  characters; a summary is for reading, the URL is for the article).
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from findesk.data.models import NewsItem, Source

SUMMARY_CHARS = 1200
Indexed = tuple[str, NewsItem]

# TradingView story paths start with the provider's id (".../news/DJN_DN2025...", ".../news/zacks:...").
_TRADINGVIEW_PROVIDERS = {
    "DJN": "Dow Jones Newswires",
    "mtnewswires.com": "MT Newswires",
    "zacks": "Zacks",
    "gurufocus": "GuruFocus",
    "tradingview": "TradingView",
    "invezz": "Invezz",
    "marketbeat": "MarketBeat",
    "moneycontrol": "Moneycontrol",
    "reuters.com": "Reuters",
}
# finance_news scraped some pages behind a bot wall; their "description" is the wall's text.
_BOT_WALL = re.compile(r"^\s*(Pardon Our Interruption|Access Denied|Just a moment)", re.IGNORECASE)


def short_id(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def clip(text: str | None, limit: int = SUMMARY_CHARS) -> str | None:
    """Whitespace-trimmed text cut at a word boundary to ``limit`` characters; empty -> None."""
    if text is None:
        return None
    text = text.strip()
    if not text or text.lower() == "nan":
        return None
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:.") + " …"


def _item(
    *,
    id: str,
    title: str,
    url: str | None,
    publisher: str | None,
    published_at: datetime,
    tickers: Iterable[str],
    source: Source,
    summary: str | None = None,
    sentiment: str | None = None,
    sentiment_score: float | None = None,
) -> NewsItem:
    return NewsItem(
        id=id,
        title=title.strip(),
        summary=clip(summary),
        url=url,
        publisher=publisher,
        published_at=published_at,
        tickers=sorted(set(tickers)),
        sentiment=sentiment,
        sentiment_score=sentiment_score,
        source=source,
    )


def _float(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


# --- TradingView (news/tradingview_news_*.csv.gz) -------------------------------------------------


def tradingview_publisher(story_path: str) -> str | None:
    match = re.search(r"/news/([A-Za-z.]+?)(?:[:_,]|$)", story_path)
    if not match:
        return None
    return _TRADINGVIEW_PROVIDERS.get(match.group(1), match.group(1))


def tradingview(rows: Iterable[Mapping[str, str]], source: Source) -> list[Indexed]:
    """Rows of the concatenated per-ticker TradingView CSVs; one item per story (``storyPath``).

    Time: ``published`` is epoch milliseconds, i.e. UTC by definition (``published_utc`` is the same
    instant, added by the snapshot). A story in several tickers' files is filed under each of them.
    """
    stories: dict[str, tuple[Mapping[str, str], set[str]]] = {}
    for row in rows:
        url = (row.get("storyPath") or "").strip()
        if not url or not (row.get("title") or "").strip():
            continue
        entry = stories.setdefault(url, (row, set()))
        entry[1].add((row.get("query_ticker") or "").strip().upper())
    out: list[Indexed] = []
    for url, (row, tickers) in stories.items():
        try:
            published = datetime.fromtimestamp(int(row["published"]) / 1000, tz=UTC)
        except (KeyError, ValueError, OverflowError):
            continue
        tickers.discard("")
        key = re.sub(r"^https://www\.tradingview\.com/news/", "", url).strip("/")
        item = _item(
            id=f"tradingview:{key}",
            title=row["title"],
            url=url,
            publisher=tradingview_publisher(url),
            published_at=published,
            tickers=tickers,
            summary=row.get("descriptionText"),
            source=source,
        )
        out.extend((t, item) for t in item.tickers)
    return out


# --- finance_news (news/finance_news_*.csv) -------------------------------------------------------


def _literal_list(text: str | None) -> list[str]:
    """A Python list literal as written by pandas (``"['aapl', 'msft']"``); anything else -> []."""
    if not text:
        return []
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return []
    return [str(v) for v in value] if isinstance(value, list | tuple) else []


def finance_news(rows: Iterable[Mapping[str, str]], source: Source) -> list[Indexed]:
    """Rows of ``finance_news_*.csv`` (lower-case ticker lists).

    Time: ``published_at`` carries an explicit ``+00:00`` offset, so no assumption is needed.
    """
    out: list[Indexed] = []
    for row in rows:
        url, title = (row.get("url") or "").strip(), (row.get("title") or "").strip()
        try:
            published = datetime.fromisoformat((row.get("published_at") or "").strip())
        except ValueError:
            continue
        if not url or not title or published.tzinfo is None:
            continue
        description = row.get("description")
        if description and _BOT_WALL.match(description):
            description = None
        item = _item(
            id=f"finance_news:{short_id(url)}",
            title=title,
            url=url,
            publisher=(row.get("source") or "").strip() or None,
            published_at=published,
            tickers={t.upper() for t in _literal_list(row.get("tickers"))},
            summary=description,
            source=source,
        )
        out.extend((t, item) for t in item.tickers)
    return out


# --- Alpha Vantage NEWS_SENTIMENT (news/alphavantage_news_sentiment/*.json) ----------------------


def alphavantage_time(text: str) -> datetime | None:
    """``20240103T165940`` -> aware datetime.

    Assumed UTC: the format carries no zone, but the one stamp in the snapshot written with a
    ``Z`` suffix sorts in sequence with its un-suffixed neighbours of the same feed, which an
    Eastern-time feed would not do.
    """
    try:
        return datetime.strptime(text.strip().rstrip("Z"), "%Y%m%dT%H%M%S").replace(tzinfo=UTC)
    except (ValueError, AttributeError):
        return None


def alphavantage(body: Mapping[str, Any], source: Source) -> list[Indexed]:
    """A NEWS_SENTIMENT response: one item per (article, ticker) with that ticker's sentiment.

    Crypto and forex entries (``CRYPTO:BTC``, ``FOREX:USD``) are not filed: findesk's news is about
    listed companies.
    """
    out: list[Indexed] = []
    feed = body.get("feed")
    if not isinstance(feed, list):
        return out
    for art in feed:
        if not isinstance(art, Mapping):
            continue
        url, title = art.get("url"), art.get("title")
        published = alphavantage_time(str(art.get("time_published", "")))
        if not isinstance(url, str) or not isinstance(title, str) or published is None:
            continue
        per_ticker = [t for t in art.get("ticker_sentiment") or [] if isinstance(t, Mapping)]
        tickers = [str(t.get("ticker", "")).upper() for t in per_ticker]
        listed = [t for t in tickers if t and ":" not in t]
        for ticker, sent in zip(tickers, per_ticker, strict=True):
            if ticker not in listed:
                continue
            relevance = _float(sent.get("relevance_score"))
            item = _item(
                id=f"alphavantage:{short_id(url)}",
                title=title,
                url=url,
                publisher=art.get("source") or art.get("source_domain"),
                published_at=published,
                tickers=listed,
                summary=art.get("summary"),
                sentiment=sent.get("ticker_sentiment_label"),
                sentiment_score=_float(sent.get("ticker_sentiment_score")),
                source=source.model_copy(
                    update={
                        "note": f"sentiment is Alpha Vantage's for {ticker}"
                        + (f" (relevance {relevance:g})" if relevance is not None else "")
                    }
                ),
            )
            out.append((ticker, item))
    return out


# --- StockNewsAPI (news/stocknewsapi/{training,predict}/<TICKER>.csv) -----------------------------


def stocknewsapi(rows: Iterable[Mapping[str, str]], source: Source) -> list[Indexed]:
    """StockNewsAPI article rows (``sentiment`` only in the training files).

    Time: ``date`` is RFC 2822 with an explicit offset (``Sun, 16 Nov 2025 12:24:00 -0500``).
    """
    out: list[Indexed] = []
    for row in rows:
        url, title = (row.get("news_url") or "").strip(), (row.get("title") or "").strip()
        try:
            published = parsedate_to_datetime((row.get("date") or "").strip())
        except (TypeError, ValueError, IndexError):
            continue
        if not url or not title or published.tzinfo is None:
            continue
        tickers = {t.strip().upper() for t in (row.get("tickers") or "").split(",") if t.strip()}
        item = _item(
            id=f"stocknewsapi:{short_id(url)}",
            title=title,
            url=url,
            publisher=(row.get("source_name") or "").strip() or None,
            published_at=published,
            tickers=tickers,
            summary=row.get("text"),
            sentiment=(row.get("sentiment") or "").strip() or None,
            source=source,
        )
        out.extend((t, item) for t in item.tickers)
    return out


# --- Yahoo v1/finance/search (news/yahoo_search/search-<SYM>.json) --------------------------------


def yahoo_search(body: Mapping[str, Any], source: Source) -> list[Indexed]:
    """The ``news`` list of a Yahoo search response (bare, or wrapped as ``{request, response}``).

    Items are filed under their ``relatedTickers`` only, not under the searched symbol: Yahoo's
    search returns loosely related stories (a Buffett piece tagged BRK-B in the AAPL search).
    Time: ``providerPublishTime`` is epoch seconds (UTC).
    """
    if "response" in body and isinstance(body["response"], Mapping):
        body = body["response"].get("bodyJson") or {}
    out: list[Indexed] = []
    for news in body.get("news") or []:
        if not isinstance(news, Mapping):
            continue
        title, url, when = news.get("title"), news.get("link"), news.get("providerPublishTime")
        if not isinstance(title, str) or not isinstance(url, str) or not isinstance(when, int | float):
            continue
        item = _item(
            id=f"yahoo:{news.get('uuid') or short_id(url)}",
            title=title,
            url=url,
            publisher=news.get("publisher"),
            published_at=datetime.fromtimestamp(when, tz=UTC),
            tickers={str(t).upper() for t in news.get("relatedTickers") or []},
            source=source,
        )
        out.extend((t, item) for t in item.tickers)
    return out
