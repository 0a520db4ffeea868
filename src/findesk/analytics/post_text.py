"""One tokenisation of a post's text, shared by every pass over it: pump-bot scoring, claims, tone,
themes and the company-name scope.

Rules this module keeps:
- Pure: a text in, a tuple out; never raises on any ``str`` (``None`` is the empty text).
- Each split is computed once per distinct text and kept in a bounded LRU cache, so the passes of one
  briefing, and warm briefings over the same window, lower-case and split every post once. A GOOGL
  window is ~500 kB of posts: four passes each splitting it cost about 44 % of a warm briefing.
- The splits are the ones the passes were written against: ``words`` is the tone/theme lexicon's word
  (letters, digits, inner apostrophes and hyphens), ``letter_words`` the pump-bot's (letters only,
  after URLs, HTML entities and cashtags are stripped), ``sentences`` the claim reader's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar

_CACHE = 4_096
LONGEST_CACHED = 20_000  # characters: a longer text is split every time, so the caches stay small
R = TypeVar("R")
_MEMOS: dict[str, Callable[[], Any]] = {}


def per_text_cache(fn: Callable[[str], R]) -> Callable[[str | None], R]:
    """``fn`` behind a bounded LRU cache for texts up to ``LONGEST_CACHED`` characters."""
    memo = lru_cache(maxsize=_CACHE)(fn)

    def call(text: str | None) -> R:
        text = text or ""
        return memo(text) if len(text) <= LONGEST_CACHED else fn(text)

    call.__name__, call.__doc__ = fn.__name__, fn.__doc__
    _MEMOS[fn.__name__] = memo.cache_info
    return call


_WORD = re.compile(r"[a-z0-9][a-z0-9'\-]*")
_LETTERS = re.compile(r"[^\W\d_]+")
_STRIP = re.compile(r"https?://\S+|www\.\S+|&#?\w+;|(?<![\w$])\$[a-z][\w.]*")


@per_text_cache
def lowered(text: str) -> str:
    return text.lower()


@per_text_cache
def words(text: str) -> tuple[str, ...]:
    """Lower-case words of ``text`` as the tone and theme lexicons read them."""
    return tuple(_WORD.findall(lowered(text)))


@per_text_cache
def word_set(text: str) -> frozenset[str]:
    return frozenset(words(text))


@per_text_cache
def letter_words(text: str) -> tuple[str, ...]:
    """Letter-only words of an already lower-cased ``text``, links, entities and cashtags removed."""
    return tuple(_LETTERS.findall(_STRIP.sub(" ", text)))


def cache_info() -> dict[str, int]:
    """Hits and misses per split (for the benchmark and the tests)."""
    return {f"{name}_{k}": getattr(info(), k) for name, info in _MEMOS.items() for k in ("hits", "misses")}


_SENTENCE_END = re.compile(r"[.!?]+[\"'”’)\]*]*(?=\s|$)")
_ABBREVIATIONS = frozenset(
    [
        "vs",
        "inc",
        "corp",
        "co",
        "ltd",
        "jr",
        "sr",
        "mr",
        "mrs",
        "ms",
        "dr",
        "st",
        "no",
        "approx",
        "est",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "fig",
        "al",
    ]
)
_BULLET = re.compile(r"^\s*(?:[*\-•>]+|\d+[.)])\s+")
_INITIALS = re.compile(r"[a-z](?:\.[a-z])*")


@per_text_cache
def sentences(text: str) -> tuple[str, ...]:
    """Sentences of ``text``: every line on its own, split at . ! ? (not after "vs.", "Inc.", "U.S.", ...)."""
    out: list[str] = []
    for raw in text.splitlines():
        line = _BULLET.sub("", raw)
        start = 0
        for end in _SENTENCE_END.finditer(line):
            chunk = line[start : end.start()].split()
            last = chunk[-1].lstrip("(*[\"'").lower() if chunk else ""
            if end.group(0)[0] == "." and (last in _ABBREVIATIONS or _INITIALS.fullmatch(last)):
                continue
            if piece := line[start : end.end()].strip():
                out.append(" ".join(piece.split()))
            start = end.end()
        if rest := line[start:].strip():
            out.append(" ".join(rest.split()))
    return tuple(out)
