"""News from the recorded snapshot: five feeds merged, point in time.

Rules this store keeps:
- Feeds: TradingView (gz CSV), finance_news (CSV), Alpha Vantage NEWS_SENTIMENT (JSON),
  StockNewsAPI (per-ticker CSVs, all dated after the default as-of 2025-08-29) and Yahoo search
  (JSON). ``stocknewsapi/training/labelled_news_all.csv`` is the per-ticker training files
  concatenated, so it is not read twice.
- An item is returned for a ticker only when its feed links it to that ticker (GOOGL and GOOG count
  as one company); only items published on or before the New York end of ``as_of``.
- Newest first; duplicates (same URL, or same normalized title within 72 hours: ``story_keys``) are
  dropped, keeping the copy that carries a provider sentiment when one does.
- Nothing found -> ``no_data`` naming every feed searched with its date coverage up to ``as_of``;
  a message never counts or dates items published after the as-of date.
- The topic search (``news_search``) reads every item of the index, whatever ticker it is filed
  under: the items are gathered once per process (an item filed under several tickers counts once)
  and kept in memory; repeats of a story (the rule above) are dropped among the items found. An
  item is found when its title or summary has one of the terms (``vendors.base.term_pattern``) and
  it was published from the New York start of ``since`` to the New York end of ``as_of``. Items no
  feed links to any ticker are not in the index, so not searched.
- Files are parsed once per process (``Lazy``) and the parsed index is kept on disk between
  processes (``SnapshotFiles.cached``: rebuilt when a feed file or the parsers change); a query
  unpickles only its tickers' items. Queries only read the built index (thread-safe).
"""

from __future__ import annotations

import csv
import gzip
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from findesk.core.dates import NEW_YORK, end_of_day, visible_at
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats import news_feeds
from findesk.data.formats.mentions import company_tickers
from findesk.data.models import NewsItem
from findesk.data.symbols import normalize_symbol
from findesk.data.vendors.base import story_keys, term_pattern
from findesk.data.vendors.snapshot.files import Lazy, SnapshotFiles
from findesk.data.vendors.snapshot.store_cache import Blobs

SOURCE = "snapshot"
TITLE_WINDOW = timedelta(hours=72)


def _coverage(published: list[datetime], as_of: date) -> str:
    """A feed's date range up to ``as_of`` (capped: nothing later is dated or counted)."""
    days = [at.astimezone(NEW_YORK).date() for at in published if visible_at(at, as_of)]
    return f"{min(days).isoformat()}..{max(days).isoformat()}" if days else "nothing"


def _csv_rows(path: Path) -> Iterator[dict[str, str]]:
    opener: Callable[..., Any] = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as fh:
        yield from csv.DictReader(fh)


@dataclass(frozen=True)
class _NewsData:
    index: Blobs[list[NewsItem]]  # ticker -> its items, in feed order
    # feed label -> when each of its items was published, in search order (read only to explain
    # a no_data: which feeds were searched and what dates they cover)
    published: Blobs[list[datetime]]


# (label, kind, file patterns, parser) of every feed, in the order they are searched and merged
_FEEDS: tuple[tuple[str, str, tuple[str, ...], Callable[..., list[news_feeds.Indexed]]], ...] = (
    ("TradingView", "csv", ("news/tradingview_news_*.csv.gz",), news_feeds.tradingview),
    ("finance_news", "csv", ("news/finance_news_*.csv",), news_feeds.finance_news),
    (
        "Alpha Vantage NEWS_SENTIMENT",
        "json",
        ("news/alphavantage_news_sentiment/*.json",),
        news_feeds.alphavantage,
    ),
    (
        "StockNewsAPI",
        "csv",
        ("news/stocknewsapi/training/[A-Z]*.csv", "news/stocknewsapi/predict/[A-Z]*.csv"),
        news_feeds.stocknewsapi,
    ),
    ("Yahoo search", "json", ("news/yahoo_search/*.json",), news_feeds.yahoo_search),
)


class NewsStore:
    def __init__(self, files: SnapshotFiles) -> None:
        self.files = files
        self._data: Lazy[_NewsData] = Lazy(self._load)
        self._everything: Lazy[list[NewsItem]] = Lazy(self._gather)

    # --- loading ---------------------------------------------------------------------------------

    def _load(self) -> _NewsData:
        rels = [
            [rel for pattern in patterns for rel in self.files.glob(pattern)] for _, _, patterns, _ in _FEEDS
        ]
        every = [rel for group in rels for rel in group]
        return self.files.cached("news", every, lambda: self._build(rels), expect=_NewsData)

    def _build(self, rels: list[list[str]]) -> _NewsData:
        index: dict[str, list[NewsItem]] = defaultdict(list)
        published: dict[str, list[datetime]] = {}
        for (label, kind, _, parse), group in zip(_FEEDS, rels, strict=True):
            items: list[news_feeds.Indexed] = []
            for rel in group:
                body = _csv_rows(self.files.path(rel)) if kind == "csv" else self.files.read_json(rel)
                items.extend(parse(body, self.files.source(rel)))
            for ticker, item in items:
                index[ticker].append(item)
            published[label] = [item.published_at for _, item in items]
        return _NewsData(Blobs(index), Blobs(published))

    def _gather(self) -> list[NewsItem]:
        """Every indexed item once, newest first: an item filed under several tickers is one item
        (Alpha Vantage's per-ticker copies too, the one with a sentiment kept). Repeats of a story
        (``_dedupe``) are dropped per query, among the items in its window: dropped here, a copy
        published after the window could hide the one inside it."""
        by_id: dict[str, NewsItem] = {}
        for _, items in self._data.get().index.items():
            for item in items:
                kept = by_id.setdefault(item.id, item)
                if kept.sentiment is None and item.sentiment is not None:
                    by_id[item.id] = item
        return sorted(by_id.values(), key=lambda i: i.published_at, reverse=True)

    # --- queries ---------------------------------------------------------------------------------

    def news(self, symbol: str, as_of: date, limit: int = 20) -> Result[list[NewsItem]]:
        checked = normalize_symbol(symbol)
        if isinstance(checked, Err):
            return Err(checked.code, checked.reason, SOURCE)
        symbol = checked.value
        if limit < 1:
            return Err(ErrorCode.INVALID_INPUT, f"limit must be at least 1, got {limit}", SOURCE)
        index = self._data.get().index
        candidates = [item for t in sorted(company_tickers(symbol)) for item in index.get(t) or []]
        visible = [item for item in candidates if visible_at(item.published_at, as_of)]
        if not visible:
            return self._no_data(symbol, as_of)
        visible.sort(key=lambda i: i.published_at, reverse=True)
        return Ok(_dedupe(visible)[:limit])

    def news_search(
        self, query_terms: list[str], as_of: date, since: date, limit: int = 20
    ) -> Result[list[NewsItem]]:
        pattern = term_pattern(query_terms)
        if pattern is None:
            return Err(ErrorCode.INVALID_INPUT, "no search terms; pass words such as gold or tariffs", SOURCE)
        if limit < 1:
            return Err(ErrorCode.INVALID_INPUT, f"limit must be at least 1, got {limit}", SOURCE)
        # the window's ends once: per item (``visible_at``, ``published_since``) they took a third of a
        # search over the ~4,800 items; the feed parsers date every item timezone-aware
        before, last = end_of_day(since - timedelta(days=1)), end_of_day(as_of)
        found = [
            item
            for item in self._everything.get()
            if before < item.published_at <= last and pattern.search(f"{item.title}\n{item.summary or ''}")
        ]
        if not found:
            terms = ", ".join(t.strip() for t in query_terms if t.strip())
            return Err(
                ErrorCode.NO_DATA,
                f"no snapshot news mentioning {terms} published {since.isoformat()}..{as_of.isoformat()}; "
                f"searched {self._feeds(as_of)} (date ranges up to {as_of.isoformat()})",
                SOURCE,
            )
        return Ok(_dedupe(found)[:limit])

    def _no_data(self, symbol: str, as_of: date) -> Err:
        names = "/".join(sorted(company_tickers(symbol)))
        return Err(
            ErrorCode.NO_DATA,
            f"no snapshot news for {names} published on or before {as_of.isoformat()}; "
            f"searched {self._feeds(as_of)} (date ranges up to that date)",
            SOURCE,
        )

    def _feeds(self, as_of: date) -> str:
        """Every feed with the dates it covers up to ``as_of``."""
        feeds = self._data.get().published.items()
        return "; ".join(f"{label} ({_coverage(published, as_of)})" for label, published in feeds)


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
        url, title = story_keys(item)
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
