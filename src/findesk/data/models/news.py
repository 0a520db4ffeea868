"""News items and social posts (with the author metadata that pump-bot scoring needs)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from findesk.data.models.base import DataModel, Source


class NewsItem(DataModel):
    id: str
    title: str
    summary: str | None = None
    url: str | None = None
    publisher: str | None = None
    published_at: datetime  # timezone-aware
    tickers: list[str] = Field(default_factory=list)
    sentiment: str | None = None  # the provider's own label, if any ("Positive", "Bearish", ...)
    sentiment_score: float | None = None
    source: Source


class SocialAuthor(DataModel):
    username: str
    created_at: datetime | None = None  # account creation, when the source gives it
    followers: int | None = None
    following: int | None = None
    post_count: int | None = None
    karma: int | None = None  # Reddit link+comment karma, when given
    verified: bool | None = None
    official: bool | None = None


class SocialPost(DataModel):
    id: str
    platform: Literal["reddit", "stocktwits"]
    community: str | None = None  # subreddit, or the Stocktwits symbol stream
    author: SocialAuthor | None = None
    title: str | None = None
    text: str
    url: str | None = None
    # the external page a Reddit link post points to (None for text posts); a bot-scoring signal
    link_url: str | None = None
    published_at: datetime  # timezone-aware
    score: int | None = None  # Reddit score / Stocktwits likes
    num_comments: int | None = None
    upvote_ratio: float | None = None
    tickers: list[str] = Field(default_factory=list)  # tickers the source says the post mentions
    sentiment: str | None = None  # Stocktwits "Bullish" / "Bearish" as labelled by the author
    source: Source
