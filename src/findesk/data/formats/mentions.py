"""Which ticker a piece of text or a source's ticker list refers to.

Rules this module keeps:
- Alphabet's two share classes (GOOGL, GOOG) are one company for news and posts: sources file the
  same story under either (TradingView and the transcripts use GOOG, StockNewsAPI uses GOOGL).
- In free text a ticker of one or two letters (F, A, ON, IT, ...) counts only as a ``$F`` cashtag:
  as a bare word it is far more often prose ("a", "on", "f it") than the company.
- Longer tickers count as a cashtag or as the whole upper-case word (``NVDA`` yes, ``nvda`` no,
  ``NVDAX`` no): people write tickers in capitals, and lower-case matches are mostly ordinary words
  (``meta``, ``gme``-like slang is rare enough to accept the miss).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

# Share classes of one company that sources use interchangeably.
_SAME_COMPANY: tuple[frozenset[str], ...] = (frozenset({"GOOGL", "GOOG"}),)


def company_tickers(symbol: str) -> frozenset[str]:
    """``symbol`` and the other tickers of the same company (``GOOGL`` -> {GOOGL, GOOG})."""
    symbol = symbol.upper()
    for group in _SAME_COMPANY:
        if symbol in group:
            return group
    return frozenset({symbol})


def listed(symbol: str, tickers: Iterable[str]) -> bool:
    """Whether a source's own ticker list names the company of ``symbol``."""
    wanted = company_tickers(symbol)
    return any(t.strip().upper() in wanted for t in tickers)


_LONGEST_CACHED = 2_000  # characters: sentences and titles are memoised, whole threads are not


@lru_cache(maxsize=512)
def _pattern(symbol: str) -> re.Pattern[str]:
    escaped = re.escape(symbol)
    cashtag = rf"\${escaped}(?![A-Za-z0-9])"
    if len(symbol) <= 2:
        return re.compile(cashtag, re.IGNORECASE)
    # A bare word must be upper case and stand alone (not part of NVDAX, $NVDA.X or an URL path).
    bare = rf"(?<![A-Za-z0-9$/._-]){escaped}(?![A-Za-z0-9])"
    return re.compile(rf"(?i:{cashtag})|{bare}")


def mentions(text: str | None, symbol: str) -> bool:
    """Whether ``text`` mentions the company of ``symbol`` by ticker (see the module rules)."""
    if not text:
        return False
    # claims ask it of every sentence for each ticker a post names: short texts are memoised
    return _mentions(text, symbol) if len(text) <= _LONGEST_CACHED else _mentions.__wrapped__(text, symbol)


@lru_cache(maxsize=16_384)
def _mentions(text: str, symbol: str) -> bool:
    return any(_pattern(t).search(text) for t in company_tickers(symbol))


def cashtagged(text: str | None, symbol: str) -> bool:
    """Whether ``text`` holds a ``$TICKER`` cashtag for the company of ``symbol``."""
    if not text:
        return False
    return any(
        re.search(rf"\${re.escape(t)}(?![A-Za-z0-9])", text, re.IGNORECASE) for t in company_tickers(symbol)
    )
