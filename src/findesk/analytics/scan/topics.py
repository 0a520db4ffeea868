"""Geopolitical and macro topics: documented word lists, headline tone and the sectors a topic moves.

Rules (pure: news items in, ``TopicBrief`` out; no I/O, no clock):
- Each topic has one word list (``TOPIC_TERMS``, whole words or phrases, case folded: the search
  vendors' own rule, ``data.vendors.base.term_pattern``). Words that name every market story
  ("trade", "market", "stocks") are left out: "trade" alone is any trade, "trade war" is the topic.
- An article counts for a topic only when its HEADLINE names the topic (a wrap's summary names every
  topic in passing); ``articles`` is how many did in the window, each story once (the search already
  drops repeats).
- Tone of a headline: ``analytics.trading.news_tone.headline_tone`` with the macro lexicon (rally,
  easing, truce, deal … vs selloff, escalation, fears, hike …), in [-1, +1]; a topic's ``tone`` is the
  mean over its counted headlines, rounded to 2 decimals, None without any (never 0 for unknown).
- ``headlines``: the newest ``TOP_HEADLINES`` counted ones, each with its publisher and URL as the
  citation, and its date (New York day).
- ``TOPIC_SECTORS``, the documented map of which Select Sector SPDRs a topic moves first:
  conflicts -> XLE (oil supply), XLI (defence); trade -> XLI, XLK, XLB (tariffs on goods, chips and
  metals); sanctions -> XLE, XLB, XLF (commodity supply and banks' exposure); energy -> XLE, XLU (fuel
  and power prices); rates -> XLF, XLRE, XLU (lending margins and rate-sensitive yield sectors).
"""

from __future__ import annotations

from collections.abc import Sequence

from findesk.analytics.scan.models import Topic, TopicBrief, TopicHeadline
from findesk.analytics.trading.news_tone import Lexicon, headline_tone
from findesk.core.dates import new_york_day
from findesk.data.models import NewsItem
from findesk.data.vendors.base import term_pattern

TOP_HEADLINES = 5
# fmt: off
TOPIC_TERMS: dict[Topic, tuple[str, ...]] = {
    "conflicts": (
        "war", "wars", "conflict", "conflicts", "military", "missile", "missiles", "invasion", "ceasefire",
        "cease-fire", "troops", "airstrike", "airstrikes", "geopolitical", "Ukraine", "Russia", "Israel",
        "Gaza", "Iran", "Taiwan", "NATO", "Houthi", "Houthis", "Red Sea",
    ),
    "trade": (
        "tariff", "tariffs", "trade war", "trade deal", "trade talks", "trade deficit", "trade tensions",
        "export controls", "export curbs", "import duties", "duties", "protectionism", "WTO",
    ),
    "sanctions": (
        "sanction", "sanctions", "sanctioned", "embargo", "blacklist", "blacklisted", "entity list",
        "OFAC", "export ban",
    ),
    "energy": (
        "oil", "crude", "OPEC", "OPEC+", "Brent", "WTI", "natural gas", "LNG", "gasoline", "refinery",
        "refiners", "energy prices", "barrel", "barrels",
    ),
    "rates": (
        "Fed", "FOMC", "Powell", "rate cut", "rate cuts", "rate hike", "rate hikes", "interest rates",
        "interest rate", "Treasury yields", "bond yields", "yields", "inflation", "CPI", "PCE",
        "central bank",
    ),
}
# fmt: on
TOPIC_SECTORS: dict[Topic, tuple[str, ...]] = {
    "conflicts": ("XLE", "XLI"),
    "trade": ("XLI", "XLK", "XLB"),
    "sanctions": ("XLE", "XLB", "XLF"),
    "energy": ("XLE", "XLU"),
    "rates": ("XLF", "XLRE", "XLU"),
}


def citation(item: NewsItem) -> str:
    """Publisher and URL of an article (the feed's citation when it has no URL)."""
    return f"{item.publisher or item.source.vendor}: {item.url or item.source.cite()}"


def headline(item: NewsItem, lexicon: Lexicon = "macro") -> TopicHeadline:
    """One article as a cited headline with its word-list tone (``lexicon``: macro or company cues)."""
    tone = headline_tone(item.title, lexicon)
    return TopicHeadline(
        title=item.title.strip(), published=new_york_day(item.published_at), source=citation(item), tone=tone
    )


def topic_brief(topic: Topic, items: Sequence[NewsItem]) -> TopicBrief:
    """The topic's brief from the articles a search returned (module rules: headlines that name it)."""
    pattern = term_pattern(TOPIC_TERMS[topic])
    named = [i for i in items if pattern is not None and pattern.search(i.title)]
    named.sort(key=lambda i: (i.published_at, i.title), reverse=True)
    heads = [headline(i) for i in named]
    tone = round(sum(h.tone for h in heads) / len(heads), 2) if heads else None
    return TopicBrief(
        topic=topic,
        articles=len(heads),
        tone=tone,
        headlines=heads[:TOP_HEADLINES],
        sectors_exposed=list(TOPIC_SECTORS[topic]),
    )
