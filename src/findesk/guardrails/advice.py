"""No-advice policy: advice requests are refused on input; advice in our own prose is caught on output.

Rules this module keeps:
- Pure; never raises. Odd input (empty, whitespace, non-text) gives ``Ok("")``/no findings, not errors.
- findesk never gives investment advice: buy/sell/hold recommendations, price targets, allocations.
- Input requests are matched in English, Spanish, German, French, Italian, Portuguese, Chinese and
  Japanese, on text folded for look-alikes (``advice_patterns``). Asking what others reported ("what
  price target cut did the news report?") or what a word means is research, not advice; requests
  addressed to us or our client ("your price target", "should my client trim") are always refused.
- The refusal says what is out of scope and what the desk does instead, in English for every input
  language (one message to test, log and translate).
- Output checks are for our own prose. Patterns need an advice *form* (imperative, "we recommend",
  "rate … a buy", "$" target, "% of your portfolio"), never a bare word, so buy-side, buybacks,
  Best Buy, sell-offs and bullish posters are not flagged. Third-party rating/target news stays
  unless the sentence also speaks as "we"/"you".
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

from findesk.core.result import Err, ErrorCode, Ok, Result, err
from findesk.guardrails.advice_patterns import advice_phrase

MAX_INPUT_CHARS = 2_000
SCRUB_MARKER = "[removed: investment advice is out of scope]"
_CLIP = 240

Kind = Literal["recommendation", "price_target", "allocation"]

REFUSAL = (
    "findesk does not give investment advice: no buy/sell/hold recommendations, price targets or "
    "portfolio allocations, whatever the wording or language. It can prepare a cited briefing instead "
    "(filings, market data and social signal for a ticker, each with its source) and answer research "
    "questions from it, e.g. 'what are the main risks for AAPL', 'how did revenue grow', 'summarize the "
    "latest 8-K' or 'what did analysts say about the price target'."
)


class AdviceFinding(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: Kind
    text: str  # the offending phrase as found
    sentence: str  # the sentence containing it (clipped to 240)


def too_long(stripped: str, what: str = "request") -> Err | None:
    """``invalid_input`` when the text is over the input cap, saying by how much; else None."""
    if len(stripped) <= MAX_INPUT_CHARS:
        return None
    return err(
        ErrorCode.INVALID_INPUT,
        f"the {what} is {len(stripped):,} characters long; the cap is {MAX_INPUT_CHARS:,}. "
        "Shorten it and ask again.",
    )


def check_request(text: str) -> Result[str]:
    """Ok(stripped text), or Err INVALID_INPUT (too long) / REFUSED (asks for investment advice)."""
    stripped = text.strip() if isinstance(text, str) else ""
    if (long := too_long(stripped)) is not None:
        return long
    return advice_refusal(stripped) or Ok(stripped)


def advice_refusal(text: str) -> Err | None:
    """``refused`` with what the desk does instead when the text asks for advice; else None."""
    if (phrase := advice_phrase(text)) is not None:
        return err(ErrorCode.REFUSED, REFUSAL, matched=phrase)
    return None


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
