"""News from the recorded snapshot: five feeds merged, point in time.

Rules this store keeps:
- Feeds: TradingView (gz CSV), finance_news (CSV), Alpha Vantage NEWS_SENTIMENT (JSON),
  StockNewsAPI (per-ticker CSVs, all dated after the default as-of 2025-08-29) and Yahoo search
  (JSON). ``stocknewsapi/training/labelled_news_all.csv`` is the per-ticker training files
  concatenated, so it is not read twice.
- An item is returned for a ticker only when its feed links it to that ticker (GOOGL and GOOG count
  as one company); only items published on or before the New York end of ``as_of``.
- Newest first; duplicates (same URL, or same normalized title within 72 hours) are dropped,
  keeping the copy that carries a provider sentiment when one does.
- Nothing found -> ``no_data`` naming every feed searched with its date coverage up to ``as_of``;
  a message never counts or dates items published after the as-of date.
- Files are parsed once per process (``Lazy``); queries only read the built index (thread-safe).
"""

from __future__ import annotations

import csv
import gzip
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from findesk.core.dates import NEW_YORK, visible_at
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats import news_feeds
from findesk.data.formats.mentions import company_tickers
from findesk.data.models import NewsItem
from findesk.data.symbols import normalize_symbol
from findesk.data.vendors.snapshot.files import Lazy, SnapshotFiles

SOURCE = "snapshot"
TITLE_WINDOW = timedelta(hours=72)


@dataclass
class _Feed:
    label: str
    items: list[news_feeds.Indexed] = field(default_factory=list)

    def coverage(self, as_of: date) -> str:
        """The feed's date range up to ``as_of`` (capped: nothing later is dated or counted)."""
        days = [
            item.published_at.astimezone(NEW_YORK).date()
            for _, item in self.items
            if visible_at(item.published_at, as_of)
        ]
        return f"{min(days).isoformat()}..{max(days).isoformat()}" if days else "nothing"


def _csv_rows(path: Path) -> Iterator[dict[str, str]]:
    opener: Callable[..., Any] = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as fh:
        yield from csv.DictReader(fh)


def _title_key(title: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", title.lower()).split())


class NewsStore:
    def __init__(self, files: SnapshotFiles) -> None:
        self.files = files
        self._feeds: Lazy[list[_Feed]] = Lazy(self._load)
        self._index: Lazy[dict[str, list[NewsItem]]] = Lazy(self._build_index)

    # --- loading ---------------------------------------------------------------------------------

    def _rels(self, pattern: str) -> list[str]:
        root = self.files.root
        return sorted(p.relative_to(root).as_posix() for p in root.glob(pattern) if p.is_file())

    def _load(self) -> list[_Feed]:
        def csv_feed(label: str, patterns: list[str], parse: Any) -> _Feed:
            feed = _Feed(label)
            for pattern in patterns:
                for rel in self._rels(pattern):
                    feed.items.extend(parse(_csv_rows(self.files.path(rel)), self.files.source(rel)))
            return feed

        def json_feed(label: str, pattern: str, parse: Any) -> _Feed:
            feed = _Feed(label)
            for rel in self._rels(pattern):
                feed.items.extend(parse(self.files.read_json(rel), self.files.source(rel)))
            return feed

        return [
            csv_feed("TradingView", ["news/tradingview_news_*.csv.gz"], news_feeds.tradingview),
            csv_feed("finance_news", ["news/finance_news_*.csv"], news_feeds.finance_news),
            json_feed(
                "Alpha Vantage NEWS_SENTIMENT",
                "news/alphavantage_news_sentiment/*.json",
                news_feeds.alphavantage,
            ),
            csv_feed(
                "StockNewsAPI",
                ["news/stocknewsapi/training/[A-Z]*.csv", "news/stocknewsapi/predict/[A-Z]*.csv"],
                news_feeds.stocknewsapi,
            ),
            json_feed("Yahoo search", "news/yahoo_search/*.json", news_feeds.yahoo_search),
        ]

    def _build_index(self) -> dict[str, list[NewsItem]]:
        index: dict[str, list[NewsItem]] = defaultdict(list)
        for feed in self._feeds.get():
            for ticker, item in feed.items:
                index[ticker].append(item)
        return dict(index)

    # --- queries ---------------------------------------------------------------------------------

    def news(self, symbol: str, as_of: date, limit: int = 20) -> Result[list[NewsItem]]:
        checked = normalize_symbol(symbol)
        if isinstance(checked, Err):
            return Err(checked.code, checked.reason, SOURCE)
        symbol = checked.value
        if limit < 1:
            return Err(ErrorCode.INVALID_INPUT, f"limit must be at least 1, got {limit}", SOURCE)
        index = self._index.get()
        candidates = [item for t in sorted(company_tickers(symbol)) for item in index.get(t, [])]
        visible = [item for item in candidates if visible_at(item.published_at, as_of)]
        if not visible:
            return self._no_data(symbol, as_of)
        visible.sort(key=lambda i: i.published_at, reverse=True)
        return Ok(_dedupe(visible)[:limit])

    def _no_data(self, symbol: str, as_of: date) -> Err:
        searched = "; ".join(f"{f.label} ({f.coverage(as_of)})" for f in self._feeds.get())
        names = "/".join(sorted(company_tickers(symbol)))
        return Err(
            ErrorCode.NO_DATA,
            f"no snapshot news for {names} published on or before {as_of.isoformat()}; "
            f"searched {searched} (date ranges up to that date)",
            SOURCE,
        )


def _dedupe(items: list[NewsItem]) -> list[NewsItem]:
    """Drop repeats of a story, newest-first input: same URL, or same normalized title published
    within ``TITLE_WINDOW`` (recurring column titles such as "Review — Barron's" come back every
    week as new stories, so a title alone is not identity).

    The kept copy is the first seen, unless a later copy carries a provider sentiment and the kept
    one does not. The result is re-sorted newest first.
    """
    by_url: dict[str, int] = {}
    by_title: dict[str, int] = {}
    kept: list[NewsItem] = []
    for item in items:
        url, title = _url_key(item.url), _title_key(item.title)
        slot = by_url.get(url) if url else None
        if slot is None and title in by_title:
            candidate = by_title[title]
            if abs(kept[candidate].published_at - item.published_at) <= TITLE_WINDOW:
                slot = candidate
        if slot is None:
            slot = len(kept)
            kept.append(item)
            if title:
                by_title[title] = slot
        elif kept[slot].sentiment is None and item.sentiment is not None:
            kept[slot] = item
        if url:
            by_url.setdefault(url, slot)
    kept.sort(key=lambda i: i.published_at, reverse=True)
    return kept


def _url_key(url: str | None) -> str:
    return (url or "").strip().rstrip("/").lower()
