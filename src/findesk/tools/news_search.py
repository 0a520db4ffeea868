"""Topic news search: the news of a few tickers, kept when a headline speaks to the topic.

Rules:
- Thin over the one router: one ``DataRouter.news`` call per ticker (concurrently, at most
  ``MAX_TICKERS``), so the snapshot serves offline and the configured live vendors serve live, with
  the same shapes. No ticker has news -> the result is an empty list with what was searched, not an
  error: "nothing found" is the answer a sector without news must get.
- An article is kept when its headline or summary contains one of ``terms`` (whole words, case
  folded), or, with no terms given, always; those whose headline names the topic come first, then the
  newest. Only articles published on or after ``since`` (New York
  day) and on or before the run's as-of date are visible; duplicates (same URL or same title) once.
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
from findesk.tools.args import QUOTE_RULE, Ticker, ToolArgs
from findesk.tools.base import Tool, ToolContext
from findesk.tools.social import summarize_news

MAX_TICKERS = 8
PER_TICKER = 200  # articles read per ticker before the window and terms filter them


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
    searched: str  # tickers, terms and window, so "nothing found" can be checked
    matched: int  # articles in the window that matched, before ``limit``
    read: int  # articles in the window read, matched or not
    failures: list[str] = Field(default_factory=list)  # tickers whose source failed (not "no news")


def _pattern(terms: list[str]) -> re.Pattern[str] | None:
    words = sorted({t.strip().lower() for t in terms if t.strip()}, key=len, reverse=True)
    if not words:
        return None
    return re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\b", re.IGNORECASE)


def _title_hits(pattern: re.Pattern[str] | None, title: str) -> int:
    return 0 if pattern is None else len(pattern.findall(title))


async def _search(args: NewsSearchArgs, ctx: ToolContext) -> Result[NewsSearch]:
    if args.since > ctx.as_of:
        return Err(ErrorCode.INVALID_INPUT, f"since {args.since} is after the run's as-of date {ctx.as_of}")
    tickers = list(dict.fromkeys(args.tickers))
    got = await asyncio.gather(*(ctx.router.news(t, ctx.as_of, PER_TICKER) for t in tickers))
    pattern = _pattern(args.terms)
    seen: set[str] = set()
    window: list[NewsItem] = []
    failures: list[str] = []
    for ticker, result in zip(tickers, got, strict=True):
        if isinstance(result, Err):
            if result.code != ErrorCode.NO_DATA:
                failures.append(f"{ticker}: {result.code.value}")
            continue
        for item in result.value:
            key = (item.url or "").lower() or " ".join(item.title.lower().split())
            if key in seen or not published_since(item.published_at, args.since):
                continue
            seen.add(key)
            window.append(item)
    matched = [i for i in window if pattern is None or pattern.search(f"{i.title} {i.summary or ''}")]
    # headlines that name the topic first (a digest that mentions it in passing last), newest first
    matched.sort(key=lambda i: (_title_hits(pattern, i.title), i.published_at), reverse=True)
    terms = f"; terms: {', '.join(args.terms)}" if args.terms else ""
    searched = (
        f"news of {', '.join(tickers)} published {args.since.isoformat()}..{ctx.as_of.isoformat()}{terms}"
    )
    return Ok(
        NewsSearch(
            items=matched[: args.limit],
            searched=searched,
            matched=len(matched),
            read=len(window),
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
        "published since a day and on or before the run's as-of date, kept when the headline or summary "
        "contains one of the given words. Returns what was searched, so an empty result means nothing "
        f"was found, not that nothing was looked for. {QUOTE_RULE}"
    ),
    args=NewsSearchArgs,
    fn=_search,
    summarize=summarize_search,
    third_party="passage",
)

TOOLS: tuple[Tool, ...] = (search_news,)
