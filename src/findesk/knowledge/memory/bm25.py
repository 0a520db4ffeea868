"""Okapi BM25 over short texts: which past situations a new one most resembles.

Rules:
- pure and deterministic: no index, no I/O; the same query and documents give the same ranking.
- words: the text lowercased, split on anything that is not a letter or a digit; English stop words
  and bare numbers are dropped (a situation's figures change run to run: a regime label, a ticker, a
  signal's words are what make two cases alike).
- score(q, d) = Σ over the query's distinct words w of
  idf(w) · tf(w, d) · (k1 + 1) / (tf(w, d) + k1 · (1 − b + b · |d| / avgdl)), with k1 = 1.5, b = 0.75
  and idf(w) = ln(1 + (N − n(w) + 0.5) / (n(w) + 0.5)) (the non-negative form: a word in most
  documents still counts a little, never against).
- ``top`` keeps only documents sharing at least one word with the query (score > 0): a memory with
  nothing in common is not a lesson for this case. Ties keep the input order.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

K1 = 1.5
B = 0.75

_WORD = re.compile(r"[a-z0-9]+")
_STOP_TEXT = """
    a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just me more most
    my myself no nor not now of off on once only or other our ours ourselves out over own same she
    should so some such than that the their theirs them themselves then there these they this those
    through to too under until up very was we were what when where which while who whom why will with
    would you your yours yourself yourselves
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())


def tokens(text: str) -> list[str]:
    """The words of ``text`` BM25 counts: lowercased, stop words and bare numbers dropped."""
    return [w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS and not w.isdigit()]


def scores(query: str, docs: Sequence[str], *, k1: float = K1, b: float = B) -> list[float]:
    """The BM25 score of every document for ``query``, in input order."""
    bags = [Counter(tokens(doc)) for doc in docs]
    if not bags:
        return []
    lengths = [sum(bag.values()) for bag in bags]
    avgdl = sum(lengths) / len(bags) or 1.0  # all documents empty: every score is 0 anyway
    n_docs = len(bags)
    frequency: Counter[str] = Counter()
    for bag in bags:
        frequency.update(bag.keys())
    words = sorted(set(tokens(query)))  # sorted: the float sum is added in one fixed order
    idf = {w: math.log(1.0 + (n_docs - frequency[w] + 0.5) / (frequency[w] + 0.5)) for w in words}
    result: list[float] = []
    for bag, length in zip(bags, lengths, strict=True):
        norm = k1 * (1.0 - b + b * length / avgdl)
        total = 0.0
        for w in words:
            tf = bag.get(w, 0)
            if tf:
                total += idf[w] * tf * (k1 + 1.0) / (tf + norm)
        result.append(total)
    return result


def top(query: str, docs: Sequence[str], k: int = 2) -> list[int]:
    """The indexes of the ``k`` documents most similar to ``query``, best first; only documents that
    share a word with it; ties by input order."""
    if k <= 0:
        return []
    ranked = sorted(
        ((score, index) for index, score in enumerate(scores(query, docs)) if score > 0.0),
        key=lambda pair: (-pair[0], pair[1]),
    )
    return [index for _score, index in ranked[:k]]
