"""No-advice policy: advice requests are refused on input; advice in our own prose is caught on output.

Rules this module keeps:
- Pure; never raises. Odd input (empty, whitespace, non-text) gives ``Ok("")``/no findings, not errors.
- findesk never gives investment advice: buy/sell/hold recommendations, price targets, allocations.
- Asking what others reported ("what price target cut did the news report?") is research, not advice:
  topic-only patterns (``_WEAK``) are allowed when the request names a third party or a past report.
  Requests addressed to us ("your price target", "should I buy") are always refused.
- Output checks are for our own prose. Patterns need an advice *form* (imperative, "we recommend",
  "rate … a buy", "$" target, "% of your portfolio"), never a bare word, so buy-side, buybacks,
  Best Buy, sell-offs and bullish posters are not flagged. Third-party rating/target news stays
  unless the sentence also speaks as "we"/"you".
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

from findesk.core.result import ErrorCode, Ok, Result, err

MAX_INPUT_CHARS = 2_000
SCRUB_MARKER = "[removed: investment advice is out of scope]"
_CLIP = 240

Kind = Literal["recommendation", "price_target", "allocation"]

REFUSAL = (
    "findesk does not give investment advice: no buy/sell/hold recommendations, price targets or "
    "portfolio allocations. It can prepare a cited briefing instead (filings, market data and social "
    "signal for a ticker, each with its source), e.g. 'briefing on AAPL' or 'what are the risks for AAPL'."
)


class AdviceFinding(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: Kind
    text: str  # the offending phrase as found
    sentence: str  # the sentence containing it (clipped to 240)


# ---- input: requests are normalized to lowercase words ("what's" -> "whats", punctuation -> space) ----

_ACT = (
    r"(?:buy|buying|sell|selling|hold|holding|short|shorting|keep|dump|trim|add to|exit|invest|investing"
    r"|purchase|unload|accumulate|own|load up|double down|take profits?|get out|get in|go long|go short"
    r"|cash out|average down|bail|bullish|bearish)"
)
_POT = r"(?:portfolio|savings|money|retirement|401 ?k|ira|roth|net worth|capital|cash|nest egg)"
_STRONG = [
    rf"\b(?:should|shall|must|ought to) (?:i|we)\b(?: \w+){{0,3}}? (?:be )?{_ACT}\b(?! back| side| off)",
    rf"\b(?:i|we) (?:should|ought to|must)(?: \w+){{0,2}}? (?:be )?{_ACT}\b(?! back| side| off)",
    r"\b(?:would|will|do|could|can) you(?: \w+){0,2}? (?:buy|sell|short|hold|own|invest in)\b(?! back)",
    r"\bis (?!there )(?:\w+ ){1,3}an? (?:\w+ )?(?:buy|sell|hold|short|investment|bargain)\b"
    r"(?! back| side| off| squeeze| interest| report| seller| term| sale| position| list)",
    r"\b(?:good|bad|smart|wise|safe|great|solid) (?:investment|buy|bet|pick)\b(?! back| side)",
    r"\bworth (?:buying|selling|holding|owning|investing|shorting)\b",
    r"\b(?:stocks?|shares|etfs?|what|which one|which|companies|tickers?) (?:should (?:i|we) |to )"
    r"(?:buy|sell|short|invest in|own|hold|avoid)\b(?! back)",
    r"\b(?:is it|is now|now|good|right|best|bad|ideal|wrong|perfect)(?: \w+){0,3}? (?:time|moment"
    r"|entry point) to (?:buy|sell|short|get in|get out|exit|invest|enter|take profits?|trim|add|load up"
    r"|dump|bail)\b",
    r"\bwhen to (?:buy|sell|short|get in|get out|exit|take profits?)\b",
    r"\byour (?:\w+ ){0,2}(?:price target|target price|target|fair value|prediction|forecast|rating"
    r"|recommendations?|picks?|call on|valuation)\b",
    r"\b(?:you|findesk)(?: \w+){0,3}? (?:price target|target price|fair value|rating|forecast|prediction)\b",
    r"\b(?:price target|target price|fair value|rating|forecast)(?: \w+){0,3}? (?:you|findesk)\b",
    r"\b(?:give|set|suggest|estimate|calculate|compute|tell|derive)(?: me| us)? (?:an? |the |your )?(?:\w+ )"
    r"{0,2}(?:price target|target price|fair value|price prediction|price forecast|intrinsic value)\b",
    r"\bhow (?:much|many)(?: \w+){0,3}? (?:should|shall|do|would|can|could|must) (?:i|we)(?: \w+){0,2}? "
    r"(?:put|allocate|invest|buy|spend|stick|own|hold|keep|dedicate|risk|sell|park)\b",
    rf"\b(?:percentage|percent|%|portion|share|fraction|part|weight|weighting|allocation|amount|how much) "
    rf"(?:of|in|for|to) (?:my|our) (?:\w+ )?{_POT}\b",
    rf"\b(?:allocate|allocating|put|putting|invest|investing|move|rebalance|diversify|split|park|structure"
    rf"|weight)(?: \w+){{0,3}}? (?:my|our) (?:\w+ )?{_POT}\b",
    r"\bhow should (?:i|we) (?:allocate|invest|split|weight|size|position)\b|\bposition siz(?:e|ing)\b",
    r"\b(?:investment|financial|trading) (?:advice|tips?|recommendations?)\b|\bstock (?:tips?|picks?)\b",
]
# Topics that are advice when asked of us, research when asked about what others said or did.
_WEAK = [
    r"\b(?:buy|sell|hold|short|long) (?:or|vs|versus) (?:sell|hold|buy|short|long|wait)\b|\bbuy sell\b",
    r"\b(?:recommend|suggest|advise)(?:ed|ing|s)?(?: me| us)?(?: \w+){0,2}? (?:buying|selling|shorting"
    r"|holding|stocks?|shares|etfs?|investments?|positions?|buy|sell|short|what to)\b",
    r"\b(?:price targets?|target prices?|fair value|price prediction|price forecast|price objective|pt)\b",
    r"\b(?:predict|forecast|project)(?: \w+){0,2} (?:stock |share )?prices?\b",
    r"\bwhere will (?:(?:the |its )(?:stock|shares|share price|price)|it|they|(?!(?:the|a|an|its|this|that"
    r"|our|their|your|we|i|you)\b)\w+(?: stock| shares| share price| price)?) (?:be|trade|go|end up|close"
    r"|head|land|stand)\b",
    r"\bhow (?:high|low|far) (?:will|can|could|would|might) (?:\w+ ){1,3}?(?:go|fall|rise|drop|climb|run)\b",
    r"\bwill (?!(?:rates?|inflation|revenue|sales|margins?|earnings|eps|the fed|fed|yields?|costs?|oil|gdp"
    r"|jobs|demand|taxes|debt|the company)\b)(?:\w+ ){1,2}?(?:go up|go down|rise|fall|drop|rally|crash"
    r"|recover|rebound|moon|tank|climb|sink|double|outperform|underperform|beat the market|hit \$?\d"
    r"|reach \$?\d)\b",
    r"\brate (?:\w+ ){1,2}(?:as )?(?:an? )?(?:buy|sell|hold|strong buy|outperform|underperform|overweight"
    r"|underweight)\b|\b(?:buy|sell|hold) rating\b",
]
_REPORTED = re.compile(
    r"\b(?:analysts?|reported|reports?|reporting|news|headlines?|articles?|press|said|says|announced"
    r"|consensus|street|brokers?|brokerages?|banks?|insiders?|institutions?|funds?|did|was|were|cut|cuts"
    r"|raised|lowered|lifted|trimmed|upgraded|downgraded|upgrades?|downgrades?|reiterated|according"
    r"|form 4|13f|filings?|filed|posters?|posts|stocktwits|reddit|sentiment)\b"
)
_STRONG_RE = re.compile("|".join(_STRONG))
_WEAK_RE = re.compile("|".join(_WEAK))


def _normalize(text: str) -> str:
    lowered = re.sub(r"[’‘`´']", "", text.lower())
    return " ".join(re.sub(r"[^a-z0-9%$]+", " ", lowered).split())


def _advice_request(text: str) -> str | None:
    """The phrase that makes ``text`` an advice request, or None."""
    norm = _normalize(text)
    m = _STRONG_RE.search(norm) or (None if _REPORTED.search(norm) else _WEAK_RE.search(norm))
    return m.group(0) if m else None


def check_request(text: str) -> Result[str]:
    """Ok(stripped text), or Err INVALID_INPUT (too long) / REFUSED (asks for investment advice)."""
    stripped = text.strip() if isinstance(text, str) else ""
    if len(stripped) > MAX_INPUT_CHARS:
        return err(
            ErrorCode.INVALID_INPUT,
            f"the request is {len(stripped):,} characters long; the cap is {MAX_INPUT_CHARS:,}. "
            "Shorten it and ask again.",
        )
    if (phrase := _advice_request(stripped)) is not None:
        return err(ErrorCode.REFUSED, REFUSAL, matched=phrase)
    return Ok(stripped)


# ---- output: our own prose, scanned sentence by sentence (original case kept) ----

_GRADE = (
    r"(?:buy|sell|hold|outperform|underperform|overweight|underweight|accumulate|neutral|equal[- ]weight)"
)
_END = r"(?![-\w])"  # "buy-side", "sell-off", "buyback" are not grades
# A per-share amount: "$250", not "$5 billion" (a buyback or savings target is not a price target).
_AMT = r"\$\s?\d[\d,]*(?:\.\d+)?(?!\d|[.,]\d|\s*(?:[MBKT]\b|mm|mn|bn|thousand|million|billion|trillion))"
_WE = r"\b(?:we|i|findesk)"
_I = re.IGNORECASE
_WE_RECOMMEND = re.compile(
    _WE + r"(?:'d| would| strongly| therefore| still| now)* (?:recommend|suggest|advise|urge|advocate"
    r"|favou?r)s?(?: that)?(?: (?:you|investors|clients|readers|advisors|holders))?(?: to)? (?:buy|sell"
    r"|short|hold|accumulat|add|trim|reduc|exit|avoid|invest|tak|initiat|open|go|get|stay|keep|own|rotat"
    r"|lighten|load|position|overweight|underweight)\w*",
    _I,
)
# "add", "trim", "rotate" need a position: "you need to add that 300 in" (a transcript) is arithmetic.
_YOU_SHOULD = re.compile(
    r"\b(?:you|investors|clients|readers|holders|shareholders|advisors|traders)(?: \w+)? (?:should|must"
    r"|ought to|may want to|might want to|would do well to|could consider)(?: \w+)? (?:(?:buy|sell|short"
    r"|hold|accumulate|exit|avoid|take profits|lock in|get out|load up|invest in|allocate|overweight"
    r"|underweight|stay long|stay short|go long|go short|consider (?:buying|selling|adding|trimming"
    r"|shorting))(?![-\w])|(?:add|trim|reduce|rotate)\s+(?:to|into|out of|(?:your|the|some|more)\s+"
    r"(?:position|exposure|shares|stake|holdings?))\b)|(?:\b(?:we would|you (?:may |might |could |should )?"
    r"|investors (?:may |might |could |should )?)|^\W*)consider(?:ing)? (?:buying|selling|shorting"
    r"|adding to|trimming|accumulating)\b",
    _I,
)
_IMPERATIVE = re.compile(  # at the start of a sentence, bullet or "Label:" line; tickers are upper case
    r"^[\s>*•#\-–—\d.)]*(?:\*\*)?(?:[A-Za-z][A-Za-z ]{0,24}:\s*(?:\*\*)?\s*)?(?P<p>(?i:(?:strong(?:ly)? )?"
    r"(?:buy|sell|short|hold|accumulate|avoid|trim|add to|overweight|underweight|stay long|go long"
    r"|take profits? (?:in|on)))(?:\s+(?:\$?[A-Z]{1,5}\b|(?i:the stock|the shares|shares\b|it\b|them\b"
    r"|now\b|the dip\b|dips\b|on (?:dips|weakness|strength)|into (?:strength|weakness)))|(?=[.!]*\s*$)))"
)
_RATED = re.compile(
    rf"\b(?:rate|rates|rated|rating|reiterate\w*|initiate\w*)\s+(?:\S+\s+){{0,2}}?(?:as\s+)?an?\s+"
    rf"(?:strong\s+)?{_GRADE}{_END}|\brating\s*(?::|=|of|is)\s*(?:an?\s+)?(?:strong\s+)?{_GRADE}{_END}"
    rf"|\b{_GRADE}\s+rating\b|\bstrong(?:ly)? (?:buy|sell){_END}",
    _I,
)
_WE_RATE = re.compile(
    rf"{_WE}\s+(?:\w+\s+)?(?:rate|reiterate|initiate|upgrade|downgrade|assign)\w*\b.{{0,40}}?\b{_GRADE}{_END}"
    r"|\b(?:we(?:'re| are| remain| stay)|i(?:'m| am)|stay|remain)\s+(?:\w+\s+)?(?:overweight|underweight)\b"
    r"|\b(?:we(?:'re| are| remain| stay)|i(?:'m| am)|stay|go)\s+(?:long|short)\s+(?:\$?[A-Z]{1,5}\b"
    r"|the\s+stock|shares)|\baccumulate\s+(?:on|into)\s+(?:dips|weakness|pullbacks)",
    _I,
)
_TARGET = re.compile(  # "Target" (the retailer) is not a target; "PT" only in capitals
    r"(?:\b(?i:price\s+target|target\s+price|price\s+objective|(?:12|twelve)[- ]month\s+target)|\bPT"
    r"|\btarget)\s*(?i:of|at|is|to|:|=|around|near|of\s+about)?\s*(?i:~|about|approximately"
    rf"|around|roughly)?\s*{_AMT}|{_AMT}\s+(?i:(?:(?:12|twelve)[- ]month\s+)?(?:price\s+)?target)\b"
    rf"|\b(?i:upside|downside)\s+(?i:to|toward)\s+{_AMT}"
)
_FAIR_VALUE = re.compile(  # per-share fair value, not "fair value of $1.2 billion" of notes
    r"\b(?:fair|intrinsic)\s+value\s*(?:estimate\s*)?(?:of|at|is|:|=|around|near)?\s*(?:~|about|approximately"
    rf"|around|roughly)?\s*{_AMT}",
    _I,
)
_WE_EXPECT = re.compile(
    _WE + r"\s+(?:\w+\s+){0,2}(?:expect|see|forecast|project|believe|think|estimate)\b[^.]{0,50}?\b(?:reach"
    r"|hit|trade\s+(?:at|to|near)|go\s+to|rise\s+to|fall\s+to|climb\s+to|drop\s+to|be\s+worth|worth)\s+"
    + _AMT,
    _I,
)
_ALLOCATION = re.compile(  # someone's portfolio: "10% of our lease portfolio" in a transcript is not advice
    r"\b\d+(?:\.\d+)?\s*%(?:\s*(?:-|–|to)\s*\d+(?:\.\d+)?\s*%)?\s+(?:\w+\s+){0,2}?(?:of|in|to)\s+(?:your"
    r"|their|an?\s+investor'?s?|an?|one'?s|my|client'?s?)\s+(?:\w+\s+)?(?:portfolios?|savings|net\s+worth"
    r"|investable\s+assets)\b|\b(?:allocate|put|invest|place|move|park)\s+(?:\w+\s+){0,2}?(?:your|their)\s+"
    r"(?:\w+\s+)?(?:portfolio|savings|money|capital|assets|cash|net\s+worth)\s+(?:in|into|to|toward)\b",
    _I,
)
# (kind, pattern, may be a report of what a third party said: skipped when the sentence attributes it)
_OUT: list[tuple[Kind, re.Pattern[str], bool]] = [
    ("recommendation", _WE_RECOMMEND, False),
    ("recommendation", _YOU_SHOULD, False),
    ("recommendation", _IMPERATIVE, False),
    ("recommendation", _RATED, True),
    ("recommendation", _WE_RATE, False),
    ("price_target", _TARGET, True),
    ("price_target", _FAIR_VALUE, True),
    ("price_target", _WE_EXPECT, False),
    ("allocation", _ALLOCATION, False),
]
_ATTRIBUTED = re.compile(
    r"\b(?:analysts?|according\s+to|reported|reportedly|reports|said|says|wrote|posted|posts?|posters?"
    r"|headlines?|consensus|brokerages?|cut|cuts|raised|raises|lowered|lifted|trimmed|boosted|upgraded"
    r"|downgraded|reiterated|maintained|initiated|news)\b|\b(?:its|their|his|her)\s+(?:\w+\s+)?(?:target"
    r"|rating)",
    _I,
)
_OURS = re.compile(r"\b(?:we|our|us|findesk|you|your)\b", _I)
_BULLET = re.compile(r"(?:[-*•>]+|\d{1,2}[.)])[ \t]+")
_BREAK = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')\]]))\s+|\s*\n\s*")


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence spans; a list bullet ("- ", "1. ") is not part of its sentence, so scrubbing keeps it."""
    ends = [(m.start(), m.end()) for m in _BREAK.finditer(text)] + [(len(text), len(text))]
    spans, start = [], 0
    for stop, after in ends:
        if bullet := _BULLET.match(text, start, stop):
            start = bullet.end()
        if stop > start:
            spans.append((start, stop))
        start = after
    return spans


def _clip(sentence: str) -> str:
    return sentence if len(sentence) <= _CLIP else sentence[: _CLIP - 1] + "…"


def _scan(text: str) -> list[tuple[int, tuple[int, int], AdviceFinding]]:
    """(position, span of its sentence, finding) for each advice phrase, in text order."""
    if not isinstance(text, str):
        return []
    out: list[tuple[int, tuple[int, int], AdviceFinding]] = []
    for start, end in _sentence_spans(text):
        sentence = text[start:end]
        reported = _ATTRIBUTED.search(sentence) is not None and _OURS.search(sentence) is None
        taken: list[tuple[int, int]] = []
        for kind, rx, attributable in _OUT:
            if attributable and reported:
                continue
            for m in rx.finditer(sentence):
                if any(m.start() < b and a < m.end() for a, b in taken):
                    continue
                taken.append((m.start(), m.end()))
                phrase = (m.groupdict().get("p") or m.group(0)).strip()
                found = AdviceFinding(kind=kind, text=phrase, sentence=_clip(sentence.strip()))
                out.append((start + m.start(), (start, end), found))
    out.sort(key=lambda item: item[0])
    return out


def find_advice(text: str) -> list[AdviceFinding]:
    """Recommendations, price targets and allocations stated in an output text (our own prose)."""
    return [found for _, _, found in _scan(text)]


def scrub_advice(text: str) -> tuple[str, list[AdviceFinding]]:
    """The text with each offending sentence replaced by ``SCRUB_MARKER``; the findings."""
    scanned = _scan(text)
    if not scanned:
        return (text if isinstance(text, str) else ""), []
    for a, b in sorted({span for _, span, _ in scanned}, reverse=True):
        text = text[:a] + SCRUB_MARKER + text[b:]
    return text, [found for _, _, found in scanned]
