"""Sentiment counts and themes of social posts and news: a transparent lexicon, no model.

Rules:
- Pure and deterministic. Every count can be recomputed by hand from the posts it names.
- Tone of a post: bullish and bearish cue words are counted (``BULLISH``/``BEARISH``, whole words,
  case-insensitive); more bullish cues → bullish, more bearish → bearish, otherwise neutral. A
  Stocktwits author's own Bullish/Bearish label wins over the lexicon.
- News tone uses the provider's own sentiment label when it has one, else the lexicon on the headline.
- Themes come from a fixed topic lexicon (``TOPICS``); a theme is reported when at least
  ``MIN_SUPPORT`` items mention it, with the ids of those items as its support, largest first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from findesk.analytics.post_text import word_set, words
from findesk.data.models import NewsItem, SocialPost

Tone = Literal["bullish", "bearish", "neutral"]
MIN_SUPPORT = 2
MAX_THEMES = 5

BULLISH = (
    "bull",
    "bullish",
    "calls",
    "moon",
    "mooning",
    "undervalued",
    "breakout",
    "ath",
    "rally",
    "beat",
    "beats",
    "upgrade",
    "upgraded",
    "outperform",
    "long",
    "rip",
    "surge",
    "surges",
    "soar",
    "soars",
    "record",
    "strong",
)
BEARISH = (
    "bear",
    "bearish",
    "puts",
    "overvalued",
    "crash",
    "dump",
    "dumping",
    "selloff",
    "sell-off",
    "miss",
    "missed",
    "downgrade",
    "downgraded",
    "underperform",
    "short",
    "drop",
    "drops",
    "plunge",
    "plunges",
    "weak",
    "lawsuit",
    "bubble",
    "tank",
    "tanking",
)
_BULLISH, _BEARISH = frozenset(BULLISH), frozenset(BEARISH)  # membership tests, not scans of the tuples
TOPICS: dict[str, tuple[str, ...]] = {
    "AI and new products": (
        "ai",
        "gemini",
        "siri",
        "chatgpt",
        "llm",
        "gpu",
        "gpus",
        "chip",
        "chips",
        "robot",
        "robotaxi",
        "iphone",
        "launch",
        "product",
        "products",
        "blackwell",
        "model",
    ),
    "earnings and guidance": (
        "earnings",
        "revenue",
        "eps",
        "guidance",
        "quarter",
        "results",
        "margin",
        "margins",
        "profit",
        "sales",
    ),
    "valuation and price action": (
        "valuation",
        "overvalued",
        "undervalued",
        "pe",
        "ath",
        "dip",
        "price",
        "rally",
        "selloff",
        "sell-off",
        "breakout",
        "support",
        "resistance",
    ),
    "options and trading": ("calls", "puts", "options", "0dte", "yolo", "strike", "expiry", "leaps", "theta"),
    "tariffs, trade and regulation": (
        "tariff",
        "tariffs",
        "china",
        "trade",
        "antitrust",
        "doj",
        "ftc",
        "regulation",
        "regulators",
        "lawsuit",
        "court",
        "ban",
        "export",
    ),
    "dividends, buybacks and income": ("dividend", "dividends", "buyback", "buybacks", "yield", "income"),
    "portfolio and long-term holding": (
        "portfolio",
        "ira",
        "401k",
        "retirement",
        "hold",
        "holding",
        "hodl",
        "index",
        "etf",
        "diversify",
        "allocation",
    ),
}


class ToneCounts(BaseModel):
    model_config = ConfigDict(frozen=True)

    bullish: int = 0
    bearish: int = 0
    neutral: int = 0

    @property
    def total(self) -> int:
        return self.bullish + self.bearish + self.neutral


class Theme(BaseModel):
    model_config = ConfigDict(frozen=True)

    theme: str
    mentions: int
    supporting_ids: list[str] = Field(default_factory=list)  # post or article ids, newest first


def lexicon_tone(text: str) -> Tone:
    found = words(text)
    # counted in C (``map`` over a set's membership test): a long thread has thousands of words
    up = sum(map(_BULLISH.__contains__, found))
    down = sum(map(_BEARISH.__contains__, found))
    if up > down:
        return "bullish"
    if down > up:
        return "bearish"
    return "neutral"


def post_tone(post: SocialPost) -> Tone:
    label = (post.sentiment or "").strip().lower()
    if label in ("bullish", "bearish"):
        return label  # type: ignore[return-value]  # narrowed by the membership test
    return lexicon_tone(f"{post.title or ''} {post.text}")


def news_tone(item: NewsItem) -> Tone:
    label = (item.sentiment or "").strip().lower()
    if "bull" in label or "positive" in label:
        return "bullish"
    if "bear" in label or "negative" in label:
        return "bearish"
    if label:
        return "neutral"
    return lexicon_tone(f"{item.title} {item.summary or ''}")


def count_tones(tones: Sequence[Tone]) -> ToneCounts:
    return ToneCounts(
        bullish=sum(1 for t in tones if t == "bullish"),
        bearish=sum(1 for t in tones if t == "bearish"),
        neutral=sum(1 for t in tones if t == "neutral"),
    )


def themes(texts: Sequence[tuple[str, str]], *, limit: int = MAX_THEMES) -> list[Theme]:
    """Themes of ``(id, text)`` items in the given order; each item counts once per theme."""
    found: list[Theme] = []
    for name, cues in TOPICS.items():
        cue_set = frozenset(cues)
        ids = [item_id for item_id, text in texts if not cue_set.isdisjoint(word_set(text))]
        if len(ids) >= MIN_SUPPORT:
            found.append(Theme(theme=name, mentions=len(ids), supporting_ids=ids))
    found.sort(key=lambda t: -t.mentions)  # stable: ties keep the lexicon's order
    return found[:limit]
