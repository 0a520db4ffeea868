"""Advice requests found in any supported language: English, Spanish, German, French, Italian,
Portuguese, Chinese and Japanese.

Rules this module keeps:
- Pure; never raises. A request is split into sentences and each sentence is folded
  (``text_fold.fold``: NFKC, case, accents, look-alike letters, punctuation) before matching, so
  "ＳＨＯＵＬＤ I BUY", "Ѕhоuld I buy" and "¿DEBERÍA comprar?" read as their plain forms.
- Sentence by sentence: the research exemption (a weak topic next to "analysts said", "what does …
  mean") applies only to its own sentence, so a cited headline in one sentence cannot excuse "will it
  go up?" in the next.
- Every language is tried on every sentence: requests mix languages ("¿Debería comprar AAPL?") and
  a language guess on a short question is unreliable. The tables are written so one language's
  words do not match another's patterns.
"""

from __future__ import annotations

import re
import unicodedata

from findesk.analytics.post_text import sentences as split_sentences
from findesk.guardrails.advice_lang import LangPatterns
from findesk.guardrails.advice_lang_cjk import JA, ZH
from findesk.guardrails.advice_lang_en import EN
from findesk.guardrails.advice_lang_eu import DE, ES, FR, IT, PT
from findesk.guardrails.text_fold import fold

LANGUAGES: dict[str, LangPatterns] = {
    "en": EN,
    "es": ES,
    "de": DE,
    "fr": FR,
    "it": IT,
    "pt": PT,
    "zh": ZH,
    "ja": JA,
}


def _union(patterns: list[str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns))


_STRONG = _union([p for lang in LANGUAGES.values() for p in lang.strong])
_WEAK = _union([p for lang in LANGUAGES.values() for p in lang.weak])
_RESEARCH = _union([p for lang in LANGUAGES.values() for p in lang.research])
# Sentences come from the one splitter posts use (``analytics.post_text.sentences``: "J.P. Morgan",
# "U.S." and "Inc." stay inside a sentence); each is split further at ; and CJK stops, which it does
# not know. NFKC has already turned full-width "？" into "?".
_EXTRA_STOPS = re.compile(r";+(?=\s|$)|[。！？；…]+|(?<=[?!])")


def sentences(text: str) -> list[str]:
    """The folded sentences of a request, empty ones dropped."""
    plain = unicodedata.normalize("NFKC", text) if isinstance(text, str) else ""
    return [f for whole in split_sentences(plain) for part in _EXTRA_STOPS.split(whole) if (f := fold(part))]


def advice_phrase(text: str) -> str | None:
    """The (folded) phrase that makes ``text`` an advice request, or None."""
    for sentence in sentences(text):
        m = _STRONG.search(sentence) or (None if _RESEARCH.search(sentence) else _WEAK.search(sentence))
        if m:
            return m.group(0)
    return None
