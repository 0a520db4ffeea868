"""Headline tone and the news analyst's scored signals: documented word lists, no model.

Rules:
- Pure and deterministic: titles and figures in, numbers out; no I/O, no clock.
- Tone of one headline, in [-1, +1]: ``(p - n) / (p + n)`` where ``p`` and ``n`` count the headline's
  positive and negative cue words (whole words, case folded; the lists below), 0 when it has none.
  Company headlines read ``COMPANY_POSITIVE`` / ``COMPANY_NEGATIVE`` (beats, raises, record, upgrade …
  vs misses, cuts, probe, lawsuit, downgrade …); macro headlines read ``MACRO_POSITIVE`` /
  ``MACRO_NEGATIVE`` (rally, cooling, pause, deal … vs recession, selloff, fears, hike …). The search's
  own topic words (Fed, inflation, tariffs, rates) are not cues: every macro headline holds one.
  Phrases are read first and their words not counted again: "rate cut(s)", "cut(s) rates", "soft
  landing" are positive macro cues, "price target cut" / "guidance cut" negative company cues.
  Negation ("no recession") is not read: a known limit of a word list.
- A headline is the company's when it names it: its ticker in capitals (or as a cashtag), or one of
  its names, case folded (``company_aliases``: the SEC name without its legal suffix, its first word,
  and a brand such as "Google"). A vendor's ticker tag alone does not make a headline the company's.
- ``news_signals`` scores (each score in [-2, +2], rounded to 2 decimals):
  - ``news.company_tone``: mean tone ``m`` of the company headlines; score ``2·m``; weight
    ``min(1, N / FULL_WEIGHT_HEADLINES)`` (fewer headlines, less weight). No headline: no signal.
  - ``news.global_tone``: mean macro tone ``m``; score ``m`` (macro news bears on every stock only
    indirectly, so at most ±1); weight ``0.5 · min(1, N / FULL_WEIGHT_HEADLINES)``. None: no signal.
  - ``news.insider``, only when insider figures are known: more buys than sells +1.0, more sells
    than buys -0.5 (insiders sell for many reasons, they buy for one), equal 0; weight 0.5. Unknown
    (no source): no signal, never a 0 standing for "no insider activity".
- Analytics sits below the agents, so signals are ``Signal`` (id, text, score, weight); the role
  turns them into the report's ``Signal``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from findesk.analytics.post_text import words
from findesk.analytics.trading.signals import Signal

FULL_WEIGHT_HEADLINES = 5
Lexicon = Literal["company", "macro"]

# fmt: off
COMPANY_POSITIVE: frozenset[str] = frozenset({
    "beat", "beats", "tops", "topped", "exceeds", "exceeded", "raise", "raises", "raised", "record",
    "records", "upgrade", "upgrades", "upgraded", "outperform", "outperforms", "surge", "surges", "surged",
    "soar", "soars", "soared", "jump", "jumps", "jumped", "rally", "rallies", "rallied", "gain", "gains",
    "gained", "rise", "rises", "rose", "climb", "climbs", "climbed", "strong", "stronger", "strength",
    "win", "wins", "won", "approval", "approved", "approves", "expand", "expands", "expansion", "boost",
    "boosts", "boosted", "buyback", "buybacks", "bullish", "praise", "praises", "breakthrough", "rebound",
    "rebounds", "upbeat", "profit", "profits", "growth",
})
COMPANY_NEGATIVE: frozenset[str] = frozenset({
    "miss", "misses", "missed", "cut", "cuts", "slash", "slashes", "slashed", "probe", "probes",
    "investigation", "lawsuit", "lawsuits", "sue", "sues", "sued", "fine", "fined", "penalty",
    "downgrade", "downgrades", "downgraded", "underperform", "underperforms", "fall", "falls", "falling",
    "fell", "drop", "drops", "dropped", "slip", "slips", "slipped", "slide", "slides", "plunge", "plunges",
    "plunged", "tumble", "tumbles", "tumbled", "sink", "sinks", "sank", "weak", "weaker", "weakness",
    "warn", "warns", "warning", "recall", "recalls", "ban", "banned", "curbs", "antitrust", "layoffs",
    "loss", "losses", "decline", "declines", "declined", "bearish", "delay", "delays", "delayed", "halt",
    "halts", "risk", "risks", "concern", "concerns", "fears", "offloads", "lower", "lowers", "lowered",
    "selloff", "sell-off",
})
MACRO_POSITIVE: frozenset[str] = frozenset({
    "rally", "rallies", "rallied", "gain", "gains", "gained", "jump", "jumps", "jumped", "surge", "surges",
    "soar", "soars", "rebound", "rebounds", "record", "rise", "rises", "higher", "cooling", "cools",
    "cooled", "ease", "eases", "easing", "eased", "pause", "truce", "deal", "deals", "optimism", "upbeat",
    "beat", "beats", "strong", "resilient", "relief", "advance", "advances", "advancing",
})
MACRO_NEGATIVE: frozenset[str] = frozenset({
    "recession", "selloff", "sell-off", "slump", "slumps", "fall", "falls", "fell", "drop", "drops",
    "plunge", "plunges", "tumble", "tumbles", "lower", "losses", "loss", "fear", "fears", "worry",
    "worries", "concern", "concerns", "warning", "warns", "downgrade", "hike", "hikes", "escalation",
    "crisis", "default", "layoffs", "cuts", "weigh", "weighs", "mayhem", "turmoil", "volatility",
    "uncertainty", "slowdown", "stagflation", "hot", "hotter", "sink", "sinks", "sank", "slide", "slides",
    "slip", "slips", "dip", "dips",
})
# fmt: on
# phrases read before the words (their words are then not counted again), per lexicon: (pattern, +1 / -1)
_PHRASES: dict[Lexicon, tuple[tuple[re.Pattern[str], int], ...]] = {
    "company": (
        (re.compile(r"\b(?:price target|guidance|outlook|forecast) (?:cut|cuts|lowered|slashed)\b"), -1),
        (
            re.compile(r"\b(?:cuts?|lowers?|slashes) (?:its )?(?:guidance|outlook|forecast|price target)\b"),
            -1,
        ),
        (
            re.compile(r"\b(?:raises?|lifts?|boosts?) (?:its )?(?:guidance|outlook|forecast|price target)\b"),
            1,
        ),
    ),
    "macro": (
        (re.compile(r"\b(?:rate cuts?|cuts? (?:interest )?rates|soft landing)\b"), 1),
        (
            re.compile(
                r"\b(?:rate hikes?|hikes? (?:interest )?rates|job cuts|rating cut|credit downgrade)\b"
            ),
            -1,
        ),
    ),
}
_LEXICONS: dict[Lexicon, tuple[frozenset[str], frozenset[str]]] = {
    "company": (COMPANY_POSITIVE, COMPANY_NEGATIVE),
    "macro": (MACRO_POSITIVE, MACRO_NEGATIVE),
}
# legal suffixes left off a company's name before it is looked for in a headline
_SUFFIX = re.compile(
    r"\s*/[a-z]{2,3}/?$"  # a state of incorporation: "/DE/"
    r"|[,.&]?\s+(?:inc|corp|corporation|co|ltd|plc|holdings|group|company|platforms|the|class [a-c]|&)\.?$",
    re.IGNORECASE,
)
# first words too common to name one company on their own ("Bank of America" is not every "bank")
GENERIC_FIRST_WORDS: frozenset[str] = frozenset(
    {
        "american",
        "bank",
        "first",
        "general",
        "global",
        "international",
        "national",
        "united",
        "new",
        "southern",
        "northern",
        "western",
        "eastern",
        "central",
        "royal",
        "capital",
        "public",
        "state",
        "energy",
        "digital",
        "advanced",
        "applied",
        "consolidated",
        "federal",
        "home",
        "life",
        "the",
    }
)
# what headlines call a company when its legal name says otherwise
BRANDS: dict[str, tuple[str, ...]] = {
    "GOOGL": ("Google",),
    "GOOG": ("Google",),
    "META": ("Facebook",),
    "BRK-B": ("Berkshire",),
}


class ToneTally(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    headlines: int
    positive: int
    negative: int
    neutral: int
    mean: float  # mean tone, 2 decimals; 0.0 with no headline


class InsiderFigures(BaseModel):
    """Insider transactions over a window, when a source gave them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    buys: int
    sells: int
    net_shares: float | None = None


def headline_tone(title: str, lexicon: Lexicon = "company") -> float:
    """The headline's tone in [-1, +1] (module rules), rounded to 2 decimals."""
    text = title.lower()
    up = down = 0
    for pattern, sign in _PHRASES[lexicon]:
        for _ in pattern.finditer(text):
            up, down = (up + 1, down) if sign > 0 else (up, down + 1)
        text = pattern.sub(" ", text)  # a phrase's words are not counted again
    positive, negative = _LEXICONS[lexicon]
    found = words(text)
    up += sum(map(positive.__contains__, found))
    down += sum(map(negative.__contains__, found))
    return 0.0 if up + down == 0 else round((up - down) / (up + down), 2)


def tally(tones: Sequence[float]) -> ToneTally:
    n = len(tones)
    return ToneTally(
        headlines=n,
        positive=sum(1 for t in tones if t > 0),
        negative=sum(1 for t in tones if t < 0),
        neutral=sum(1 for t in tones if t == 0),
        mean=round(sum(tones) / n, 2) if n else 0.0,
    )


def company_aliases(ticker: str, name: str | None) -> list[str]:
    """The names a headline may call the company: the SEC name without its legal suffix, its first
    word (3+ letters, unless ``GENERIC_FIRST_WORDS`` holds it) and a known brand ("NVIDIA CORP" ->
    "NVIDIA"; "Alphabet Inc." -> "Alphabet", "Google")."""
    found: list[str] = []
    if name and name.strip():
        base = name.strip()
        while (trimmed := _SUFFIX.sub("", base).strip()) != base:
            base = trimmed
        first = base.split()[0].strip(",.&") if base.split() else ""
        found = [base] if len(base) >= 3 else []
        if len(first) >= 3 and first.lower() not in GENERIC_FIRST_WORDS:
            found.append(first)
    return list(dict.fromkeys([*found, *BRANDS.get(ticker.upper(), ())]))


def names_company(title: str, ticker: str, aliases: Sequence[str]) -> bool:
    """Whether the headline names the company: the ticker in capitals or as a cashtag, or an alias."""
    t = re.escape(ticker.upper())
    if re.search(rf"(?<![A-Za-z0-9]){t}(?![A-Za-z0-9])", title) or re.search(rf"\${t}\b", title, re.I):
        return True
    return any(re.search(rf"(?<!\w){re.escape(a)}(?!\w)", title, re.IGNORECASE) for a in aliases if a)


def _clamp(x: float) -> float:
    return round(max(-2.0, min(2.0, x)), 2)


def _volume_weight(n: int) -> float:
    return round(min(1.0, n / FULL_WEIGHT_HEADLINES), 2)


def _tone_text(what: str, t: ToneTally, span: str) -> str:
    return (
        f"{t.headlines} {what} headline(s){span}: {t.positive} positive, {t.negative} negative, "
        f"{t.neutral} neutral; mean tone {t.mean:+.2f}"
    )


def news_signals(
    company: Sequence[float],
    global_news: Sequence[float],
    insider: InsiderFigures | None,
    *,
    span: str = "",
) -> list[Signal]:
    """The news analyst's signals from the tones of the company and macro headlines and the insider
    figures (None when unknown); ``span`` (" published 2025-04-01..2025-05-01") goes into the texts."""
    out: list[Signal] = []
    if company:
        t = tally(company)
        out.append(
            Signal(
                analyst="news",
                id="news.company_tone",
                text=_tone_text("company", t, span),
                score=_clamp(2 * t.mean),
                weight=_volume_weight(t.headlines),
            )
        )
    if global_news:
        t = tally(global_news)
        out.append(
            Signal(
                analyst="news",
                id="news.global_tone",
                text=_tone_text("macro", t, span),
                score=_clamp(t.mean),
                weight=round(0.5 * _volume_weight(t.headlines), 2),
            )
        )
    if insider is not None:
        if insider.buys > insider.sells:
            score, reading = 1.0, "net insider buying"
        elif insider.sells > insider.buys:
            score, reading = -0.5, "net insider selling"
        else:
            score, reading = 0.0, "insider buys and sells balance"
        net = "" if insider.net_shares is None else f", net {insider.net_shares:+,.0f} shares"
        out.append(
            Signal(
                analyst="news",
                id="news.insider",
                text=f"insiders: {insider.buys} buy(s), {insider.sells} sell(s){net}: {reading}",
                score=score,
                weight=0.5,
            )
        )
    return out
