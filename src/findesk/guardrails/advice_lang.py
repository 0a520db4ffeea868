"""The shape of one language's advice-request patterns (the tables live in ``advice_lang_*``).

Rules this module keeps:
- Patterns are regular-expression sources matched on ``text_fold.fold`` output of one sentence:
  lower case, no accents, words separated by single spaces, no punctuation. Word-based languages
  use ``\\b``; Chinese and Japanese, which have no spaces, match characters.
- ``strong``: the sentence asks us for a decision (should I / my client buy, is now a good time to,
  your price target, how much of my portfolio): always refused.
- ``weak``: advice topics that are research when asked about what others said or did (a reported
  price target, "buy or sell" in a headline) or what a word means: refused unless the same sentence
  matches ``research``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LangPatterns:
    strong: tuple[str, ...]
    weak: tuple[str, ...]
    research: tuple[str, ...]
