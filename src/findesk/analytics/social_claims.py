"""Claims extracted from posts and news: events (buyout, split, ...) and figures (revenue, EPS, growth).

Rules this module keeps:
- Pure: posts in, claims out; no I/O, no clock; never raises on odd input (empty text, None fields).
- A post counts only when it is about ``symbol``: its title/text names the ticker (``$AAPL`` or the bare
  upper-case word, see ``formats.mentions``) or its own ticker list holds it.
- A claim is one sentence. Sentences naming the company (ticker, or a name the post itself pairs with the
  ticker, as in "Apple (AAPL)", or a caller-given alias) are tried first, then sentences naming no ticker
  at all. Sentences naming only other tickers never count, and ticker-free sentences count only when the
  post is focused on the company (its title names it, or it names no other ticker).
- Not claims: questions ("will AAPL split?"), negated statements ("no buyout", "rumors of a split are
  false"), hedged ones ("if", "could", "expect", "analysts project", ... before the phrase in its
  clause, or "will" right after it: "dilution will follow"). A rumour stated as news still counts.
- Figures must be stated with a magnitude: revenue needs a scale (B/bn/billion, M, T, K) or a
  full number of at least 1,000,000 USD; EPS is USD per share; growth is percent (negative when down).
  Revenue and growth of a segment ("iPhone revenue", "Services revenue") are not the company's figure.
- One claim per (post, kind): the first sentence in the order above. ``text`` is that sentence with
  whitespace collapsed, at most 240 characters.
- A post names another company too when its title holds an upper-case word of 3-5 letters that the post
  repeats (``TECK`` in "Wells Fargo analyst gives TECK $101 price target"), like a cashtag does.
- Each claim says what it is (``claim_rules``): ``not_a_claim`` holds why a sentence is a wish, a meme
  caption, sarcasm or a question; ``about_other`` names the company a figure or event belongs to when
  the last company named before it in the sentence is another one ("Google's ... revenue ($46.6b ...)",
  "Vertiv's Q2 growth up 35% — beating expectations"). Such claims are kept, so the Divergences section
  shows them with their verdict instead of silently dropping them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

from findesk.analytics.claim_rules import (
    EPS_GATE,
    EPS_RULES,
    EVENT_GATE,
    EVENT_RULES,
    GROWTH_GATE,
    GROWTH_RULES,
    REVENUE_GATE,
    REVENUE_RULES,
    asserted,
    fact_word_ok,
    folded,
    growth_value,
    metric_of,
    money,
    not_a_claim,
    possessives,
    question,
    word_list,
)
from findesk.analytics.post_text import sentences
from findesk.data.formats.mentions import company_tickers, listed, mentions
from findesk.data.models import NewsItem, SocialPost

EventKind = Literal[
    "buyout",
    "merger",
    "fda_approval",
    "bankruptcy",
    "offering",
    "split",
    "earnings_beat",
    "earnings_miss",
    "guidance",
]
NumericKind = Literal["revenue", "eps", "growth"]
ClaimKind = Literal[EventKind, NumericKind]  # nested Literals flatten: one list of names, not two
MAX_TEXT = 240


class SocialClaim(BaseModel):
    """A factual claim a post makes about the company. Always UNVERIFIED until checked."""

    model_config = ConfigDict(frozen=True)

    kind: ClaimKind
    text: str  # the sentence that makes the claim, on one line, at most 240 characters
    post_id: str
    platform: str  # "reddit" / "stocktwits" / "news"
    author: str | None = None
    url: str | None = None
    published_at: datetime
    value: float | None = None  # numeric claims: the figure as a plain number (USD, USD/share, percent)
    unit: Literal["USD", "USD/shares", "percent"] | None = None
    metric: Literal["revenue", "eps"] | None = None  # growth claims: what grew (None: not said)
    not_a_claim: str | None = None  # why the sentence states no fact ("a wish", "a meme caption", ...)
    about_other: str | None = None  # the other company the sentence's claim belongs to ("Google")


_CASHTAG = re.compile(r"\$([A-Za-z]{1,5}(?:[.-][A-Za-z])?)(?![A-Za-z0-9])")
_NAME = r"[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*){0,2}"
_TICKER = r"[A-Z]{1,5}(?:[.-][A-Z])?"
# "Apple (AAPL)", "Nvidia (NASDAQ: NVDA)", "AAPL (Apple)", "$AAPL (Apple)": a post naming a ticker's company.
_PAIRS = (
    re.compile(rf"(?P<name>{_NAME})\s*\(\s*(?:\$|(?:NASDAQ|NYSE|AMEX)\s*:\s*)?(?P<ticker>{_TICKER})\s*\)"),
    re.compile(rf"(?<![\w$])\$?(?P<ticker>{_TICKER})\W{{0,3}}\s*\(\s*(?P<name>{_NAME})\s*\)"),
)
_QUOTE_LINK = re.compile(r"quote(?:\.ashx\?t=|/)(?P<ticker>[A-Z]{1,5})\b")
_SUFFIX = re.compile(r"(?:\s+(?:Inc|Corp|Corporation|Co|Ltd|Holdings|Group|Company|Class [A-C])\.?)+$")
_NOT_TICKERS = word_list(
    "A I AI US UK EU CEO CFO CTO USA USD EPS ETF IPO GDP FDA SEC ATH YOY TTM IMO DCA IRA FY FED WSB YOLO DD "
    "OP AWS LLM GPU CPU API NOT AND THE FOR BUT ALL NEW NOW WTF LOL LMAO EBIT FCF PE PEG RSI IV ITM OTM EOD"
)
_UPPER_WORD = re.compile(r"(?<![\w$/.-])[A-Z]{3,5}(?![\w])")


def _pairs(text: str) -> tuple[dict[str, set[str]], set[str]]:
    """Company names the text pairs with tickers, and every ticker it so marks (plus quote links)."""
    names: dict[str, set[str]] = {}
    marked = {m.group("ticker") for m in _QUOTE_LINK.finditer(text)}
    if "(" not in text:  # both pair patterns need a parenthesis: skip their costly scans
        return names, marked - _NOT_TICKERS
    for pattern in _PAIRS:
        for found in pattern.finditer(text):
            ticker, name = found.group("ticker"), _SUFFIX.sub("", found.group("name")).strip()
            if ticker in _NOT_TICKERS or name.upper() == ticker:
                continue
            marked.add(ticker)
            if len(name) >= 3 and name.split()[0] not in ("The", "NASDAQ", "NYSE"):
                names.setdefault(ticker, set()).add(name)
    return names, marked - _NOT_TICKERS


def _repeated_title_words(title: str, whole: str) -> set[str]:
    """Upper-case words of the title that the post repeats: tickers written without a ``$``."""
    return {
        w for w in set(_UPPER_WORD.findall(title)) - _NOT_TICKERS if len(re.findall(rf"\b{w}\b", whole)) >= 2
    }


class _Subject:
    """Which sentences speak about the company, for one post."""

    def __init__(self, symbol: str, title: str, body: str, tickers: Sequence[str], aliases: Sequence[str]):
        self.symbol = symbol
        own = company_tickers(symbol)
        whole = f"{title}\n{body}"
        paired, marked = _pairs(whole)
        self.names = {a.strip() for a in aliases if a and a.strip()}
        self.names |= {n for t in own for n in paired.get(t, ())}
        # compiled once per post, not looked up per sentence: a name stands alone (not "$Apple", "Apples")
        self._name_patterns = tuple(re.compile(rf"(?<![\w$]){re.escape(n)}(?!\w)") for n in self.names)
        # any name at all: one scan (an alternation matches where some name's own pattern does)
        alternatives = "|".join(re.escape(n) for n in self.names)
        self._any_name = re.compile(rf"(?<![\w$])(?:{alternatives})(?!\w)") if self.names else None
        self.others = {t.strip().upper() for t in tickers if t and t.strip()} | marked
        self.others |= {m.upper() for m in _CASHTAG.findall(whole)} | _repeated_title_words(title, whole)
        self.others -= own
        # A source's ticker tag or a passing name does not make a post's ticker-free sentences the
        # company's (Reddit exports tag an Applied Materials story AAPL): the title must name the
        # company, or the text must name its ticker and no other ticker.
        names_other = any(mentions(whole, t) for t in self.others)
        self.focused = self.names_company(title) or (mentions(body, symbol) and not names_other)

    def names_company(self, text: str) -> bool:
        if mentions(text, self.symbol):
            return True
        return self._any_name is not None and self._any_name.search(text) is not None

    def about_other(self, sentence: str, end: int) -> str | None:
        """The other company a claim ending at ``end`` belongs to: the last company named before it."""
        head = sentence[:end]
        own = [m.end() for pattern in self._name_patterns for m in pattern.finditer(head)]
        own += [m.end() for m in re.finditer(rf"(?<![\w$]){re.escape(self.symbol)}(?![\w])", head)]
        others = [(e, n) for e, n in possessives(head) if not self.names_company(n)]
        for ticker in self.others:
            others += [
                (m.end(), ticker) for m in re.finditer(rf"(?<![\w$])\$?{re.escape(ticker)}(?![\w])", head)
            ]
        last = max(others, default=None)
        return last[1] if last and last[0] > max(own, default=-1) else None

    def rank(self, sentence: str) -> int | None:
        """0: names the company; 1: names no ticker (post focused on it); None: not about it."""
        if self.names_company(sentence):
            return 0
        if any(mentions(sentence, t) for t in self.others):
            return None
        return 1 if self.focused else None


def _ordered(subject: _Subject, title: str, body: str) -> list[str]:
    found = [s for s in (*sentences(title), *sentences(body)) if not question(s)]
    ranked = [(r, i, s) for i, s in enumerate(found) if (r := subject.rank(s)) is not None]
    return [s for _, _, s in sorted(ranked)]


def _clip(sentence: str) -> str:
    text = " ".join(sentence.split())
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1].rstrip() + "…"


def _event_claims(sentence: str, lowered: str | None) -> Iterator[tuple[str, int]]:
    """(kind, end of the phrase) of each event the sentence asserts (``lowered``: ``folded(sentence)``)."""
    if not EVENT_GATE.passes(sentence, lowered):  # no event word: no rule can match
        return
    for kind, pattern in EVENT_RULES:
        found = next((f for f in pattern.finditer(sentence) if asserted(f, with_match=False)), None)
        if found is not None:
            yield kind, found.end()


_DIGIT = re.compile(r"\d")
_Figure = tuple[str, float, Literal["USD", "USD/shares", "percent"], Literal["revenue", "eps"] | None, int]


def _figures(sentence: str, lowered: str | None, subject: _Subject) -> Iterator[_Figure]:
    def clean(found: re.Match[str]) -> bool:  # a figure's gap may hold the hedge: "revenue will be $6.7B"
        return asserted(found, with_match=True)

    if not _DIGIT.search(sentence):  # every figure rule needs a number: most sentences have none
        return
    # a group whose gate fails cannot match (revenue needs a "$" amount, growth a "%"): skip its scans
    revenue_rules = REVENUE_RULES if "$" in sentence and REVENUE_GATE.passes(sentence, lowered) else ()
    eps_rules = EPS_RULES if EPS_GATE.passes(sentence, lowered) else ()
    growth_rules = GROWTH_RULES if "%" in sentence and GROWTH_GATE.passes(sentence, lowered) else ()

    for pattern in revenue_rules:
        for found in pattern.finditer(sentence):
            value = money(found)
            if (
                value is not None
                and value >= 1e6
                and clean(found)
                and fact_word_ok(found, subject.names_company)
            ):
                yield "revenue", value, "USD", None, found.end()
                break
    for pattern in eps_rules:
        for found in pattern.finditer(sentence):
            value = money(found, per_share=True)
            if value is not None and abs(value) < 1000 and clean(found):
                yield "eps", value, "USD/shares", None, found.end()
                break
    for pattern in growth_rules:
        for found in pattern.finditer(sentence):
            if clean(found) and fact_word_ok(found, subject.names_company):
                yield "growth", growth_value(found), "percent", metric_of(found), found.end()
                break


def _claims_from(
    *,
    symbol: str,
    title: str,
    body: str,
    tickers: Sequence[str],
    aliases: Sequence[str],
    base: dict[str, object],
) -> list[SocialClaim]:
    subject = _Subject(symbol, title, body, tickers, aliases)
    taken: dict[str, SocialClaim] = {}

    def take(kind: str, sentence: str, end: int, figure: dict[str, object]) -> None:
        # A statement about the company beats a meme, a wish or another company's figure of the same kind.
        held = taken.get(kind)
        if held is not None and not (held.not_a_claim or held.about_other):
            return
        why, other = not_a_claim(sentence), subject.about_other(sentence, end)
        if held is not None and (why or other):
            return
        fields = {"kind": kind, "text": _clip(sentence), "not_a_claim": why, "about_other": other, **figure}
        taken[kind] = SocialClaim.model_validate({**base, **fields})

    for sentence in _ordered(subject, title, body):
        lowered = folded(sentence)
        for kind, end in _event_claims(sentence, lowered):
            take(kind, sentence, end, {})
        for kind, value, unit, metric, end in _figures(sentence, lowered, subject):
            take(kind, sentence, end, {"value": value, "unit": unit, "metric": metric})
    return list(taken.values())


def extract_claims(
    posts: Sequence[SocialPost], symbol: str, *, aliases: Sequence[str] = ()
) -> list[SocialClaim]:
    """Event and numeric claims the posts make about ``symbol``, in post order (see module rules).

    ``aliases``: company names that count like the ticker in a sentence (e.g. ``["Apple"]``).
    """
    symbol = (symbol or "").strip().upper().lstrip("$")
    if not symbol:
        return []
    claims: list[SocialClaim] = []
    for post in posts:
        title, body = post.title or "", post.text or ""
        if not (listed(symbol, post.tickers) or mentions(f"{title}\n{body}", symbol)):
            continue
        author = post.author.username if post.author else None
        base: dict[str, object] = {
            "post_id": post.id,
            "platform": post.platform,
            "author": author,
            "url": post.url,
            "published_at": post.published_at,
        }
        claims += _claims_from(
            symbol=symbol, title=title, body=body, tickers=post.tickers, aliases=aliases, base=base
        )
    return claims


def extract_news_claims(
    items: Sequence[NewsItem], symbol: str, *, aliases: Sequence[str] = ()
) -> list[SocialClaim]:
    """Like ``extract_claims`` for news items (title and summary; ``platform="news"``, author = publisher)."""
    symbol = (symbol or "").strip().upper().lstrip("$")
    if not symbol:
        return []
    claims: list[SocialClaim] = []
    for item in items:
        title, body = item.title or "", item.summary or ""
        if not (listed(symbol, item.tickers) or mentions(f"{title}\n{body}", symbol)):
            continue
        base: dict[str, object] = {
            "post_id": item.id,
            "platform": "news",
            "author": item.publisher,
            "url": item.url,
            "published_at": item.published_at,
        }
        claims += _claims_from(
            symbol=symbol, title=title, body=body, tickers=item.tickers, aliases=aliases, base=base
        )
    return claims
