"""Reddit posts: the snapshot's three CSV export schemas and Reddit's JSON listings -> ``SocialPost``.

Rules this module keeps:
- Times are UTC: listing ``created_utc`` and the WSB export's ``created`` are epoch seconds; the
  2025-04..06 export's ``created_utc`` is a naive UTC datetime (the column says so). The 2025-07..08
  export keeps only ``date``, the UTC calendar day of ``created_utc`` (its exporter wrote
  ``datetime.fromtimestamp(created_utc, timezone.utc)`` and kept the date); such a post is placed
  at 23:59:59 UTC that day, its latest possible instant, so it can never be seen too early, and the
  item's ``source.note`` says so. (23:59:59 UTC is still the same New York day.)
- ``url`` is the post's Reddit page (None for the WSB export's bare comments, whose parent is
  unknown); a link post's external target goes to ``link_url``.
- ``tickers`` holds only tickers the export itself lists (``tickers`` / ``tickers_mentioned``);
  Reddit listings have no such field, so live posts carry none.
- Ticker matching (``mentions_symbol``): an export's ticker column, or a ``$TICKER`` cashtag; where a
  source has no ticker column, the title/text rule of ``formats.mentions`` (1–2-letter tickers need
  the cashtag).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, time
from typing import Any

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats.mentions import cashtagged, listed, mentions
from findesk.data.formats.news_feeds import short_id
from findesk.data.models import SocialAuthor, SocialPost, Source

SOURCE = "reddit"
REDDIT = "https://www.reddit.com"
_NO_AUTHOR = {"", "[deleted]", "none", "nan"}

# Column sets that identify each export schema (see the snapshot README, social/reddit).
WSB_2022 = frozenset({"title", "score", "id", "url", "comms_num", "created", "body"})
POSTS_TICKERS_MENTIONED = frozenset({"title", "selftext", "author", "created_utc", "score", "subreddit"})
POSTS_FULL_TEXT = frozenset({"id", "date", "full_text", "score", "author", "subreddit", "tickers"})


def mentions_symbol(post: SocialPost, symbol: str, *, has_ticker_column: bool) -> bool:
    """Whether ``post`` is about ``symbol`` (see the module rules)."""
    text = f"{post.title or ''}\n{post.text}"
    if has_ticker_column:
        return listed(symbol, post.tickers) or cashtagged(text, symbol)
    return mentions(text, symbol)


def _int(value: Any) -> int | None:
    try:
        return int(float(value))
    except (TypeError, ValueError):
        return None


def _float(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _text(value: Any) -> str:
    text = "" if value is None else str(value)
    return "" if text.strip().lower() == "nan" else text.strip()


def _author(name: Any) -> SocialAuthor | None:
    text = _text(name)
    return None if text.lower() in _NO_AUTHOR else SocialAuthor(username=text)


def _permalink(subreddit: str, post_id: str) -> str:
    return f"{REDDIT}/r/{subreddit}/comments/{post_id}/"


def _is_reddit_page(url: str) -> bool:
    return url.startswith((f"{REDDIT}/r/", "https://old.reddit.com/r/", "https://reddit.com/r/"))


def export_schema(columns: Sequence[str]) -> str | None:
    """Which known export ``columns`` belong to: "wsb_2022", "tickers_mentioned", "full_text"."""
    cols = set(columns)
    if cols >= POSTS_FULL_TEXT:
        return "full_text"
    if cols >= POSTS_TICKERS_MENTIONED:
        return "tickers_mentioned"
    if cols >= WSB_2022:
        return "wsb_2022"
    return None


def parse_export(
    rows: Iterable[Mapping[str, str]], columns: Sequence[str], source: Source
) -> Result[tuple[list[SocialPost], bool]]:
    """Parse one CSV export; returns the posts and whether its schema has a ticker column."""
    schema = export_schema(columns)
    if schema is None:
        return Err(
            ErrorCode.BAD_RESPONSE,
            f"{source.ref} has columns {sorted(columns)}, which match no known Reddit export",
            SOURCE,
        )
    parse = {"wsb_2022": _wsb_row, "tickers_mentioned": _mentioned_row, "full_text": _full_text_row}[schema]
    posts = [p for row in rows if (p := parse(row, source)) is not None]
    return Ok((posts, schema != "wsb_2022"))


def _wsb_row(row: Mapping[str, str], source: Source) -> SocialPost | None:
    """r/wallstreetbets Kaggle schema: ``created`` is epoch seconds (``timestamp`` is the scraper's
    local wall time, 8 hours behind, and is ignored). Rows titled "Comment" are comments (7-character
    ids, no URL, no parent): kept as ``reddit:t1_<id>`` without a title or URL."""
    post_id, title, created = _text(row.get("id")), _text(row.get("title")), _float(row.get("created"))
    if not post_id or not title or created is None:
        return None
    is_comment = title == "Comment" and not _text(row.get("url"))
    url = _text(row.get("url"))
    return SocialPost(
        id=f"reddit:t1_{post_id}" if is_comment else f"reddit:{post_id}",
        platform="reddit",
        community="wallstreetbets",
        title=None if is_comment else title,
        text=_text(row.get("body")),
        url=None if is_comment else _permalink("wallstreetbets", post_id),
        link_url=url if url and not _is_reddit_page(url) else None,
        published_at=datetime.fromtimestamp(created, tz=UTC),
        score=_int(row.get("score")),
        num_comments=None if is_comment else _int(row.get("comms_num")),
        source=source.model_copy(update={"note": "a comment; the export keeps no parent post"})
        if is_comment
        else source,
    )


def _mentioned_row(row: Mapping[str, str], source: Source) -> SocialPost | None:
    title, created = _text(row.get("title")), _text(row.get("created_utc"))
    try:
        published = datetime.fromisoformat(created).replace(tzinfo=UTC)
    except ValueError:
        return None
    if not title:
        return None
    author = _author(row.get("author"))
    key = short_id(f"{title}|{created}|{author.username if author else ''}")
    return SocialPost(
        id=f"reddit:snapshot-{key}",  # the export kept no Reddit id
        platform="reddit",
        community=_text(row.get("subreddit")) or None,
        author=author,
        title=title,
        text=_text(row.get("selftext")),
        published_at=published,
        score=_int(row.get("score")),
        tickers=sorted(
            {t.strip().upper() for t in _text(row.get("tickers_mentioned")).split(",") if t.strip()}
        ),
        source=source,
    )


def _full_text_row(row: Mapping[str, str], source: Source) -> SocialPost | None:
    post_id, subreddit = _text(row.get("id")), _text(row.get("subreddit"))
    try:
        day = date.fromisoformat(_text(row.get("date")))
    except ValueError:
        return None
    full = _text(row.get("full_text"))
    if not post_id or not full:
        return None
    title, _, rest = full.partition("\n")
    try:
        tickers = ast.literal_eval(_text(row.get("tickers")) or "[]")
    except (ValueError, SyntaxError):
        tickers = []
    note = (
        "time is day-resolution (export keeps the UTC date only); text is the body followed by top comments"
    )
    return SocialPost(
        id=f"reddit:{post_id}",
        platform="reddit",
        community=subreddit or None,
        author=_author(row.get("author")),
        title=title.strip(),
        text=rest.strip(),
        url=_permalink(subreddit, post_id) if subreddit else f"{REDDIT}/comments/{post_id}/",
        published_at=datetime.combine(day, time(23, 59, 59), tzinfo=UTC),
        score=_int(row.get("score")),
        num_comments=_int(row.get("num_comments")),
        upvote_ratio=_float(row.get("upvote_ratio")),
        tickers=sorted({str(t).upper() for t in tickers}) if isinstance(tickers, list) else [],
        source=source.model_copy(update={"note": note}),
    )


# --- Reddit JSON listings (live) -------------------------------------------------------------------


def parse_listing(body: Any, source: Source) -> Result[list[SocialPost]]:
    """A ``{"kind": "Listing", "data": {"children": [{"kind": "t3", "data": {...}}]}}`` body."""
    data = body.get("data") if isinstance(body, Mapping) else None
    children = data.get("children") if isinstance(data, Mapping) else None
    if not isinstance(body, Mapping) or body.get("kind") != "Listing" or not isinstance(children, list):
        return Err(
            ErrorCode.BAD_RESPONSE, "Reddit answered with something that is not a post listing", SOURCE
        )
    posts = [
        p
        for child in children
        if isinstance(child, Mapping) and child.get("kind") == "t3"
        if (p := _listing_post(child.get("data"), source)) is not None
    ]
    return Ok(posts)


def _listing_post(data: Any, source: Source) -> SocialPost | None:
    if not isinstance(data, Mapping):
        return None
    post_id, title, created = data.get("id"), data.get("title"), _float(data.get("created_utc"))
    if not isinstance(post_id, str) or not isinstance(title, str) or created is None:
        return None
    subreddit = str(data.get("subreddit") or "")
    permalink = data.get("permalink")
    url = f"{REDDIT}{permalink}" if isinstance(permalink, str) and permalink.startswith("/") else None
    target = data.get("url")
    is_link = data.get("is_self") is False and isinstance(target, str) and not _is_reddit_page(target)
    return SocialPost(
        id=f"reddit:{post_id}",
        platform="reddit",
        community=subreddit or None,
        author=_author(data.get("author")),
        title=title,
        text=str(data.get("selftext") or ""),
        url=url or _permalink(subreddit, post_id),
        link_url=target if is_link else None,
        published_at=datetime.fromtimestamp(created, tz=UTC),
        score=_int(data.get("score")),
        num_comments=_int(data.get("num_comments")),
        upvote_ratio=_float(data.get("upvote_ratio")),
        source=source,
    )


def parse_about(body: Any) -> Result[SocialAuthor]:
    """A ``/user/<name>/about.json`` body (``{"kind": "t2", "data": {...}}``) -> the author's profile.

    ``karma`` is ``total_karma`` when given, else link + comment karma; ``followers`` is the
    subscriber count of the user's profile page (``data.subreddit.subscribers``).
    """
    data = body.get("data") if isinstance(body, Mapping) else None
    if not isinstance(body, Mapping) or body.get("kind") != "t2" or not isinstance(data, Mapping):
        return Err(
            ErrorCode.BAD_RESPONSE, "Reddit answered with something that is not a user profile", SOURCE
        )
    name = data.get("name")
    if not isinstance(name, str) or not name:
        return Err(ErrorCode.BAD_RESPONSE, "Reddit's user profile has no name", SOURCE)
    created = _float(data.get("created_utc"))
    karma = _int(data.get("total_karma"))
    if karma is None:
        parts = [_int(data.get("link_karma")), _int(data.get("comment_karma"))]
        karma = sum(p for p in parts if p is not None) if any(p is not None for p in parts) else None
    profile = data.get("subreddit")
    followers = _int(profile.get("subscribers")) if isinstance(profile, Mapping) else None
    verified = data.get("verified")
    return Ok(
        SocialAuthor(
            username=name,
            created_at=datetime.fromtimestamp(created, tz=UTC) if created is not None else None,
            followers=followers,
            karma=karma,
            verified=verified if isinstance(verified, bool) else None,
        )
    )
