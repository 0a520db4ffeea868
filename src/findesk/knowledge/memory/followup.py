"""A follow-up resolved against the session: "and compare it with AMD", "what about its peers?", "same
for ETH" made into a whole question, with the subjects it carries over.

Rules:
- Pure: the earlier turns come in, a ``Resolution`` goes out; nothing is read or stored here.
- A question is a follow-up only when there is an earlier turn and it shows a cue: a leading "and",
  "also" or "&"; "same for …", "what about …", "how about …"; "compare it/them/that with …"; a
  pronoun ("it", "its", "they", "them", "their", a closing "that") in a question that names no
  subject of its own (as ``found`` says when given; without it, a guess from capitalised words).
  Anything else is answered as asked.
- It resolves against the latest turn (whose question and subjects are already resolved, so chains of
  follow-ups carry on). Adding cues ("and …", "compare it with …", pronouns) keep the earlier subjects
  and add the new ones; replacing cues ("same for ETH", "what about AMD") put the new subjects in place
  of the earlier ones of the same kind and keep the rest (themes, window, quarters, threshold).
- ``found``: the subjects the router finds in the follow-up itself (a ``Subjects`` JSON object), so the
  carried subjects are exact (earlier + new). Without it the subjects are what the earlier turn
  contributes (its named subjects are dropped by a replacing cue), for the caller to merge
  (``merge_subjects``) with what it routes from the resolved text.
- The resolved text names the earlier subject instead of the pronoun and keeps the earlier question,
  so a router that reads only text routes it the same way; it never exceeds ``MAX_QUESTION_CHARS``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from findesk.core.formatting import clip
from findesk.knowledge.memory.models import MAX_QUESTION_CHARS, SubjectMap, Turn, clean_text

Cue = Literal["and", "compare", "same_for", "what_about", "pronoun", "peers"]
_REPLACING: tuple[Cue, ...] = ("same_for", "what_about")
# subject kinds a label is made from, in the order a reader expects them
_LABEL_KINDS = ("tickers", "tokens", "addresses", "protocols", "series", "names")
_NOT_REPLACED = ("themes",)  # a theme is added to, never replaced by a new subject

_LEADING_AND = re.compile(r"^(?:and|also|plus|&)\b[\s,]*", re.IGNORECASE)
_SAME_FOR = re.compile(
    r"^(?:and\s+)?(?:(?:the\s+)?same\s+(?:question\s+|thing\s+)?for|ditto\s+for)\s+(.+)$", re.I
)
_WHAT_ABOUT = re.compile(r"^(?:and\s+)?(?:what|how)\s+about\s+(.+)$", re.IGNORECASE)
_COMPARE = re.compile(r"\bcompare\s+(?:it|them|that|this|those|these)\b", re.IGNORECASE)
_PEERS = re.compile(r"\b(?:its|their)\s+(?:peers|competitors|rivals|competition)\b", re.IGNORECASE)
_PRONOUN = re.compile(r"\b(?:it|its|it's|they|them|their|theirs)\b|\bthat\b(?=\s*[?.!,]|\s*$)", re.I)
_POSSESSIVE = re.compile(r"\b(?:its|their)\b", re.IGNORECASE)
_IT_IS = re.compile(r"\b(?:it's|they're)\b", re.IGNORECASE)
_OBJECT = re.compile(r"\b(?:it|they|them|theirs)\b|\bthat\b(?=\s*[?.!,]|\s*$)", re.IGNORECASE)
_MENTION = re.compile(r"\$?\b[A-Z][A-Z0-9]{1,5}(?:-[A-Z]{1,2})?\b|\b0x[0-9a-fA-F]{40}\b")
_ACRONYMS = frozenset(
    {
        "US",
        "USA",
        "USD",
        "ETF",
        "ETFS",
        "CEO",
        "CFO",
        "GDP",
        "CPI",
        "PCE",
        "PE",
        "EPS",
        "AI",
        "IPO",
        "SEC",
        "FED",
        "FOMC",
        "YOY",
        "QOQ",
        "TTM",
        "EV",
        "EBITDA",
        "OFAC",
        "TVL",
        "DEFI",
        "FRED",
        "API",
        "FY",
        "OK",
        "ROE",
        "ROI",
        "MA",
        "SMA",
    }
)


class Resolution(BaseModel):
    """A question as the desk will answer it."""

    question: str  # as asked (cleaned)
    resolved: str  # the whole question to answer
    followup: bool = False
    cue: Cue | None = None  # what made it a follow-up
    subjects: SubjectMap = Field(default_factory=dict)  # carried (follow-up) or as found (otherwise)
    previous: str | None = None  # the earlier (resolved) question it builds on
    previous_run: str | None = None  # that turn's run id


def resolve_followup(
    question: str, previous: Sequence[Turn], *, found: Mapping[str, Any] | None = None
) -> Resolution:
    """``question`` resolved against the latest of ``previous`` (oldest first); see the module rules."""
    asked = clean_text(question, MAX_QUESTION_CHARS)
    own = dict(found or {})
    plain = Resolution(question=asked, resolved=asked, subjects=own)
    if not previous or not asked:
        return plain
    last = previous[-1]
    cue, rest = _cue(asked, found)
    if cue is None:
        return plain
    earlier = last.resolved or last.question
    label = _label(last.subjects) or _mentions_label(earlier) or "the subject of the earlier question"
    if cue in _REPLACING:
        # without ``found`` the new subject's kind is unknown: the earlier named subjects are dropped
        # and the router finds the new one in the resolved text
        base = last.subjects if own else {k: v for k, v in last.subjects.items() if k not in _LABEL_KINDS}
        subjects = merge_subjects(base, own, replace=True)
        resolved = _substituted(earlier, last.subjects, own, rest)
    else:
        subjects = merge_subjects(last.subjects, own)
        if cue == "peers":
            subjects["themes"] = _union(subjects.get("themes"), ["peers"])
        follow = _with_subject(_LEADING_AND.sub("", asked), label)
        resolved = _joined(earlier, f"Follow-up: {follow}")
    return Resolution(
        question=asked,
        resolved=resolved,
        followup=True,
        cue=cue,
        subjects=subjects,
        previous=earlier,
        previous_run=last.run_id,
    )


def merge_subjects(base: Mapping[str, Any], extra: Mapping[str, Any], *, replace: bool = False) -> SubjectMap:
    """``base`` with ``extra``: lists united (order kept, no repeats), scalars taken from ``extra``
    when it has one. With ``replace``, a non-empty list in ``extra`` replaces ``base``'s (except
    themes, which are always united)."""
    merged: SubjectMap = dict(base)
    for key, value in extra.items():
        if isinstance(value, list):
            if not value:
                continue
            old = merged.get(key)
            merged[key] = list(value) if replace and key not in _NOT_REPLACED else _union(old, value)
        elif value is not None:
            merged[key] = value
    return merged


def _cue(asked: str, found: Mapping[str, Any] | None) -> tuple[Cue | None, str]:
    """The follow-up cue of ``asked`` and the part naming the new subject (for replacing cues)."""
    text = asked.strip().rstrip("?.! ")
    for pattern, cue in ((_SAME_FOR, "same_for"), (_WHAT_ABOUT, "what_about")):
        match = pattern.match(text)
        if match is not None:
            target = match[1].strip()
            # "what about its P/E?" asks more about the same subject: it adds, it does not replace
            if _PEERS.search(target) or _PRONOUN.fullmatch(target) or _POSSESSIVE.search(target):
                return "peers" if _PEERS.search(target) else "pronoun", ""
            return cue, target  # type: ignore[return-value]  # the loop's literals
    if _COMPARE.search(text):
        return "compare", ""
    if _LEADING_AND.match(text):
        return "and", ""
    if _PEERS.search(text):
        return "peers", ""
    if _PRONOUN.search(text) and not _names_own_subject(asked, found):
        return "pronoun", ""
    return None, ""


def _names_own_subject(asked: str, found: Mapping[str, Any] | None) -> bool:
    """Whether ``asked`` names a subject of its own. The router's ``found`` decides when given: capitalised
    words such as "YTD", "Q2", "FY24" or "NASDAQ" are not subjects, so guessing from them would make
    "How did it do in Q2?" stand alone; the guess from capitalised words is only for a caller without
    ``found``."""
    if found is not None:
        return any(isinstance(v, list) and v for k, v in found.items() if k not in _NOT_REPLACED)
    return bool(_mentions(asked))


def _mentions(text: str) -> list[str]:
    seen: list[str] = []
    for match in _MENTION.finditer(text):
        word = match.group().lstrip("$")
        if word not in _ACRONYMS and word not in seen:
            seen.append(word)
    return seen


def _label(subjects: Mapping[str, Any]) -> str:
    names = [str(v) for kind in _LABEL_KINDS for v in (subjects.get(kind) or []) if isinstance(v, str)]
    return " and ".join(names[:4])


def _mentions_label(text: str) -> str:
    return " and ".join(_mentions(text)[:4])


def _with_subject(text: str, label: str) -> str:
    """``text`` with its pronouns replaced by ``label`` (possessives as "label's")."""
    text = _IT_IS.sub(f"{label} is", text)
    text = _POSSESSIVE.sub(f"{label}'s", text)
    return _OBJECT.sub(label, text)


def _substituted(earlier: str, before: Mapping[str, Any], found: Mapping[str, Any], target: str) -> str:
    """The earlier question asked of ``target`` instead of the earlier subject of the same kind."""
    replaced_kinds = [k for k, v in found.items() if isinstance(v, list) and v and k not in _NOT_REPLACED]
    kinds = replaced_kinds or [k for k in _LABEL_KINDS if before.get(k)]
    kept = {str(v).upper() for k, vs in before.items() if k not in kinds and isinstance(vs, list) for v in vs}
    olds = [str(v) for k in kinds for v in (before.get(k) or [])]
    if not replaced_kinds and len(olds) > 1:
        # which of several earlier subjects the new one replaces is unknown without its kind
        return _joined(earlier, f"Follow-up: the same question for {target}")
    text = earlier
    for old in olds:
        pattern = re.compile(rf"(?<![\w$])\$?{re.escape(old)}(?!\w)", re.IGNORECASE)
        text, hits = pattern.subn(target, text, count=1)
        if hits:
            text = pattern.sub("", text)  # "NVDA vs NVDA" is never made: later repeats are dropped
            break
    if text == earlier:
        # the earlier subject is written as a symbol ("BTC" for bitcoin): replace the one symbol the
        # earlier question names that is not a subject being kept
        candidates = [m for m in _mentions(earlier) if m.upper() not in kept]
        if len(candidates) == 1:
            text = re.sub(rf"(?<![\w$])\$?{re.escape(candidates[0])}(?!\w)", target, earlier)
        else:
            return _joined(earlier, f"Follow-up: the same question for {target}")
    return clip(" ".join(text.split()), MAX_QUESTION_CHARS)


def _joined(earlier: str, follow: str) -> str:
    """``earlier`` then ``follow``, the earlier part cut so the whole fits ``MAX_QUESTION_CHARS``."""
    follow = clip(follow, MAX_QUESTION_CHARS // 2)
    room = MAX_QUESTION_CHARS - len(follow) - 1
    return f"{clip(earlier, room)} {follow}"


def _union(old: object, new: Sequence[Any]) -> list[Any]:
    merged = list(old) if isinstance(old, list) else []
    for item in new:
        if item not in merged:
            merged.append(item)
    return merged
