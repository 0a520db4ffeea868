"""Reddit and Stocktwits posts from the recorded snapshot, point in time.

Rules this store keeps:
- Reddit: every CSV export under ``social/reddit/`` (``*.csv`` and ``*.csv.gz``; the schema is
  recognised from the header, see ``formats.reddit``). A post is about a ticker by the export's
  ticker column or a cashtag; exports without a ticker column use the title/text rule
  (1–2-letter tickers need a ``$`` cashtag). GOOGL and GOOG count as one company.
- Stocktwits: ``social/stocktwits/streams_symbol_*.json`` (real ``/api/2/streams/symbol`` bodies),
  filed under the stream's own symbol only: a message in the AAPL stream that also tags $MSFT is
  not MSFT's stream. Pages of one stream are merged and de-duplicated by message id.
- Only posts published on or before the New York end of ``as_of``; newest first; at most ``limit``.
- Nothing found -> ``no_data`` naming what the snapshot holds up to ``as_of`` (date spans capped at
  ``as_of``): a message never counts, dates or names data published after the as-of date.
- Files are parsed once per process (``Lazy``); queries only read the parsed lists (thread-safe).
  The parsed exports, and each ticker's Reddit posts (before the as-of filter), are kept on disk
  between processes (``SnapshotFiles.cached``: rebuilt when an export or the parsers change).
"""

from __future__ import annotations

import csv
import gzip
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from findesk.core.dates import NEW_YORK, visible_at
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats import reddit as reddit_format
from findesk.data.formats import stocktwits as stocktwits_format
from findesk.data.formats.mentions import company_tickers
from findesk.data.models import SocialPost
from findesk.data.symbols import normalize_symbol
from findesk.data.vendors.snapshot.files import Lazy, SnapshotFiles

SOURCE = "snapshot"


@dataclass(frozen=True)
class _Export:
    rel: str
    posts: list[SocialPost]
    has_ticker_column: bool


def _days(posts: list[SocialPost], as_of: date) -> str | None:
    """The date range of the posts visible at ``as_of`` (capped there: a message never reveals what
    the data holds after the as-of date), or None when none is."""
    days = [p.published_at.astimezone(NEW_YORK).date() for p in posts if visible_at(p.published_at, as_of)]
    return f"{min(days).isoformat()}..{max(days).isoformat()}" if days else None


class SocialStore:
    def __init__(self, files: SnapshotFiles) -> None:
        self.files = files
        self._reddit_rels: Lazy[list[str]] = Lazy(
            lambda: files.glob("social/reddit/*.csv") + files.glob("social/reddit/*.csv.gz")
        )
        self._reddit: Lazy[list[_Export]] = Lazy(
            lambda: files.cached("reddit", self._reddit_rels.get(), self._load_reddit, expect=list)
        )
        self._stocktwits: Lazy[dict[str, tuple[list[str], list[SocialPost]]]] = Lazy(
            lambda: files.cached(
                "stocktwits",
                files.glob("social/stocktwits/streams_symbol_*.json"),
                self._load_stocktwits,
                expect=dict,
            )
        )
        # ticker -> its Reddit posts of every date, in export order (the query filters by as_of)
        self._about: dict[str, list[SocialPost]] = {}
        self._about_lock = threading.Lock()

    # --- loading ---------------------------------------------------------------------------------

    def _load_reddit(self) -> list[_Export]:
        exports: list[_Export] = []
        for rel in self._reddit_rels.get():
            path = self.files.path(rel)
            opener: Callable[..., Any] = gzip.open if path.suffix == ".gz" else open
            with opener(path, "rt", encoding="utf-8", newline="") as fh:
                reader = csv.DictReader(fh)
                parsed = reddit_format.parse_export(reader, reader.fieldnames or [], self.files.source(rel))
            if isinstance(parsed, Err):
                # A file of an unknown schema is a snapshot problem the facade reports as unavailable.
                raise ValueError(parsed.reason)
            posts, has_column = parsed.value
            exports.append(_Export(rel, posts, has_column))
        return exports

    def _load_stocktwits(self) -> dict[str, tuple[list[str], list[SocialPost]]]:
        streams: dict[str, tuple[list[str], list[SocialPost]]] = {}
        for rel in self.files.glob("social/stocktwits/streams_symbol_*.json"):
            body = self.files.read_json(rel)
            symbol = stocktwits_format.stream_symbol(body) or _symbol_from_name(Path(rel).name)
            parsed = stocktwits_format.parse_stream(body, self.files.source(rel))
            if isinstance(parsed, Err):
                raise ValueError(f"{rel}: {parsed.reason}")
            rels, posts = streams.setdefault(symbol, ([], []))
            rels.append(rel)
            known = {p.id for p in posts}
            posts.extend(p for p in parsed.value if p.id not in known)
        return streams

    # --- queries ---------------------------------------------------------------------------------

    def reddit(self, symbol: str, as_of: date, limit: int = 50) -> Result[list[SocialPost]]:
        checked = normalize_symbol(symbol)
        if isinstance(checked, Err):
            return Err(checked.code, checked.reason, SOURCE)
        if limit < 1:
            return Err(ErrorCode.INVALID_INPUT, f"limit must be at least 1, got {limit}", SOURCE)
        symbol = checked.value
        visible = [p for p in self._posts_about(symbol) if visible_at(p.published_at, as_of)]
        if not visible:
            exports = self._reddit.get()
            names = "/".join(sorted(company_tickers(symbol)))
            spans = [span for e in exports if (span := _days(e.posts, as_of))]
            held = f"posts dated {', '.join(spans)}, none about {names}" if spans else "no post"
            return Err(
                ErrorCode.NO_DATA,
                f"no snapshot Reddit posts about {names} published on or before {as_of.isoformat()}; "
                f"up to that date the snapshot's Reddit exports hold {held}",
                SOURCE,
            )
        visible.sort(key=lambda p: p.published_at, reverse=True)
        return Ok(visible[:limit])

    def _posts_about(self, symbol: str) -> list[SocialPost]:
        with self._about_lock:
            known = self._about.get(symbol)
        if known is not None:
            return known

        def scan() -> list[SocialPost]:
            return [
                post
                for export in self._reddit.get()
                for post in export.posts
                if reddit_format.mentions_symbol(post, symbol, has_ticker_column=export.has_ticker_column)
            ]

        about = self.files.cached("reddit-about", self._reddit_rels.get(), scan, variant=symbol, expect=list)
        with self._about_lock:
            return self._about.setdefault(symbol, about)

    def stocktwits(self, symbol: str, as_of: date, limit: int = 30) -> Result[list[SocialPost]]:
        checked = stocktwits_format.check_symbol(symbol, SOURCE)
        if isinstance(checked, Err):
            return checked
        symbol = checked.value
        if limit < 1:
            return Err(ErrorCode.INVALID_INPUT, f"limit must be at least 1, got {limit}", SOURCE)
        streams = self._stocktwits.get()
        if symbol not in streams:  # say what the snapshot does hold, up to as_of (built only here)
            spans = [(sym, _days(posts, as_of)) for sym, (_, posts) in sorted(streams.items())]
            held = "; ".join(f"{sym} ({span})" for sym, span in spans if span)
            held = f"messages up to that date only for {held}" if held else "no message up to that date"
            return Err(
                ErrorCode.NO_DATA,
                f"the snapshot has no Stocktwits stream for {symbol} on or before {as_of.isoformat()}; "
                f"it holds {held}",
                SOURCE,
            )
        posts = [p for p in streams[symbol][1] if visible_at(p.published_at, as_of)]
        if not posts:
            return Err(
                ErrorCode.NO_DATA,
                f"the snapshot's Stocktwits stream for {symbol} has no message published on or before "
                f"{as_of.isoformat()}",
                SOURCE,
            )
        posts.sort(key=lambda p: p.published_at, reverse=True)
        return Ok(posts[:limit])


def _symbol_from_name(name: str) -> str:
    """``streams_symbol_ETH.X_2022-06-29_469035372.json`` -> ``ETH.X`` (used when the body lacks it)."""
    return name.removeprefix("streams_symbol_").split("_", 1)[0].upper()
