"""Which social posts count as opinion about one company: the rest are listed, never counted.

Rules this module keeps:
- Pure and deterministic; never raises. One reason per excluded post, the first that applies, in
  the order of ``REASONS``.
- ``bot``: the author is a bot or moderator account (``BOT_ACCOUNTS``, or a name ending in
  ``-ModTeam``): its posts are boilerplate, whatever words they hold.
- ``megathread``: a recurring discussion thread (``MEGATHREAD_TITLES``: "Daily Discussion", "Weekend
  Discussion", "What Are Your Moves Tomorrow", "Rate My Portfolio", ...): its text is hundreds of
  strangers' comments on every ticker, not a view of this one.
- ``unnamed``: a Reddit post that names the company nowhere, in title, text or comments: only the
  export's ticker tag put it here (the 2025-07..08 export tags "metals" posts META).
- ``passing``: a Reddit post whose title does not name the company and whose text names it fewer
  than ``MIN_TEXT_MENTIONS`` times (a portfolio list, another company's news with one aside). The
  company is named by its ticker (``formats.mentions``, also as "Aapl"), a ``$`` cashtag, a name
  the caller gives ("Apple") or a brand of ``BRANDS`` ("Google"): whole words, as written or in
  capitals.
- Stocktwits messages come from the company's own stream and news from the provider's ticker list:
  neither is tested for ``passing``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

from findesk.analytics.post_text import LONGEST_CACHED, lowered
from findesk.data.formats.mentions import company_tickers
from findesk.data.models import SocialPost

Exclusion = Literal["bot", "megathread", "unnamed", "passing"]
# labels that read after a count ("4 bot or moderator posts") and alone ("not counted: …")
REASONS: dict[Exclusion, str] = {
    "bot": "bot or moderator posts",
    "megathread": "recurring discussion threads",
    "unnamed": "never naming the company (the source's ticker tag only)",
    "passing": "naming the company only in passing",
}
# What posters call a company when its legal name says otherwise ("Alphabet Inc." is "Google").
BRANDS: dict[str, tuple[str, ...]] = {
    "GOOGL": ("Google",),
    "GOOG": ("Google",),
    "META": ("Facebook",),
    "AMZN": ("Amazon",),
}
MIN_TEXT_MENTIONS = 3
# Reddit's own and the big investing subreddits' bots, lower case.
BOT_ACCOUNTS: frozenset[str] = frozenset({"automoderator", "visualmod", "wsbapp", "qualityvote", "reddit"})
MEGATHREAD_TITLES: tuple[str, ...] = (
    "daily discussion",
    "weekend discussion",
    "what are your moves tomorrow",
    "rate my portfolio",
    "daily general discussion",
    "discussion thread",
    "megathread",
    "daily thread",
    "weekly thread",
    "earnings thread",
)
_MEGATHREAD = re.compile("|".join(rf"\b{re.escape(t)}\b" for t in MEGATHREAD_TITLES), re.IGNORECASE)


def is_bot(author: str | None) -> bool:
    if not author:
        return False
    name = author.strip().removeprefix("u/")
    return name.lower() in BOT_ACCOUNTS or name.lower().endswith("-modteam")


def is_megathread(title: str | None) -> bool:
    return bool(title and _MEGATHREAD.search(title))


@lru_cache(maxsize=256)
def _names(symbol: str, aliases: tuple[str, ...]) -> tuple[tuple[str, ...], re.Pattern[str]]:
    """Lower-case needles (one is in any text that matches) and the pattern: a ticker (cashtag for
    1–2 letters; else the word in capitals or capitalised) or an alias."""
    parts = []
    needles = {t.lower() for t in company_tickers(symbol)} | {a.strip().lower() for a in aliases if a.strip()}
    for ticker in sorted(company_tickers(symbol)):
        t = re.escape(ticker)
        parts.append(rf"(?i:\${t})(?![A-Za-z0-9])")
        if len(ticker) > 2:
            cap = re.escape(ticker.capitalize())
            parts.append(rf"(?<![A-Za-z0-9$/._-])(?:{t}|{cap})(?![A-Za-z0-9])")
    for alias in aliases:
        words = {alias.strip(), alias.strip().upper()} - {""}
        parts += [rf"(?<![\w$]){re.escape(w)}(?!\w)" for w in sorted(words)]
    return tuple(sorted(needles)), re.compile("|".join(parts))


def name_count(text: str | None, symbol: str, aliases: Sequence[str] = (), *, enough: int = 0) -> int:
    """How many times ``text`` names the company (see the module rules); with ``enough``, counting
    stops there (a long thread need not be read to its end)."""
    if not text:
        return 0
    count = _name_count if len(text) <= LONGEST_CACHED else _name_count.__wrapped__
    return count(text, symbol.upper(), tuple(aliases), enough)


@lru_cache(maxsize=4_096)  # warm briefings of one window ask it of the same posts again
def _name_count(text: str, symbol: str, aliases: tuple[str, ...], enough: int) -> int:
    needles, pattern = _names(symbol, (*aliases, *BRANDS.get(symbol, ())))
    lower = lowered(text)
    if not any(n in lower for n in needles):
        return 0
    count = 0
    for _ in pattern.finditer(text):
        count += 1
        if count == enough:
            break
    return count


def exclusion(post: SocialPost, symbol: str, aliases: Sequence[str] = ()) -> Exclusion | None:
    """Why ``post`` does not count as opinion about ``symbol``'s company, or None when it does."""
    if is_bot(post.author.username if post.author else None):
        return "bot"
    if is_megathread(post.title):
        return "megathread"
    if post.platform != "reddit":
        return None
    if name_count(post.title, symbol, aliases, enough=1):
        return None
    named = name_count(post.text, symbol, aliases, enough=MIN_TEXT_MENTIONS)
    return None if named >= MIN_TEXT_MENTIONS else "passing" if named else "unnamed"
