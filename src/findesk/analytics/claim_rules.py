"""Phrase rules behind ``social_claims``: sentence splitting, event phrases, figure patterns, negation/hedges.

Rules this module keeps:
- Pure text functions; no I/O; never raise on odd text.
- A phrase is negated when its clause (split at , ; : dashes and but/however/although/while/yet) holds a
  negation ("no", "not", "n't", "never", "false", "denied", "debunked", "avoided", ...), and hedged when
  the clause before it (for figures: up to the figure's end) holds a conditional or forecast word ("if",
  "could", "will", "expect", "estimate", "consensus", "guidance", "analysts project", "I think", ...) or
  a future word follows it ("dilution will follow").
- A figure for the company's revenue or growth must not be a segment's: the word right before
  "revenue"/"sales" is a neutral one (total, net, quarterly, its, the, Q3, ...) or names the company.
- Not a claim (``not_a_claim``): a question; a wish ("May your bankruptcy be postponed.", "I hope ...");
  a meme caption ("This sub after NVDA lowers guidance ...", or any sentence ending in ":" whose content
  is an image); sarcasm marked as such ("/s", "yeah right").
- Whose claim (``possessives``): a proper noun with 's ("Google's", "Vertiv's") names the company a
  figure or event belongs to; people, places and calendar words with 's are not companies.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Literal

_I = re.IGNORECASE


def word_list(words: str) -> frozenset[str]:
    """The space-separated words of ``words`` (long word lists read better as one string)."""
    return frozenset(words.split())


EVENT_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, _I))
    for kind, pattern in (
        (
            "buyout",
            r"\bbuy-?outs?\b|\bbought out\b|\b(?:being|to be) (?:acquired|bought)\b"
            r"|\b(?:gets?|got|getting) acquired\b|\bacquired by\b|\btakeover (?:bid|offer|deal|target)\b"
            r"|\btender offer\b|\bto acquire\b"
            r"|\bgo(?:ing|es)? private\b",
        ),
        ("merger", r"\bmergers?\b|\bmerg(?:ing|e|es|ed) with\b"),
        (
            "fda_approval",
            r"\bfda[- ](?:approval|approved|approves|clearance|cleared|nod)\b|\bapproved by the fda\b"
            r"|\bfda (?:has |have )?(?:approved|granted|cleared)\b",
        ),
        (
            "bankruptcy",
            r"\bchapter (?:11|7)\b|\bbankruptcy\b|\binsolven(?:t|cy)\b"
            r"|\b(?:go|goes|going|went|gone|is|are|was|be|been|declared?|declares) bankrupt\b",
        ),
        (
            "offering",
            r"\b(?:secondary|share|stock|equity|public|atm|at-the-market|dilutive) offering\b|\bdilution\b"
            r"|\bdilut(?:ing|es|ed) (?:shareholders|shares|holders)\b",
        ),
        (
            "split",
            r"\b(?:stock|share|reverse(?: stock)?) split\b"
            r"|\b\d+[- ](?:for|to)[- ]\d+ (?:stock |reverse )?split\b"
            r"|\bsplit(?:ting)? (?:the |its |their )?(?:stock|shares)\b",
        ),
        (
            "earnings_beat",
            r"\b(?:beat|beats|beating|beaten|topped|tops|crushed|crushes|crushing|smashed|exceeded|exceeds|"
            r"surpassed) (?:on )?(?:the |analyst |analysts' |wall street )?"
            r"(?:earnings|estimates|expectations|consensus|eps|street)\b|\bearnings beat\b|\bdouble beat\b",
        ),
        (
            "earnings_miss",
            r"\b(?:missed|misses|missing|miss) (?:on )?(?:the |analyst |analysts' |wall street )?(?:earnings|"
            r"estimates|expectations|consensus|eps|street)\b|\bearnings miss\b"
            r"|\b(?:fell|falls|came in) (?:short of|below) (?:the )?(?:estimates|expectations|consensus)\b",
        ),
        (
            "guidance",
            r"\b(?:raised|raises|raising|cut|cuts|cutting|lowered|lowers|lowering|slashed|slashes|boosted|boosts|"
            r"hiked|hikes|reaffirmed|reiterated|withdrew|withdrawn|pulled|suspended) (?:its |their |the )?"
            r"(?:full-year |full year |fy |annual |quarterly |q[1-4] |revenue |sales |eps |earnings )*"
            r"(?:guidance|outlook|forecast)\b"
            r"|\bguidance (?:raise|cut|hike)\b|\bguided (?:higher|lower|up|down)\b",
        ),
    )
)

_AMOUNT = (
    r"(?P<neg>-)?\$\s?(?P<num>\d[\d,]*(?:\.\d+)?)\s?"
    r"(?P<scale>trillion|billion|million|thousand|tn|bn|mn|mm|[tbmk])?\b"
)
_METRIC = r"revenues?|sales|top[- ]line"
REVENUE_RULES: tuple[re.Pattern[str], ...] = (
    re.compile(rf"(?P<metric>\b(?:{_METRIC})\b)(?P<gap>(?:(?!\$)[^;!?\n]){{0,50}}?){_AMOUNT}", _I),
    re.compile(
        rf"{_AMOUNT}(?:\s+(?:in|of))?\s+(?:(?:total|quarterly|net|q[1-4])\s+)?(?P<what>{_METRIC})\b", _I
    ),
)
EPS_RULES: tuple[re.Pattern[str], ...] = (
    re.compile(
        r"\b(?:diluted\s+|adjusted\s+|non-gaap\s+|gaap\s+)?(?:eps|earnings per (?:diluted\s+)?share)\b"
        r"(?P<gap>[^$\d;!?\n]{0,30}?)(?P<neg>-)?(?P<dollar>\$\s?)?(?P<num>\d+(?:\.\d+)?)",
        _I,
    ),
    re.compile(
        r"\b(?:earned|earns|earning|earnings of|profit of|profit was|net income of|income of|loss of|lost)\s+"
        r"(?P<neg>-)?(?P<dollar>\$\s?)(?P<num>\d+(?:\.\d+)?)\s+(?:a|per)\s+(?:diluted\s+)?share\b",
        _I,
    ),
)
_GROWTH_METRIC = r"revenues?|sales|top[- ]line|eps|earnings per share|earnings|profits?|net income"
_UP_DOWN = (
    r"up|rose|rises|grew|grows|growing|increased|increases|jumped|jumps|climbed|climbs|gained|gains|surged|"
    r"soared|expanded|down|fell|falls|declined|declines|dropped|drops|decreased|decreases|slid|shrank|contracted"
)
_NOUN = r"growth|increase|gain|jump|rise|decline|drop|decrease|fall"
_YOY = (
    r"yoy|y/y|year[- ]over[- ]year|from a year (?:ago|earlier)"
    r"|(?:compared|versus|vs\.?) (?:to |with )?(?:a|last) year"
)
GROWTH_RULES: tuple[re.Pattern[str], ...] = (
    re.compile(
        rf"(?P<metric>\b(?:{_GROWTH_METRIC})\b)(?P<gap>[^$\d;!?\n]{{0,25}}?)\b(?P<dir>{_UP_DOWN})"
        r"(?:\s+(?:by|about|roughly|approximately|nearly|almost|over|more than|around))*"
        r"\s+~?(?P<num>\d+(?:\.\d+)?)\s?%",
        _I,
    ),
    re.compile(
        rf"(?P<num>\d+(?:\.\d+)?)\s?%\s+(?:(?:{_YOY}|annual|quarterly)\s+)?(?P<what>{_GROWTH_METRIC})\s+"
        rf"(?P<dir>{_NOUN})\b",
        _I,
    ),
    re.compile(
        rf"(?P<num>\d+(?:\.\d+)?)\s?%\s+(?:(?:{_YOY})\s+)?(?P<dir>{_NOUN})\s+in\s+"
        rf"(?:(?:total|consolidated|net|quarterly|overall|its|their)\s+)?(?P<what>{_GROWTH_METRIC})\b",
        _I,
    ),
    re.compile(
        r"(?P<metric>\b(?:revenues?|sales|eps|earnings)\b)\s+growth\s+(?:of|was|at|is|came in at)\s+~?"
        r"(?P<neg>-)?(?P<num>\d+(?:\.\d+)?)\s?%",
        _I,
    ),
    re.compile(
        r"(?P<subject>[^;,.!?\n]{0,40}?)\b(?P<dir>grew|grows|rose|increased|jumped|fell|declined|dropped)\s+"
        rf"(?:by\s+)?(?P<num>\d+(?:\.\d+)?)\s?%\s+(?:{_YOY})\b",
        _I,
    ),
)

# Gates: words every alternative of every rule in a group holds, so a sentence holding none of them
# cannot match that group and is skipped unchanged. Most sentences state no event and no figure, and a
# few substring tests cost far less than the rules' scans. Keep them in step with the rules above:
# a new rule alternative needs one of its group's words (or a new word here).
# ``re.IGNORECASE`` also matches İ ı ſ K (Kelvin) to i i s k; a sentence holding one of them is tested
# with the words as a case-insensitive regular expression instead, so a gate never disagrees with a rule.
_FOLDS_TO_ASCII = ("\u0130", "\u0131", "\u017f", "\u212a")


def folded(sentence: str) -> str | None:
    """``sentence`` lower-cased for the gates, or None when it holds a character that ``re.IGNORECASE``
    folds onto an ASCII letter (then the gates use their regular expressions)."""
    return None if any(c in sentence for c in _FOLDS_TO_ASCII) else sentence.lower()


class WordGate:
    """Lower-case words one of which a rule group needs (see the gates' comment)."""

    def __init__(self, *words: str) -> None:
        self.words = words
        self._pattern = re.compile("|".join(re.escape(w) for w in words), _I)

    def passes(self, sentence: str, lowered: str | None) -> bool:
        """Whether ``sentence`` (with ``lowered = folded(sentence)``) holds one of the words."""
        if lowered is not None:
            return any(w in lowered for w in self.words)
        return self._pattern.search(sentence) is not None


EVENT_GATE = WordGate(
    *("buy", "bought", "acquir", "takeover", "tender", "private"),  # buyout
    "merg",  # merger
    "fda",  # fda_approval
    *("chapter", "bankrupt", "insolven"),  # bankruptcy
    *("offering", "dilut"),  # offering
    "split",  # split
    *("beat", "top", "crush", "smash", "exceed", "surpass"),  # earnings_beat
    *("miss", "short", "below"),  # earnings_miss
    *("guid", "outlook", "forecast"),  # guidance
)
REVENUE_GATE = WordGate("revenue", "sales", "top line", "top-line")  # and a "$" amount
EPS_GATE = WordGate("eps", "share")  # "eps", "earnings per share", "$1.20 a share"
# a metric, or (the subject rule) a year-over-year phrase; and a "%"
GROWTH_GATE = WordGate(
    *("revenue", "sales", "top line", "top-line", "eps", "earnings", "profit", "net income"),
    *("yoy", "y/y", "year"),
)


_SCALE = {"t": 10**12, "tn": 10**12, "trillion": 10**12, "b": 10**9, "bn": 10**9, "billion": 10**9}
_SCALE |= {"m": 10**6, "mn": 10**6, "mm": 10**6, "million": 10**6, "k": 10**3, "thousand": 10**3}
# What follows a dollar figure that makes it something other than the company's revenue / EPS.
_NOT_REVENUE_AFTER = re.compile(
    r"\s*(?:in\s+|of\s+)?(?:investments?|buybacks?|market cap|valuation|deals?|contracts?|cash|capex|loans?|"
    r"debt|settlement|fines?|acquisition|stake)\b",
    _I,
)
_NOT_EPS_AFTER = re.compile(r"\s?(?:%|billion|million|trillion|bn|mn|[bmkt]\b)", _I)
_GAP_BAD = re.compile(
    r"\b(?:stock|shares?|price|market|cap|valuation|margins?|guidance|target|cash|debt|buybacks?|capex|"
    r"investments?|deal|users|subscribers|units|eps|profits?|income|segment|dividends?)\b",
    _I,
)
_NEUTRAL_BEFORE = word_list(
    "total net quarterly annual overall consolidated reported record its their the company company's "
    "fiscal headline and with of on in that quarter quarter's group gaap a had has have posted generated "
    "whose which as was is our while when also but or to from for at by latest last this year year's "
    "full-year full q1 q2 q3 q4 fy"
)
_PRONOUNS = frozenset({"it", "they", "the company", "company", "the firm"})
_DOWN = re.compile(r"down|fell|fall|decl|drop|decreas|slid|shr[ia]nk|contract", _I)

_NEGATION = re.compile(
    r"\b(?:no|not|never|nor|without|cannot|false|fake|untrue|debunked|denied|denies|deny|denying|"
    r"rejected|rejects|hoax|nothing|nobody|avoid\w*|avert\w*|escap\w*|emerg\w* from)\b|n't\b",
    _I,
)
_HEDGE = re.compile(
    r"\b(?:if|whether|unless|could|would|might|should|will|can|shall|expect\w*|anticipat\w*|predict\w*|"
    r"project\w*|forecast\w*|estimat\w*|consensus|guid\w*|outlook|target\w*|hop(?:e|es|ing)|wish\w*|bet|"
    r"betting|think|thinks|believe|believes|confident|likely|probably|possibl\w*|potential\w*|pending|"
    r"await\w*|seeking|seeks|maybe|perhaps|imagine|wonder\w*|want|wants|plans? to|going to|gonna)\b"
    r"|(?-i:\bmay\b)",  # lower case only: "May 5" is a date
    _I,
)
_FUTURE_AFTER = re.compile(r"(?:\s+\w+)?\s+(?:will|would|could|might|may|expected|likely|possible)\b", _I)
_CLAUSE_BREAK = re.compile(r"[;,:]\s|\s[-–—]+\s|\b(?:but|however|although|though|whereas|while|yet)\b", _I)
_QUESTION_START = re.compile(
    r"^\W*(?:will|would|is|are|was|were|does|do|did|could|should|can|has|have|shall)\s+\$?[a-z]", _I
)
_WISH = re.compile(
    r"^\W*(?:may\s+(?:your|you|the|his|her|their|it|they|we|our|god|all)\b|let'?s hope\b|hopefully\b|"
    r"i (?:hope|wish|pray)\b|if only\b)",
    _I,
)
_MEME = re.compile(
    r"^\W*(?:this sub|this subreddit|me|us|wsb|bears|bulls|everyone|nobody|pov|my (?:wife|portfolio|account|"
    r"calls|puts|wallet))\b.{0,80}?\b(?:after|when|waiting|watching|seeing)\b",
    _I,
)
_SARCASM = re.compile(r"(?:^|\s)/s\b|\byeah,? right\b|\bsure,? jan\b|🤡", _I)
_POSSESSIVE = re.compile(r"(?<![\w$])(?P<name>[A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*)?)(?:'s|’s)(?!\w)")
# Words with 's that are not a company: people, places, the calendar, the market, the period.
_NOT_COMPANIES = word_list(
    "It That This Today Tomorrow Yesterday Year Quarter Company Street America Fed Trump Musk Elon Buffett "
    "Powell Jensen Huang Cook Tim Nadella Zuckerberg Zuck Bezos Jassy Pichai Dimon Warren Wall Nation World "
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July "
    "August September October November December Q1 Q2 Q3 Q4 FY Management CEO CFO Investor Investors OP "
    "Everyone Nobody Someone China US U.S. Washington Congress Biden Obama"
)


def question(sentence: str) -> bool:
    return sentence.rstrip(" \"'”’)*").endswith("?") or bool(_QUESTION_START.match(sentence))


def not_a_claim(sentence: str) -> str | None:
    """Why ``sentence`` states no fact (a question, a wish, a meme caption, sarcasm); None when it may."""
    if question(sentence):
        return "a question"
    if _WISH.match(sentence):
        return "a wish"
    if _MEME.match(sentence) or sentence.rstrip(" \"'”’)*").endswith(":"):
        return "a meme caption (what it introduces is an image, not text)"
    if _SARCASM.search(sentence):
        return "sarcasm"
    return None


def possessives(text: str) -> list[tuple[int, str]]:
    """(end offset, name) of each proper noun with 's in ``text`` that may be a company."""
    out = []
    for found in _POSSESSIVE.finditer(text):
        name = found.group("name").strip()
        if name.split()[-1] not in _NOT_COMPANIES and name.split()[0] not in _NOT_COMPANIES:
            out.append((found.end(), name))
    return out


def _clause(sentence: str, start: int, end: int) -> tuple[int, int]:
    left, right = 0, len(sentence)
    for brk in _CLAUSE_BREAK.finditer(sentence):
        if brk.end() <= start:
            left = brk.end()
        elif brk.start() >= end:
            right = brk.start()
            break
    return left, right


def _negated(sentence: str, start: int, end: int) -> bool:
    left, right = _clause(sentence, start, end)
    return bool(_NEGATION.search(sentence[left:right].replace("’", "'")))


def _hedged(sentence: str, start: int, end: int, *, with_match: bool) -> bool:
    left, _ = _clause(sentence, start, start)
    before = sentence[left : end if with_match else start]
    return bool(_HEDGE.search(before) or _FUTURE_AFTER.match(sentence, end))


def asserted(found: re.Match[str], *, with_match: bool) -> bool:
    """Whether a phrase match is stated as fact: not negated in its clause, not hedged before it (or,
    ``with_match``, inside it: "revenue will be about $6.7B"), no future word right after it."""
    sentence, start, end = found.string, found.start(), found.end()
    return not _negated(sentence, start, end) and not _hedged(sentence, start, end, with_match=with_match)


def money(found: re.Match[str], *, per_share: bool = False) -> float | None:
    """The figure a revenue/EPS match states, as a plain float; None when it is not one."""
    after = found.string[found.end() :]
    try:
        # Decimal keeps "$94.04 billion" an exact 94,040,000,000 rather than a float product.
        exact = Decimal(found.group("num").replace(",", ""))
    except InvalidOperation:
        return None
    if per_share:
        if _NOT_EPS_AFTER.match(after) or not (found.group("dollar") or "." in found.group("num")):
            return None
        loss = re.search(r"\bloss\b|\blost\b", found.group(0), _I)
        return -float(exact) if found.group("neg") or loss else float(exact)
    if _NOT_REVENUE_AFTER.match(after):
        return None
    value = float(exact * _SCALE.get((found.group("scale") or "").lower(), 1))
    return -value if found.group("neg") else value


def growth_value(found: re.Match[str]) -> float:
    value = float(found.group("num"))
    groups = found.groupdict()
    down = groups.get("neg") or (groups.get("dir") and _DOWN.match(groups["dir"]))
    return -value if down else value


def metric_of(found: re.Match[str]) -> Literal["revenue", "eps"] | None:
    """``revenue`` / ``eps`` for what a growth match names; None when it names nothing or just "earnings"."""
    groups = found.groupdict()
    word = (groups.get("metric") or groups.get("what") or "").lower()
    if re.match(r"revenue|sales|top", word):
        return "revenue"
    return "eps" if re.match(r"eps|earnings per share", word) else None


def fact_word_ok(found: re.Match[str], names_company: Callable[[str], bool]) -> bool:
    """Whether a revenue/growth match is about the company's total, not a segment or the stock."""
    groups = found.groupdict()
    if groups.get("gap") and _GAP_BAD.search(groups["gap"]):
        return False
    if "subject" in groups:  # "grew 10% YoY" names no figure: its subject must be the company itself
        subject = (groups["subject"] or "").strip()
        return subject.lower() in _PRONOUNS or (names_company(subject) and not _GAP_BAD.search(subject))
    before = found.string[: found.start("metric") if groups.get("metric") else found.start()]
    if re.search(r"[,;:(\[*]\s*$", before):
        return True
    words = re.findall(r"[\w$'’.-]+", before)
    word = words[-1].strip(".-").replace("’", "'") if words else ""
    return (
        not word
        or word.lower() in _NEUTRAL_BEFORE
        or names_company(word)
        or bool(re.fullmatch(r"\d{4}", word))
    )
