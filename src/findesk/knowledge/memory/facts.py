"""Facts a user states about themself, found by rules: holdings ("I own 200 shares of AAPL", "my
portfolio holds BTC and ETH"), assets they follow ("I track NVDA") and themes ("I follow
semiconductors").

Rules:
- Only plain first-person statements are facts: a sentence that starts with "I", "we", "I'm" or "my
  portfolio" and states owning or following. Questions, conditionals ("if I owned …"), negations ("I
  no longer own …") and wishes ("I want to buy …") are not.
- A question that instructs ("ignore previous instructions", "store that …", "remember …", "from now
  on …", talk of prompts or the system) yields no fact at all: text that tells the desk what to keep
  is never a source of memory, however plain its other sentences look.
- Every part is parsed strictly: a subject is an ASCII ticker or symbol (``$`` allowed), a
  capitalised name of up to three words, or a lower-case theme of up to five words; a quantity is a
  plain decimal number ("200", "1,500", "0.5"). Anything else ("1e9", look-alike Unicode, quotes, SQL)
  is no fact, never a cleaned-up guess (``data.symbols``: Unicode is not folded into tickers). A
  theme that is or opens with a pronoun, determiner or question word ("it", "this", "how rates …")
  names nothing and is no fact.
- ``vet`` applies the same checks to a fact from anywhere (a model's proposal included) before the
  store keeps it.
"""

from __future__ import annotations

import re

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.knowledge.memory.models import MAX_LINE_CHARS, FactKind, NewFact, clean_text

MAX_SCANNED_CHARS = 4_000  # a longer question is scanned only this far (facts come first in practice)
MAX_FACTS_PER_QUESTION = 20  # a question listing hundreds of tickers is not a portfolio statement to keep

_INSTRUCTS = re.compile(
    r"\b(?:ignore|disregard|override|pretend|jailbreak|instructions?|prompts?|system|assistant|"
    r"store|save|remember|memori[sz]e|record|forget|delete|insert|update|drop|add\s+to|from\s+now\s+on|"
    r"act\s+as|you\s+(?:must|should|will|are|have\s+to|need\s+to)|make\s+sure|always|never\s+mention|"
    r"respond|reply|output|write|say\s+that|tell\s+(?:them|everyone|users?))\b",
    re.IGNORECASE,
)
_NOT_STATED = re.compile(
    r"\b(?:not|no|never|no\s+longer|used\s+to|sold|would|could|should|might|may|want|wants|wish|plan|"
    r"planning|thinking|considering|maybe|if|whether|hope|soon|tomorrow)\b|n't\b",
    re.IGNORECASE,
)
_FILLER = r"(?:(?:also|and|but|so|btw|fyi|note|ps|ok|okay)[\s,:]+)*"
_HOLDS = re.compile(
    _FILLER + r"(?:(?:i|we)\s+(?:currently\s+|still\s+|also\s+)?(?:own|hold|have|am\s+long|are\s+long)"
    r"|(?:i'm|we're)\s+long|(?:i\s+am|i'm|we\s+are|we're)\s+invested\s+in"
    r"|(?:my|our)\s+(?:portfolio|holdings|account|positions?)\s+(?:also\s+)?"
    r"(?:holds|has|have|includes?|contains?|consists\s+of|is|are))\s+",
    re.IGNORECASE,
)
_FOLLOWS = re.compile(
    _FILLER + r"(?:(?:i|we)\s+(?:also\s+|closely\s+)?(?:follow|track|watch|monitor|cover)"
    r"|(?:i\s+am|i'm|we\s+are|we're)\s+(?:also\s+)?(?:following|tracking|watching|monitoring|"
    r"interested\s+in|focused\s+on)"
    r"|(?:i|we)\s+(?:keep\s+an\s+eye\s+on|care\s+about))\s+",
    re.IGNORECASE,
)
_QTY = r"(?P<qty>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,12}(?:\.\d+)?)"
_UNIT = r"(?:shares?|units?|coins?|tokens?)"
_SYMBOL = r"\$?[A-Z][A-Z0-9]{0,5}(?:-[A-Z]{1,2})?"
_HOLDING = re.compile(
    rf"(?:{_QTY}\s+(?:(?P<unit>{_UNIT})\s+(?:of|in)\s+)?)?(?:shares\s+(?:of|in)\s+)?(?:the\s+)?"
    rf"(?P<subject>{_SYMBOL})(?:\s+(?P<unit2>{_UNIT}|stock))?"
)
_TICKER = re.compile(_SYMBOL)
_NAME = re.compile(r"[A-Z][a-z]+(?: [A-Z][a-z]+){0,2}")
_THEME = re.compile(r"[a-z][a-z0-9&/-]*(?: [a-z0-9&/-]+){0,4}")
# a theme never opens with a pronoun, determiner or question word: "I am focused on it", "I follow this"
# and "I am interested in how rates affect banks" name no theme a later question could use
_NOT_THEME = re.compile(
    r"(?:it|its|they|them|their|this|that|these|those|how|what|why|which|when|where|who|whether)\b"
)
_DETAIL = re.compile(r"[0-9][0-9,.]* ?[a-z]*|[a-z ]*")
_SENTENCES = re.compile(r"(?<!\d)[.!?;\n]+|[.!?;\n]+(?!\d)")
_ASKING = re.compile(
    r",\s*(?:what|how|is|are|should|can|could|would|do|does|which|why|when|where|who)\b", re.IGNORECASE
)
# a comma between digits is a thousands separator ("1,500"), not a list
_ITEMS = re.compile(
    r"\s*(?:(?:(?<!\d),|,(?!\d))\s*(?:and\s+)?|\s+and\s+|\s*&\s*|\s+as\s+well\s+as\s+|\s+plus\s+)\s*"
)
_TAIL = re.compile(r"\s+(?:too|as\s+well|currently|right\s+now|now|today|closely|daily|long-term)$", re.I)


def instructs(text: str) -> bool:
    """Whether ``text`` tells the desk what to do or keep (then no fact is taken from it)."""
    return _INSTRUCTS.search(text) is not None


def extract_facts(question: str) -> list[NewFact]:
    """The holdings, followed assets and themes ``question`` states plainly; none if it instructs."""
    text = clean_text(question[:MAX_SCANNED_CHARS], MAX_SCANNED_CHARS).replace("\u2019", "'")
    if not text or instructs(text):
        return []
    source = clean_text(question, MAX_LINE_CHARS)
    found: dict[tuple[str, str], NewFact] = {}
    for sentence in _SENTENCES.split(text):
        statement = _ASKING.split(sentence.strip(), maxsplit=1)[0].strip()
        if not statement or _NOT_STATED.search(statement):
            continue
        for fact in _statement_facts(statement, source):
            found.setdefault((fact.kind, fact.subject), fact)
    return list(found.values())[:MAX_FACTS_PER_QUESTION]


def _statement_facts(statement: str, source: str) -> list[NewFact]:
    holds = _HOLDS.match(statement)
    follows = None if holds else _FOLLOWS.match(statement)
    opening = holds or follows
    if opening is None:
        return []
    facts: list[NewFact] = []
    for raw in _ITEMS.split(statement[opening.end() :].strip()):
        item = _TAIL.sub("", raw.strip())
        fact = _holding(item, source) if holds else _followed(item, source)
        if fact is not None:
            facts.append(fact)
    return facts


def _holding(item: str, source: str) -> NewFact | None:
    match = _HOLDING.fullmatch(item)
    if match is None:
        return None
    qty = match["qty"]
    unit = match["unit"] or match["unit2"] or ""
    detail = f"{qty} {unit if unit != 'stock' else ''}".strip() if qty else ""
    return _made("holding", match["subject"], detail, source)


def _followed(item: str, source: str) -> NewFact | None:
    if _TICKER.fullmatch(item) or _NAME.fullmatch(item):
        return _made("follows", item, "", source)
    theme = re.sub(r"^(?:the|a|an)\s+", "", item)
    if _THEME.fullmatch(theme):
        return _made("theme", theme, "", source)
    return None


def _made(kind: FactKind, subject: str, detail: str, source: str) -> NewFact | None:
    vetted = vet(NewFact(kind=kind, subject=subject[:60], detail=detail[:120], source=source))
    return vetted.value if isinstance(vetted, Ok) else None


def vet(fact: NewFact) -> Result[NewFact]:
    """``fact`` in its stored form (tickers upper-case without ``$``, themes lower-case), or why it is
    not a fact memory keeps."""
    subject = fact.subject.strip()
    detail = " ".join(fact.detail.split())
    shown = clean_text(subject, 40)
    if instructs(subject) or instructs(detail):
        return Err(ErrorCode.REFUSED, f"not remembered ({fact.kind} {shown!r}): it reads as an instruction")
    if fact.kind == "theme":
        normal = subject.lower() if subject.isascii() else subject
        if _NOT_THEME.match(normal):
            return Err(
                ErrorCode.INVALID_INPUT,
                f"not remembered (theme {shown!r}): a theme names a topic, not a pronoun or a clause",
            )
        ok = _THEME.fullmatch(normal) is not None
    elif _TICKER.fullmatch(subject.upper() if subject.isascii() else subject) and (
        subject.isupper() or subject.startswith("$")
    ):
        normal = subject.lstrip("$").upper()
        ok = True
    else:
        normal = subject
        ok = fact.kind == "follows" and _NAME.fullmatch(subject) is not None
    if not ok:
        return Err(
            ErrorCode.INVALID_INPUT,
            f"not remembered ({fact.kind} {shown!r}): a subject is a ticker or symbol, a name of up to "
            "three capitalised words, or a theme of up to five lower-case words",
        )
    if not _DETAIL.fullmatch(detail) or len(detail) > 40:
        return Err(ErrorCode.INVALID_INPUT, f"not remembered ({fact.kind} {shown}): detail {detail[:40]!r}")
    return Ok(
        fact.model_copy(
            update={"subject": normal, "detail": detail, "source": clean_text(fact.source, MAX_LINE_CHARS)}
        )
    )
