"""Stocktwits ``/api/2/streams/symbol/<SYM>.json`` responses -> ``SocialPost``.

Rules this module keeps:
- The same parser reads the snapshot's recorded streams and live answers; ``url`` is the message's
  public page (``https://stocktwits.com/<user>/message/<id>``).
- ``created_at`` is ISO 8601 UTC (``2020-04-24T18:35:11Z``); ``user.join_date`` is a calendar day,
  taken as midnight UTC of that day (the account existed by then at the latest).
- Everything the stream says about the author is kept: join date, followers, following, ideas
  (-> ``post_count``), official. Stocktwits has no "verified" flag in this payload, so ``verified``
  stays ``None`` rather than a guessed ``False``.
- ``sentiment`` is the author's own Bullish/Bearish label (``entities.sentiment.basic``), or None.
- ``score`` is ``likes.total``; Stocktwits omits ``likes`` on unliked messages and on older
  payloads, so a missing block is ``None`` (unknown), not 0.
- A body whose ``response.status`` is not 200 or whose ``messages`` is not a list is ``Err``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, date, datetime
from typing import Any

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import SocialAuthor, SocialPost, Source

SOURCE = "stocktwits"
# Stocktwits writes crypto pairs as ETH.X, so the US-listing rule of ``normalize_symbol`` does not apply.
_SYMBOL = re.compile(r"^[A-Z][A-Z0-9]{0,9}([.-][A-Z]{1,2})?$")


def check_symbol(raw: str, source: str = SOURCE) -> Result[str]:
    """An upper-cased Stocktwits symbol (``AAPL``, ``BRK.B``, ``ETH.X``) or ``invalid_input``."""
    symbol = raw.strip().upper()
    if not _SYMBOL.match(symbol):
        return Err(
            ErrorCode.INVALID_INPUT,
            f"{raw.strip()!r} is not a Stocktwits symbol (a ticker like AAPL or a crypto pair like ETH.X)",
            source,
        )
    return Ok(symbol)


def stream_symbol(body: Any) -> str | None:
    """The symbol whose stream this is (``body.symbol.symbol``)."""
    if isinstance(body, Mapping) and isinstance(body.get("symbol"), Mapping):
        value = body["symbol"].get("symbol")
        return str(value).upper() if value else None
    return None


def parse_stream(body: Any, source: Source) -> Result[list[SocialPost]]:
    if not isinstance(body, Mapping):
        return Err(ErrorCode.BAD_RESPONSE, "Stocktwits answered with JSON that is not an object", SOURCE)
    response = body.get("response")
    status = response.get("status") if isinstance(response, Mapping) else None
    if status is not None and status != 200:
        return _error(body, status)
    messages = body.get("messages")
    if not isinstance(messages, list):
        return Err(ErrorCode.BAD_RESPONSE, "Stocktwits answered without a message list", SOURCE)
    community = stream_symbol(body)
    posts = [p for m in messages if (p := _message(m, community, source)) is not None]
    return Ok(posts)


def _error(body: Mapping[str, Any], status: Any) -> Err:
    errors = body.get("errors")
    messages = (
        [e.get("message") for e in errors if isinstance(e, Mapping)] if isinstance(errors, list) else []
    )
    text = "; ".join(str(m) for m in messages if m)
    detail = f": {text}" if text else ""
    if status == 404:
        return Err(ErrorCode.NOT_FOUND, f"Stocktwits does not know this symbol{detail}", SOURCE)
    if status == 429:
        return Err(ErrorCode.RATE_LIMITED, f"Stocktwits is rate limiting us{detail}", SOURCE)
    return Err(ErrorCode.UNAVAILABLE, f"Stocktwits answered status {status}{detail}", SOURCE)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def author(user: Any) -> SocialAuthor | None:
    if not isinstance(user, Mapping) or not user.get("username"):
        return None
    joined: datetime | None = None
    if isinstance(user.get("join_date"), str):
        try:
            day = date.fromisoformat(user["join_date"])
            joined = datetime(day.year, day.month, day.day, tzinfo=UTC)
        except ValueError:
            joined = None
    return SocialAuthor(
        username=str(user["username"]),
        created_at=joined,
        followers=_int(user.get("followers")),
        following=_int(user.get("following")),
        post_count=_int(user.get("ideas")),
        official=_bool(user.get("official")),
    )


def _message(msg: Any, community: str | None, source: Source) -> SocialPost | None:
    if not isinstance(msg, Mapping) or msg.get("id") is None or not isinstance(msg.get("created_at"), str):
        return None
    try:
        published = datetime.fromisoformat(msg["created_at"].replace("Z", "+00:00"))
    except ValueError:
        return None
    if published.tzinfo is None:
        return None
    user = author(msg.get("user"))
    entities = msg.get("entities") if isinstance(msg.get("entities"), Mapping) else {}
    sentiment_block = entities.get("sentiment") if isinstance(entities, Mapping) else None
    sentiment = sentiment_block.get("basic") if isinstance(sentiment_block, Mapping) else None
    likes = msg.get("likes")
    conversation = msg.get("conversation")
    symbols = [
        str(s["symbol"]).upper()
        for s in msg.get("symbols") or []
        if isinstance(s, Mapping) and s.get("symbol")
    ]
    url = f"https://stocktwits.com/{user.username}/message/{msg['id']}" if user else None
    return SocialPost(
        id=f"stocktwits:{msg['id']}",
        platform="stocktwits",
        community=community,
        author=user,
        text=str(msg.get("body") or ""),
        url=url,
        published_at=published,
        score=_int(likes.get("total")) if isinstance(likes, Mapping) else None,
        num_comments=_int(conversation.get("replies")) if isinstance(conversation, Mapping) else None,
        tickers=symbols,
        sentiment=str(sentiment) if sentiment else None,
        source=source,
    )
