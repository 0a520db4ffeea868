"""Sentences and the hashed features the injection classifier reads.

Rules this module keeps:
- Pure and total: any ``str`` gives a list (possibly empty); never raises.
- Text is folded first (``text_fold.fold``: NFKC, look-alikes, case), so a look-alike spelling of an
  attack has the features of the plain one.
- Features are hashed into ``DIMENSIONS`` buckets with CRC-32, which is stable across processes and
  Python versions (the built-in ``hash`` of a string is salted per process), so the shipped weights
  mean the same thing everywhere.
- A feature set is small and cheap: word unigrams and bigrams, the first two words (an imperative
  opens a sentence), and shape markers (a question mark, second person, digits, length).
"""

from __future__ import annotations

import itertools
import re
import zlib

from findesk.guardrails.text_fold import fold

DIMENSIONS = 1 << 18
MAX_SENTENCE_CHARS = 600
# Sentence ends: . ! ? followed by space, and line breaks; long runs are cut so a wall of text without
# punctuation is still read in pieces.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+|\n+")
_SECOND_PERSON = frozenset({"you", "your", "yours", "yourself", "u"})
_REPLY_WORDS = frozenset({"response", "reply", "answer", "output", "message", "responses", "replies"})


def sentences(text: str) -> list[str]:
    """The text's sentences, stripped, each at most ``MAX_SENTENCE_CHARS`` characters."""
    if not isinstance(text, str):
        return []
    out: list[str] = []
    for piece in _SENTENCE_END.split(text):
        piece = piece.strip()
        while len(piece) > MAX_SENTENCE_CHARS:
            cut = piece.rfind(" ", 0, MAX_SENTENCE_CHARS)
            cut = cut if cut > MAX_SENTENCE_CHARS // 2 else MAX_SENTENCE_CHARS
            out.append(piece[:cut].strip())
            piece = piece[cut:].strip()
        if piece:
            out.append(piece)
    return out


def _bucket(token: str) -> int:
    return zlib.crc32(token.encode("utf-8")) & (DIMENSIONS - 1)


def _length_band(n: int) -> str:
    return "len:1-3" if n <= 3 else "len:4-8" if n <= 8 else "len:9-20" if n <= 20 else "len:21+"


def tokens(sentence: str) -> list[str]:
    """The feature names of one sentence (before hashing; kept for tests and explanations)."""
    words = fold(sentence).split()
    if not words:
        return []
    feats = [f"w:{w}" for w in words]
    feats += [f"b:{a}_{b}" for a, b in itertools.pairwise(words)]
    feats.append(f"first:{words[0]}")
    if len(words) > 1:
        feats.append(f"first2:{words[0]}_{words[1]}")
    feats.append(_length_band(len(words)))
    stripped = sentence.rstrip()
    if stripped.endswith("?"):
        feats.append("shape:question")
    if _SECOND_PERSON.intersection(words):
        feats.append("shape:second_person")
        if _REPLY_WORDS.intersection(words):
            feats.append("shape:your_reply")
    digits = sum(ch.isdigit() for ch in sentence)
    if digits == 0:
        feats.append("shape:no_digits")
    elif digits * 20 > len(sentence):
        feats.append("shape:many_digits")
    return feats


def hashed(sentence: str) -> list[int]:
    """The sentence's distinct feature buckets."""
    return sorted({_bucket(t) for t in tokens(sentence)})
