"""Query analysis: which documents a question points at, and the words a filing would use for it.

Rules this module keeps:
- Clues come only from the question's own words: a company (its name, a distinctive first word of it, or
  its ticker), fiscal years ("FY2022", "FY 2022", "Q2'2023", "2021 Q1"), a quarter, a form ("10-K",
  "annual report", "earnings call"). They are matched against the documents the index actually holds.
- A clue narrows the candidate documents only when some document satisfies it together with the clues
  already applied; a clue nothing satisfies is dropped and named in ``notes``, so a question never turns
  into an empty search because of a year or form the index lacks.
- The latest year a question names is the document year: filings report earlier years as comparatives,
  so a question over "FY2020 to FY2022" is answered by the FY2022 document.
- A ticker matches only when written in capitals or mixed case ("JPM", "JnJ"), so that ordinary words that
  happen to be tickers ("all", "it", "on") never select a company.
- The derived restriction is a set of document ids; it is merged with (never widens) the caller's filters.
- Pure: no I/O; the document list is passed in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict

from findesk.knowledge.retrieval.chunks import ChunkMeta
from findesk.knowledge.retrieval.finance_terms import expansions
from findesk.knowledge.retrieval.models import Filters

_SUFFIXES = frozenset(
    {"inc", "incorporated", "corp", "corporation", "co", "company", "companies", "plc", "ltd", "limited"}
    | {"llc", "lp", "holdings", "holding", "group", "the", "sa", "nv", "ag"}
)
# first words of company names too common to stand for the company on their own
_GENERIC = frozenset(
    {"american", "general", "united", "first", "international", "national", "global", "new", "best", "foot"}
    | {"block", "royal", "southern", "northern", "western", "eastern", "public", "consolidated", "advanced"}
    | {"applied", "digital", "energy", "financial", "capital", "health", "bank", "citizens", "universal"}
    | {"intercontinental", "standard", "state", "street", "texas", "pacific", "atlantic", "great", "home"}
    | {"life", "air", "data", "real"}
)
_YEAR = re.compile(
    r"(?:\bFY\s?'?|\bQ[1-4]\s?'?|\b)((?:19|20)\d{2})\b|\bFY'?(\d{2})\b|\bQ[1-4]\s?'(\d{2})\b", re.IGNORECASE
)
_QUARTER = re.compile(
    r"\bQ([1-4])(?=\b|\s|'|(?:19|20)\d{2})|\b(first|second|third|fourth)\s+(?:fiscal\s+)?quarter", re.I
)
_QUARTER_WORDS = {"first": "1", "second": "2", "third": "3", "fourth": "4"}
_FORMS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b10-?K\b|\bannual report\b", re.IGNORECASE), "10-K"),
    (re.compile(r"\b10-?Q\b|\bquarterly report\b", re.IGNORECASE), "10-Q"),
    (re.compile(r"\b8-?K\b|\bcurrent report\b", re.IGNORECASE), "8-K"),
    (
        re.compile(r"\bearnings (?:call|release|transcript)s?\b|\bconference call\b", re.IGNORECASE),
        "EARNINGS CALL",
    ),
)


class QueryPlan(BaseModel):
    """How one question is searched: the lexical and dense texts, the derived filter and why."""

    model_config = ConfigDict(frozen=True)

    lexical: str  # the question as asked, for BM25
    expansion: str  # filing vocabulary for the concepts it names, added to BM25 with its own weight
    dense: str
    derived: Filters
    notes: list[str]


def _norm_words(text: str) -> list[str]:
    text = text.replace("&", " and ").replace("’", "'")
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w != "s"]


def _aliases(company: str | None, ticker: str | None) -> tuple[list[tuple[str, ...]], set[str]]:
    """Word sequences that name the company, and its tickers (upper case)."""
    phrases: list[tuple[str, ...]] = []
    if company:
        words = _norm_words(company)
        while words and words[-1] in _SUFFIXES:
            words.pop()
        if words:
            phrases.append(tuple(words))
            if len(words) > 1:
                phrases.append(("".join(words),))  # "Foot Locker" written "Footlocker"
                if len(words[0]) >= 3 and words[0] not in _GENERIC and not words[0].isdigit():
                    phrases.append((words[0],))  # "MGM" for "MGM Resorts"
    tickers = {ticker.upper()} if ticker else set()
    return phrases, tickers


def _contains(words: Sequence[str], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(tuple(words[i : i + n]) == phrase for i in range(len(words) - n + 1))


def _ticker_tokens(query: str) -> set[str]:
    """Tokens that may be tickers: all capitals, or mixed case like "JnJ" (never all lower case)."""
    out = set()
    for token in re.findall(r"[A-Za-z][A-Za-z.]{0,5}", query):
        if not token.islower():
            out.add(token.upper().rstrip("."))
    return out


def years_in(query: str) -> list[int]:
    """Four-digit fiscal or calendar years the question names (two-digit "FY'22" read as 2022)."""
    years: list[int] = []
    for full, fy_short, q_short in _YEAR.findall(query):
        if full:
            years.append(int(full))
        elif fy_short or q_short:
            years.append(2000 + int(fy_short or q_short))
    return [y for y in years if 1990 <= y <= 2100]


def quarters_in(query: str) -> set[str]:
    """Fiscal quarters the question names ("Q2", "second quarter")."""
    out = set()
    for digit, word in _QUARTER.findall(query):
        out.add("Q" + (digit or _QUARTER_WORDS[word.lower()]))
    return out


def _narrow(current: list[ChunkMeta], keep: Iterable[bool], label: str, notes: list[str]) -> list[ChunkMeta]:
    kept = [doc for doc, ok in zip(current, keep, strict=True) if ok]
    if kept:
        notes.append(label)
        return kept
    notes.append(f"{label}: no document matches, clue ignored")
    return current


def plan_query(query: str, documents: Sequence[ChunkMeta], *, derive: bool = True) -> QueryPlan:
    """The search plan for ``query`` over ``documents`` (one metadata record per indexed document)."""
    expansion = " ".join(expansions(query))
    if not derive or not documents:
        return QueryPlan(lexical=query, expansion=expansion, dense=query, derived=Filters(), notes=[])
    words = _norm_words(query)
    ticker_tokens = _ticker_tokens(query)
    notes: list[str] = []
    candidates = list(documents)
    narrowed = False

    named: set[str] = set()
    matches = []
    for doc in candidates:
        phrases, tickers = _aliases(doc.company, doc.ticker)
        hit = any(_contains(words, p) for p in phrases) or bool(tickers & ticker_tokens)
        matches.append(hit)
        if hit:
            named.add(doc.company or doc.ticker or doc.doc_id)
    if any(matches):
        candidates = _narrow(candidates, matches, "company: " + ", ".join(sorted(named)), notes)
        narrowed = True

    years = years_in(query)
    if years:
        latest = max(years)
        before = len(candidates)
        candidates = _narrow(
            candidates, [doc.fiscal_year == latest for doc in candidates], f"fiscal year {latest}", notes
        )
        narrowed = narrowed or len(candidates) < before

    forms = {form for pattern, form in _FORMS if pattern.search(query)}
    if forms:
        before = len(candidates)
        candidates = _narrow(
            candidates,
            [(doc.form or "").upper() in forms for doc in candidates],
            "form " + ", ".join(sorted(forms)),
            notes,
        )
        narrowed = narrowed or len(candidates) < before

    quarters = quarters_in(query)
    if quarters:
        # a fourth quarter is also reported in the annual filing
        periods = quarters | ({"FY"} if "Q4" in quarters else set())
        before = len(candidates)
        candidates = _narrow(
            candidates,
            [(doc.fiscal_period or "").upper() in periods for doc in candidates],
            "quarter " + ", ".join(sorted(quarters)),
            notes,
        )
        narrowed = narrowed or len(candidates) < before

    derived = Filters(doc_ids=frozenset(doc.doc_id for doc in candidates)) if narrowed else Filters()
    return QueryPlan(lexical=query, expansion=expansion, dense=query, derived=derived, notes=notes)
