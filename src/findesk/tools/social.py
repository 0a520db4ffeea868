"""News, social-media and earnings-call tools.

Rules:
- Thin: each tool calls one ``DataRouter`` method with ``ctx.as_of`` and returns its ``Result``.
- Reddit and Stocktwits summaries open with an UNVERIFIED marker: posts are opinions of anonymous
  users, never evidence of a fact. News summaries name the publisher of every headline.
- Each item in a summary carries its date, its author or publisher and its URL (or the snapshot
  file it came from), so a quoted headline or post can be traced.
- ``since`` (optional) keeps only items published on or after that New York day, and ``limit`` then
  counts from the newest of those: a caller asking for a window gets the whole window (up to
  ``limit``), not the newest N of everything before the as-of date. Summaries stay within their
  budget whatever the count; the full list is in the result.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Annotated, TypeVar

from pydantic import Field

from findesk.core.dates import new_york_day, published_since
from findesk.core.result import Ok, Result
from findesk.data.models import NewsItem, SocialPost, Transcript
from findesk.tools.args import POINT_IN_TIME, QUOTE_RULE, UNVERIFIED, Ticker, ToolArgs
from findesk.tools.base import Tool, ToolContext
from findesk.tools.summaries import clip, fit_lines, sources_line, when

POST_CHARS = 200
TRANSCRIPT_PREVIEW_CHARS = 800
MAX_ITEMS = 500  # the most a window asks for; the snapshot's busiest month (GOOGL) holds ~160 posts
_SINCE = "Only items published on or after this date (YYYY-MM-DD, New York time); default: no lower bound."
_Item = TypeVar("_Item", SocialPost, NewsItem)


def _since(got: Result[list[_Item]], since: date | None, limit: int) -> Result[list[_Item]]:
    """The newest ``limit`` items of ``got`` published on or after ``since`` (the router read them all)."""
    if since is None or not isinstance(got, Ok):
        return got
    return Ok([i for i in got.value if published_since(i.published_at, since)][:limit])


def _span(items: Sequence[SocialPost] | Sequence[NewsItem]) -> str:
    """' published 2025-07-30..2025-08-27' (New York days of the oldest and newest item)."""
    days = sorted(new_york_day(i.published_at) for i in items)
    return f" published {days[0].isoformat()}..{days[-1].isoformat()}" if days else ""


class NewsArgs(ToolArgs):
    symbol: Ticker
    limit: Annotated[
        int, Field(ge=1, le=MAX_ITEMS, description="At most this many articles (default 10).")
    ] = 10
    since: date | None = Field(None, description=_SINCE)


async def _news(args: NewsArgs, ctx: ToolContext) -> Result[list[NewsItem]]:
    fetch = MAX_ITEMS if args.since else args.limit
    return _since(await ctx.router.news(args.symbol, ctx.as_of, fetch), args.since, args.limit)


def summarize_news(items: list[NewsItem]) -> str:
    if not items:
        return "No news articles found."
    lines = []
    for n in items:
        label = f" [provider sentiment: {n.sentiment}]" if n.sentiment else ""
        lines.append(
            f"- {when(n.published_at)} {n.publisher or 'unknown publisher'}: "
            f"{clip(n.title, POST_CHARS)}{label} — {n.url or n.source.cite()} (id {n.id})"
        )
    head = (
        f"{len(items)} news articles{_span(items)}, newest first (third-party reporting; check claims "
        "against filings):"
    )
    return fit_lines(head, lines)


get_news = Tool(
    name="get_news",
    description=(
        "Recent news headlines about a US ticker published on or before the run's as-of date, newest first: "
        "publication time (UTC), publisher, headline and URL. Use it for what the press reported; "
        f"headlines are third-party claims, so confirm figures in filings or market data. {QUOTE_RULE}"
    ),
    args=NewsArgs,
    fn=_news,
    summarize=summarize_news,
    third_party="passage",
)


class PostsArgs(ToolArgs):
    symbol: Ticker
    limit: Annotated[int, Field(ge=1, le=MAX_ITEMS, description="At most this many posts (default 10).")] = 10
    since: date | None = Field(None, description=_SINCE)


async def _reddit_posts(args: PostsArgs, ctx: ToolContext) -> Result[list[SocialPost]]:
    fetch = MAX_ITEMS if args.since else args.limit
    return _since(await ctx.router.reddit_posts(args.symbol, ctx.as_of, fetch), args.since, args.limit)


async def _stocktwits_posts(args: PostsArgs, ctx: ToolContext) -> Result[list[SocialPost]]:
    fetch = MAX_ITEMS if args.since else args.limit
    return _since(await ctx.router.stocktwits_posts(args.symbol, ctx.as_of, fetch), args.since, args.limit)


def _post_line(p: SocialPost) -> str:
    if p.platform == "reddit":
        where = f"r/{p.community}" if p.community else "reddit"
        who = f"u/{p.author.username}" if p.author else "unknown author"
    else:
        where = "stocktwits"
        who = f"@{p.author.username}" if p.author else "unknown author"
    stats = []
    if p.score is not None:
        stats.append(f"score {p.score}" if p.platform == "reddit" else f"{p.score} likes")
    if p.num_comments is not None:
        stats.append(f"{p.num_comments} comments")
    if p.author is not None and p.author.followers is not None:
        stats.append(f"{p.author.followers} followers")
    if p.sentiment:
        stats.append(f"self-labelled {p.sentiment}")
    extra = f" ({', '.join(stats)})" if stats else ""
    text = clip(p.title or p.text, POST_CHARS)
    return f"- {when(p.published_at)} {where} {who}{extra}: {text} — {p.url or p.source.cite()} (id {p.id})"


def summarize_posts(posts: list[SocialPost]) -> str:
    if not posts:
        return f"{UNVERIFIED}. No posts found."
    head = f"{UNVERIFIED}. {len(posts)} {posts[0].platform} posts{_span(posts)}, newest first:"
    return fit_lines(head, [_post_line(p) for p in posts], sources_line(p.source for p in posts))


get_reddit_posts = Tool(
    name="get_reddit_posts",
    description=(
        "Reddit posts mentioning a US ticker (e.g. r/wallstreetbets, r/stocks), published on or before the "
        "run's as-of date, newest first: date, subreddit, author, score, comment count, title and URL. "
        "UNVERIFIED user content: use it to gauge retail attention and sentiment, never as evidence "
        "for a fact or a figure."
    ),
    args=PostsArgs,
    fn=_reddit_posts,
    summarize=summarize_posts,
    third_party="passage",
)

get_stocktwits_posts = Tool(
    name="get_stocktwits_posts",
    description=(
        "Stocktwits messages from a US ticker's stream, published on or before the run's as-of date, newest "
        "first: time, author with follower count, the author's own Bullish/Bearish label, text and URL. "
        "UNVERIFIED user content: use it to gauge retail sentiment, never as evidence for a fact or a figure."
    ),
    args=PostsArgs,
    fn=_stocktwits_posts,
    summarize=summarize_posts,
    third_party="passage",
)


class TranscriptsArgs(ToolArgs):
    symbol: Ticker
    limit: Annotated[int, Field(ge=1, le=4, description="The newest N earnings calls (default 1).")] = 1


async def _transcripts(args: TranscriptsArgs, ctx: ToolContext) -> Result[list[Transcript]]:
    return await ctx.router.transcripts(args.symbol, ctx.as_of, args.limit)


def summarize_transcripts(calls: list[Transcript]) -> str:
    if not calls:
        return "No earnings-call transcripts found."
    blocks = []
    for t in calls:
        name = f" ({t.company_name})" if t.company_name else ""
        blocks.append(
            f"{t.ticker}{name} FY{t.fiscal_year} Q{t.fiscal_quarter} earnings call held "
            f"{t.conference_at.strftime('%Y-%m-%d %H:%M %Z')} ({len(t.text):,} characters) — "
            f"{t.source.cite()}\n{clip(t.text, TRANSCRIPT_PREVIEW_CHARS)}"
        )
    return fit_lines(f"Earnings-call transcripts ({len(calls)}), newest first:", blocks)


get_transcripts = Tool(
    name="get_transcripts",
    description=(
        "Earnings-call transcripts of a US company held on or before the run's as-of date, newest first: "
        "call date and time, fiscal year and quarter, length, and the opening "
        f"{TRANSCRIPT_PREVIEW_CHARS} characters of each call (the full text is kept in the result). Use it "
        f"to see when the latest call was and how management opened it. {POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=TranscriptsArgs,
    fn=_transcripts,
    summarize=summarize_transcripts,
    third_party="speech",
)

TOOLS: tuple[Tool, ...] = (get_news, get_reddit_posts, get_stocktwits_posts, get_transcripts)
