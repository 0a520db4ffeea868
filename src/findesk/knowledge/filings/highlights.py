"""Citable highlights of filing sections: leading risk factors, a business summary, 8-K excerpts.

Rules (deterministic text rules, no model; pure functions that never raise: odd text gives [] / None):
- Paragraphs: the Item heading line and page furniture (page numbers, "Table of Contents", running
  headers, short lines repeated 3+ times) are dropped; hard-wrapped lines are joined (next line starts
  lower case or with a digit, or the line ends with a comma, hyphen or function word, or is a long
  non-title line without a final stop).
- Risk-factor heading: a paragraph of 1-2 sentences (<= 600 chars, final period) stating a risk (one
  sentence: risk words; two: the last names a harm with a modal, "… could harm our business."), no
  boilerplate, connective or back-reference ("For all of these reasons…", "While…", "X also…", "the
  foregoing"), followed by a longer body paragraph or a bullet; or a Title Case line (>= 3 words)
  followed by a body paragraph, which gets a final period. The paragraph opening a body and bullets
  (summary lists) are never headings. In hard-wrapped text (>= 40% of lines joined, MSFT's PDF-made
  Markdown), a heading glued to its body counts too: the first sentence (<= 200 chars) of a paragraph
  not after a bullet that names a harm with a modal or ends "… risks."; its next sentence is the summary.
- Category: the last group heading, a short line without a final period that is ALL CAPS or names
  risks ("Risks Related to…", "… Risks"); sentence-case lines without a period ("Competition in the
  technology sector") are sub-topics. "Risk Factors" / "Risk Factors Summary" are no category.
- Headings are clipped to 300 chars, summaries (first body sentence) to 240, at a word boundary with "…".
  Business summaries (sentences <= 400 chars) and 8-K excerpts are whole sentences, skipping heading
  lines, cross-references, opening quotations and boilerplate; an exhibit-only 8-K Item gives None.
"""

from __future__ import annotations

import re
from collections import Counter

from pydantic import BaseModel, ConfigDict

__all__ = ["RiskFactor", "business_summary", "event_excerpt", "risk_factors"]

_HEADING_MAX, _SUMMARY_MAX, _CANDIDATE_MAX, _GLUED_MAX, _BUSINESS_MAX = 300, 240, 600, 200, 400


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_ITEM_LINE = _rx(r"^(?:part\s+i{1,3}v?\b[\s.|]*)?item\s*\d{1,2}[a-c]?(?:\.\d{2})?\b")
_FURNITURE = _rx(
    r"^(?:\d{1,3}\.?|page \d+.*|table of contents\b.*|part i{1,3}v?\b.{0,30}|.*\| \d{4} form 10-k\b.*)$"
)
_BULLET = re.compile(r"^\s*(?:[•●◦▪○■·\-–—*]|\.(?=\s*[A-Z]))")
_TERMINAL = re.compile(r"[.!?:;][\"”’)]*$")
_FUNCTION_END = _rx(r"\b(?:and|or|the|of|to|in|a|an|for|with|by|on|our|its|their|that|which|as)$")
_SMALL_WORD = _rx(r"^(?:a|an|and|as|at|by|for|from|in|into|of|on|or|our|the|to|us|with)$")
_RISK_WORDS = _rx(
    r"\b(?:could|may|might|can|cannot|would|adverse(?:ly)?|harm\w*|risks?|fail\w*|subject(?:s)? (?:us )?to|"
    r"expos\w+|depend\w*|declin\w+|los[es]\w*|uncertain\w*|volatil\w*|disrupt\w*|impair\w*|affect\w*|impact\w*|"
    r"must|need to|no (?:guarantee|assurance)|fluctuat\w*|suffer\w*|limit\w*|threat\w*|difficult\w*)\b"
)
_MODAL = _rx(r"\b(?:could|may|might|will|would|can|cannot)\b")
_HARM = _rx(
    r"\b(?:harm|hurt|adverse|affect|impact|damag|los[es]|declin|diminish|reduc|cost|liabilit|volatil|disrupt|"
    r"penalt|fail|problem|uncertaint|(?:may|might|could) not\b)"
)
_BOILERPLATE = _rx(
    r"read in conjunction|forward-looking|(?:described|discussed|set forth) below|the following (?:risk|"
    r"factor)|following factors|by reference|should (?:carefully )?consider|not the only|shall not be deemed|"
    r"as used herein|references in this report|fiscal year (?:is|ends)|securities exchange act of 1934"
)
# a sentence continuing a discussion (connective opening, back-reference, "X also …") is no heading
_CONTINUATION = _rx(
    r"^(?:for (?:all of )?(?:these|this|the foregoing) reasons?|as a result|accordingly|therefore|in "
    r"addition|additionally|moreover|furthermore|further,|consequently|similarly|likewise|finally|these|this|"
    r"such|if any|although|though|while|despite|unless|within|under some|over the past)\b|"
    r"\b(?:described|discussed|mentioned|noted) above\b|\bforegoing\b|\bprior risk factor|\bthe following\b|"
    r"\b(?:any|all) of these\b|\bthese (?:risks|lawsuits|matters|events|factors|measures)\b|\balso\b"
)
_GROUP_NAME = _rx(r"^risks?\b|^(?:\S+\s+){0,4}risks$")
_SECTION_TITLE = _rx(r"^(?:summary (?:of )?)?risk factors?(?: summary)?$")
_SENTENCE_GAP = re.compile(r"(?<=[.!?])[\"”’)]*\s+(?=[\"“‘(]?[A-Z0-9])")
_ABBREVIATION = _rx(r"^(?:inc|co|corp|ltd|nos?|mrs?|ms|dr|st|jr|sr|vs|approx|fig)\.$")
_INITIALISM = re.compile(r"^(?:[A-Za-z]\.)+[A-Za-z]?\.?$")
_STARTER = _rx(r"^(?:the|as|in|we|our|this|these|it|if|for|such|any|a|an|on|at)$")
_FOOTNOTE = re.compile(r"(?<=[a-z]\.)\d{1,2}(?=\s+[A-Z])")
_EXHIBIT_LINE = _rx(
    r"\||^\(?[a-z]\)\s*exhibits?\b|^exhibits?\b.{0,30}$|^\d{1,3}(?:\.\d{1,2})?\s|inline xbrl|^number\b"
)
_EVENT_BOILERPLATE = _rx(r"shall not be deemed|forward-looking|pursuant to the requirements")
_NOT_DESCRIPTIVE = _rx(_BOILERPLATE.pattern + r"|\b(?:see|refer to) (?:part|item|note)\b|[^.!?\"”’]$")


class RiskFactor(BaseModel):
    """One risk factor of an Item 1A: its heading sentence, first body sentence and group heading."""

    model_config = ConfigDict(frozen=True)

    heading: str
    summary: str
    category: str | None = None


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:-–— ") + "…"


def _title_case(line: str) -> bool:
    words = [w for w in re.findall(r"[A-Za-z][\w’'-]*", line) if not _SMALL_WORD.match(w)]
    return (
        len(line.split()) >= 3 and bool(words) and all(w[0].isupper() for w in words) and not line.isupper()
    )


def _joins(prev: str, nxt: str) -> bool:
    if _BULLET.match(nxt):
        return False
    if nxt[0].islower() and (len(prev) >= 60 or _FUNCTION_END.search(prev)):
        return True
    if _TERMINAL.search(prev):
        return False
    if nxt[0].isdigit() or prev.endswith((",", "-")) or _FUNCTION_END.search(prev):
        return True
    return len(prev) >= 100 and not _title_case(prev)


def _paragraphs(text: str) -> tuple[list[str], bool]:
    """The paragraphs of a section, and whether its lines were hard-wrapped."""
    lines = [" ".join(line.split()) for line in (text or "").splitlines()]
    lines = [line for line in lines if line]
    if lines and _ITEM_LINE.match(lines[0]):
        lines = lines[1:]
    repeats = Counter(line for line in lines if len(line) < 60 and not _TERMINAL.search(line))
    kept = [line for line in lines if not (len(line) < 60 and (_FURNITURE.match(line) or repeats[line] >= 3))]
    paras: list[str] = []
    for line in kept:
        if paras and _joins(paras[-1], line):
            paras[-1] += line if paras[-1].endswith("-") else f" {line}"
        else:
            paras.append(line)
    return paras, len(kept) >= 10 and len(paras) <= 0.6 * len(kept)


def _sentences(text: str) -> list[str]:
    text = _FOOTNOTE.sub("", text)
    out: list[str] = []
    start = 0
    for gap in _SENTENCE_GAP.finditer(text):
        piece = text[start : gap.end()].rstrip()  # with its closing quote
        last = piece.rstrip('.!?"”’)').rsplit(" ", 1)[-1]
        following = text[gap.end() :].split(" ", 1)[0].strip('"“‘(').lower()
        if piece.count("“") > piece.count("”") or piece.count('"') % 2:
            continue  # inside a quotation
        if _ABBREVIATION.match(last + "."):
            continue
        if _INITIALISM.match(last + ".") and not _STARTER.match(following):
            continue  # "U.S. and", but "the U.S. As a result" ends a sentence
        out.append(piece.strip())
        start = gap.end()
    out.append(text[start:].strip())
    return [s for s in out if re.search(r"[A-Za-z]{2}", s)]


def _is_group(line: str) -> bool:
    if _TERMINAL.search(line) or _BULLET.match(line) or len(line) > 120 or _SECTION_TITLE.match(line):
        return False
    return (line.isupper() and any(c.isalpha() for c in line)) or bool(_GROUP_NAME.search(line))


def _body_index(paras: list[str], i: int) -> int | None:
    """The first paragraph after ``i`` that is not a sub-topic line (``None`` at a group heading)."""
    for j in range(i + 1, len(paras)):
        if _is_group(paras[j]) or _SECTION_TITLE.match(paras[j]):
            return None
        if _TERMINAL.search(paras[j]) or len(paras[j]) > 120 or _BULLET.match(paras[j]):
            return j
    return None


def _first_sentence(text: str) -> str:
    sentences = _sentences(_BULLET.sub("", text).strip())
    return _clip(sentences[0], _SUMMARY_MAX) if sentences else ""


def _heading(paras: list[str], i: int, wrapped: bool) -> tuple[str, str, int] | None:
    """(heading, summary, last paragraph used) when paragraph ``i`` opens a risk factor."""
    para = paras[i]
    if _BULLET.match(para) or _BOILERPLATE.search(para):
        return None
    j = _body_index(paras, i)
    body = "" if j is None else paras[j]
    sentences = _sentences(para)
    if not sentences or _CONTINUATION.search(sentences[0]):
        return None
    if j is not None and not _TERMINAL.search(para):
        titled = _title_case(para) and not _GROUP_NAME.search(para) and not _SECTION_TITLE.match(para)
        if titled and len(para) <= _HEADING_MAX and len(body) > max(150, len(para)):
            return f"{para}.", _first_sentence(body), j
        return None
    if j is not None and para.endswith(".") and len(para) <= _CANDIDATE_MAX and len(sentences) <= 2:
        last = sentences[-1]
        states_risk = (
            _RISK_WORDS.search(para) if len(sentences) == 1 else _MODAL.search(last) and _HARM.search(last)
        )
        if states_risk and (_BULLET.match(body) or len(body) > len(para)):
            return para, _first_sentence(body), j
    lead = sentences[0]
    if not wrapped or len(sentences) < 2 or len(lead) > _GLUED_MAX or (i and _BULLET.match(paras[i - 1])):
        return None
    if lead.endswith(".") and (
        (_MODAL.search(lead) and _HARM.search(lead)) or re.search(r"\brisks\.$", lead)
    ):
        return lead, _clip(sentences[1], _SUMMARY_MAX), i
    return None


def risk_factors(text: str, limit: int = 5) -> list[RiskFactor]:
    """The leading risk factors of an Item 1A text, in document order."""
    try:
        paras, wrapped = _paragraphs(text)
        found: list[RiskFactor] = []
        category: str | None = None
        used = -1  # the paragraph opening a risk factor's body is never a heading itself
        for i, para in enumerate(paras):
            if len(found) >= limit:
                break
            hit = _heading(paras, i, wrapped) if i > used else None
            if hit is None and _is_group(para):
                category = para
            elif hit is not None:
                heading, summary, used = hit
                found.append(
                    RiskFactor(heading=_clip(heading, _HEADING_MAX), summary=summary, category=category)
                )
        return found
    except Exception:  # a highlight is optional; odd text must never break the briefing
        return []


def business_summary(text: str, max_sentences: int = 2) -> list[str]:
    """The first 1-2 descriptive sentences of an Item 1 (Business) text."""
    try:
        out: list[str] = []
        for para in _paragraphs(text)[0]:
            if not re.search(r"\.[\"”’)]*$", para) or _BULLET.match(para):
                continue  # heading lines, lists and colon lead-ins
            sentences = _sentences(para)
            if any(len(q.split()) >= 5 for q in re.findall(r"[\"“]([^\"”]+)[\"”]?", sentences[0])):
                continue  # an epigraph or a letter quoted is not a description
            out += [s for s in sentences if len(s) <= _BUSINESS_MAX and not _NOT_DESCRIPTIVE.search(s)]
            if len(out) >= max_sentences:
                break
        return out[: max(max_sentences, 0)]
    except Exception:  # never break the caller on odd text
        return []


def event_excerpt(text: str, max_chars: int = 300) -> str | None:
    """What one 8-K Item announced: its first substantive sentence(s), or None for boilerplate/exhibits."""
    try:
        sentences: list[str] = []
        for para in _paragraphs(text)[0]:
            if _EXHIBIT_LINE.search(para) or not _TERMINAL.search(para):
                continue  # exhibit tables and sub-heading lines
            # "attached hereto as Exhibit 99.1" may end a real sentence; pure legal boilerplate goes
            sentences += [
                s
                for s in _sentences(re.sub(r"^\(\w{1,3}\)\s*", "", para))
                if not _EVENT_BOILERPLATE.search(s) and ("hereto" in s.lower() or not _BOILERPLATE.search(s))
            ]
        if not sentences:
            return None
        picked = sentences[0]
        for s in sentences[1:]:
            if len(f"{picked} {s}") > max_chars:
                break
            picked = f"{picked} {s}"
        return _clip(picked, max(max_chars, 20))
    except Exception:  # never break the caller on odd text
        return None
