"""Topic news search: the news of a few tickers and a full-text search for the topic's words.

Rules:
- Thin over the one router: one ``DataRouter.news`` call per ticker (concurrently, at most
  ``MAX_TICKERS``) and, when terms are given, one ``DataRouter.news_search`` for them (any ticker's
  articles, or none), so the snapshot serves offline and the configured live vendors serve live,
  with the same shapes. No article found -> an empty list with what was searched, not an error:
  "nothing found" is the answer a sector without news must get.
- The tickers' articles come first, then the search's: a story found twice (same URL, or same title
  once case and punctuation are set aside: ``vendors.base.story_keys``) is kept once, as its first copy.
- A ticker's article is kept when its headline or summary contains one of ``terms`` (whole words,
  case folded, ``vendors.base.term_pattern``, the search vendors' own rule), or, with no terms given,
  always; an article only the full-text search found is kept only when its headline does (it is about
  none of the tickers, and a market wrap's body names every sector in passing). Those whose headline
  names the topic come first, then the newest. Only articles published on or after ``since`` (New
  York day) and on or before the run's as-of date are visible.
- ``failures`` lists the sources that failed, not those with nothing to say: a ticker's or the
  search's ``no_data`` is not a failure, nor is a search no vendor is configured for (live without a
  NewsAPI key); ``searched`` says which of these happened to the search.
- Third-party text: the result is screened like every news tool's (``third_party="passage"``).
"""

from __future__ import annotations

import asyncio
import re
from datetime import date
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from findesk.core.dates import published_since
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import NewsItem
from findesk.data.vendors.base import story_keys, term_pattern
from findesk.tools.args import QUOTE_RULE, Ticker, ToolArgs
from findesk.tools.base import Tool, ToolContext
from findesk.tools.social import summarize_news

MAX_TICKERS = 8
PER_TICKER = 200  # articles read per ticker before the window and terms filter them
SEARCH_LIMIT = 200  # articles of the full-text search read before ranking (NewsAPI sends at most 100)


class NewsSearchArgs(ToolArgs):
    tickers: Annotated[
        list[Ticker],
        Field(
            min_length=1,
            max_length=MAX_TICKERS,
            description="The stocks whose news speaks for the topic (e.g. a sector's largest), up to 8.",
        ),
    ]
    terms: Annotated[
        list[Annotated[str, Field(min_length=2, max_length=40)]],
        Field(
            default_factory=list,
            max_length=40,
            description="Keep articles whose headline or summary has one of these words.",
        ),
    ]
    since: date = Field(description="Only articles published on or after this day (New York time).")
    limit: Annotated[int, Field(ge=1, le=50, description="At most this many articles, newest first.")] = 10


class NewsSearch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    items: list[NewsItem]
    # tickers, terms, window and what the full-text search did, so "nothing found" can be checked
    searched: str
    matched: int  # articles in the window that matched, before ``limit``
    read: int  # articles in the window read, matched or not
    # sources that failed ("NVDA: timeout", "full-text search: rate_limited"), never "no news" or
    # "no search vendor"
    failures: list[str] = Field(default_factory=list)


def _title_hits(pattern: re.Pattern[str] | None, title: str) -> int:
    return 0 if pattern is None else len(pattern.findall(title))


async def _no_search() -> Result[list[NewsItem]]:
    return Err(ErrorCode.NOT_CONFIGURED, "no terms: nothing to search")


def _search_note(result: Result[list[NewsItem]], failures: list[str]) -> str:
    """What became of the full-text search, for ``searched``; a real failure also goes to ``failures``."""
    if isinstance(result, Ok):
        vendors = ", ".join(sorted({i.source.vendor for i in result.value}))
        return (
            f"; and a full-text search of {vendors} news for the terms ({len(result.value)} article(s) read)"
        )
    if result.code == ErrorCode.NOT_CONFIGURED:
        return "; no full-text news search is configured"
    if result.code == ErrorCode.NO_DATA:
        return "; and a full-text search for the terms (nothing in the window)"
    failures.append(f"full-text search: {result.code.value}")
    return f"; and a full-text search for the terms, which failed ({result.code.value})"


def _ticker_items(
    tickers: list[str], got: list[Result[list[NewsItem]]], failures: list[str]
) -> list[NewsItem]:
    """The tickers' articles, in ticker order; a source that failed (not "no news") noted in ``failures``."""
    out: list[NewsItem] = []
    for ticker, result in zip(tickers, got, strict=True):
        if isinstance(result, Err):
            if result.code != ErrorCode.NO_DATA:
                failures.append(f"{ticker}: {result.code.value}")
            continue
        out.extend(result.value)
    return out


def _speaks_to(item: NewsItem, pattern: re.Pattern[str] | None, *, searched_only: bool) -> bool:
    """A ticker's article speaks to the topic when its headline or summary names it; one only the
    full-text search found (about none of the tickers) only when its headline does: a market wrap's
    body names every sector in passing."""
    if pattern is None:
        return True
    return bool(pattern.search(item.title if searched_only else f"{item.title}\n{item.summary or ''}"))


def _merge(
    from_tickers: list[NewsItem], from_search: list[NewsItem], since: date
) -> list[tuple[NewsItem, bool]]:
    """Each story of the window once, the tickers' copies first, with whether only the search found it."""
    seen: set[str] = set()
    fresh: list[tuple[NewsItem, bool]] = []
    for item, searched_only in [(i, False) for i in from_tickers] + [(i, True) for i in from_search]:
        # either key alone: a search vendor's copy of a ticker's story has its own URL but its title
        keys = {k for k in story_keys(item) if k}
        if keys & seen or not published_since(item.published_at, since):
            continue
        seen |= keys
        fresh.append((item, searched_only))
    return fresh


async def _search(args: NewsSearchArgs, ctx: ToolContext) -> Result[NewsSearch]:
    if args.since > ctx.as_of:
        return Err(ErrorCode.INVALID_INPUT, f"since {args.since} is after the run's as-of date {ctx.as_of}")
    tickers = list(dict.fromkeys(args.tickers))
    pattern = term_pattern(args.terms)
    search = (
        ctx.router.news_search(list(args.terms), ctx.as_of, args.since, SEARCH_LIMIT)
        if pattern is not None
        else _no_search()
    )
    *got, found = await asyncio.gather(*(ctx.router.news(t, ctx.as_of, PER_TICKER) for t in tickers), search)
    failures: list[str] = []
    from_tickers = _ticker_items(tickers, got, failures)
    note = _search_note(found, failures) if pattern is not None else ""
    fresh = _merge(from_tickers, found.value if isinstance(found, Ok) else [], args.since)
    matched = [i for i, only in fresh if _speaks_to(i, pattern, searched_only=only)]
    # headlines that name the topic first (a digest that mentions it in passing last), newest first
    matched.sort(key=lambda i: (_title_hits(pattern, i.title), i.published_at), reverse=True)
    terms = f"; terms: {', '.join(args.terms)}" if args.terms else ""
    searched = (
        f"news of {', '.join(tickers)} published {args.since.isoformat()}..{ctx.as_of.isoformat()}"
        f"{terms}{note}"
    )
    return Ok(
        NewsSearch(
            items=matched[: args.limit],
            searched=searched,
            matched=len(matched),
            read=len(fresh),
            failures=failures,
        )
    )


def summarize_search(found: NewsSearch) -> str:
    head = f"Searched {found.searched}: {found.matched} matching article(s) of {found.read} read."
    if found.failures:
        head += f" Sources failed for {', '.join(found.failures)}."
    return head + ("\n" + summarize_news(found.items) if found.items else "")


search_news = Tool(
    name="search_news",
    description=(
        "News about a topic or sector: the articles of up to 8 tickers (e.g. a sector's largest stocks) "
        "and a full-text news search for the given words, published since a day and on or before the "
        "run's as-of date, kept when the headline or summary contains one of the words (an article about "
        "none of the tickers only when its headline does). Returns what was searched, so an empty result "
        "means nothing was found, not that nothing was looked for. "
        f"{QUOTE_RULE}"
    ),
    args=NewsSearchArgs,
    fn=_search,
    summarize=summarize_search,
    third_party="passage",
)

TOOLS: tuple[Tool, ...] = (search_news,)
