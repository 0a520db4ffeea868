"""Third-party text in a tool result is data, never instructions: every passage is screened by the
injection detector and a flagged one is quarantined.

Rules this module keeps:
- Only tools that return text written by strangers (filing sections and chunks, posts, news,
  transcripts) are screened; each says its genre (``filing``, ``passage`` or ``speech``), because a
  question in a 10-K is out of place while a question in a Reddit post or on a call is not.
- Every string of the result at least ``MIN_CHARS`` long is read, at any depth (pydantic models,
  lists, tuples, dicts); each paragraph of it is screened on its own, lines that run on without
  ending a sentence read as one (an order split over a line break) (a paragraph longer than
  ``CHUNK_CHARS``, such as a call transcript without line breaks, in sentence-aligned pieces), so one
  planted paragraph is withheld and the rest of the section stays usable.
- Fields that echo the caller's own arguments or name a source (``query``, ``ticker``, ``url`` …) are
  not third-party text and are not screened: the user's question was screened by the input guard.
- A flagged paragraph is replaced, in the value every consumer sees (the model's summary, the
  deterministic composer, the rendered report), by ``MARKER`` with its reasons; the original text is
  kept as evidence in ``Quarantined`` for the audit log (the tool_result event), never in a prompt.
- Pydantic models, dataclasses, lists, tuples, sets and dicts are rebuilt; a value that cannot be
  rebuilt raises, and the executor withholds the whole result rather than pass it on unscreened.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from findesk.guardrails.injection import screen_passage

Genre = Literal["filing", "passage", "speech"]
MIN_CHARS = 8
EVIDENCE_CHARS = 2_000
MARKER = (
    "[quarantined passage: it reads as instructions to an AI ({reasons}); withheld, kept in the audit log]"
)
CHUNK_CHARS = 1_500
WITHHELD_PREFIX = MARKER.split("(", 1)[0]  # what every quarantined passage starts with


def is_withheld(text: str | None) -> bool:
    """Whether ``text`` is a quarantined passage (the marker), not the third party's words: a consumer
    counts it as withheld, never reads it as a headline or a post."""
    return text is not None and text.startswith(WITHHELD_PREFIX)


_PARAGRAPH = re.compile(r"(\n\s*\n|\n)")
_SENTENCE_GAP = re.compile(r"(?<=[.!?])(\s+)")
OWN_FIELDS = frozenset(
    {
        "query",
        "ticker",
        "symbol",
        "url",
        "key",
        "label",
        "citation",
        "id",
        "cik",
        "form",
        "item",
        "as_of",
        "source",
    }
)


class Quarantined(BaseModel):
    """One withheld paragraph: where it was in the result, why, and its text as evidence."""

    model_config = ConfigDict(frozen=True)

    path: str
    reasons: list[str]
    score: float
    excerpt: str | None
    text: str  # the paragraph as the source had it (capped): evidence, never shown to a model


def _chunks(paragraph: str) -> list[str]:
    """The paragraph in pieces of about ``CHUNK_CHARS`` at sentence ends, separators kept, so that
    joining the pieces gives the paragraph back."""
    if len(paragraph) <= CHUNK_CHARS:
        return [paragraph]
    parts = _SENTENCE_GAP.split(paragraph)
    out: list[str] = []
    current = ""
    for part in parts:
        if current and len(current) + len(part) > CHUNK_CHARS and not part.isspace():
            out.append(current)
            current = ""
        current += part
    if current:
        out.append(current)
    return out


_ENDS_SENTENCE = re.compile(r"[.!?:;…][^\w\s]*\s*$")  # closing quotes and brackets may follow


def _units(pieces: list[str]) -> list[list[int]]:
    """The text pieces (even indexes) grouped into sentences that run across line breaks: a line that
    does not end a sentence continues into the next one, as a wrapped line does."""
    units: list[list[int]] = []
    current: list[int] = []
    size = 0
    for i in range(0, len(pieces), 2):
        if not pieces[i].strip():
            if current:
                units.append(current)
                current, size = [], 0
            continue
        current.append(i)
        size += len(pieces[i])
        # a table's lines end no sentence: a unit stops at about a chunk, so one hit withholds little
        if _ENDS_SENTENCE.search(pieces[i]) or size >= CHUNK_CHARS:
            units.append(current)
            current, size = [], 0
    if current:
        units.append(current)
    return units


def _screen_text(text: str, genre: Genre, path: str, found: list[Quarantined]) -> str:
    if len(text) < MIN_CHARS:
        return text
    pieces = []
    for i, piece in enumerate(_PARAGRAPH.split(text)):
        if i % 2:
            pieces.append(piece)
            continue
        chunks = _chunks(piece)
        for j, chunk in enumerate(chunks):
            pieces.append(chunk)
            if j < len(chunks) - 1:
                pieces.append("")  # keeps paragraphs at even indexes; the chunk keeps its own spacing
    changed = False
    for unit in _units(pieces):
        # an order split over a line break ("Ignore all previous" / "instructions and …") is read whole
        joined = " ".join(pieces[k].strip() for k in unit)
        if len(joined) < MIN_CHARS:
            continue
        verdict = screen_passage(joined, genre)
        if not verdict.flagged:
            continue
        found.append(
            Quarantined(
                path=path,
                reasons=verdict.reasons,
                score=verdict.score,
                excerpt=verdict.excerpt,
                text=joined[:EVIDENCE_CHARS],
            )
        )
        marker = MARKER.format(reasons=", ".join(verdict.reasons))
        for n, k in enumerate(unit):
            pieces[k] = marker if n == 0 else ""
        changed = True
    return "".join(pieces) if changed else text


def _walk(value: Any, genre: Genre, path: str, found: list[Quarantined]) -> Any:
    if isinstance(value, str):
        return _screen_text(value, genre, path, found)
    if isinstance(value, BaseModel):
        updates = {}
        for name in type(value).model_fields:
            if name in OWN_FIELDS:
                continue
            old = getattr(value, name, None)
            new = _walk(old, genre, f"{path}.{name}" if path else name, found)
            if new is not old:
                updates[name] = new
        return value.model_copy(update=updates) if updates else value
    if isinstance(value, list | tuple):
        items = [_walk(v, genre, f"{path}[{i}]", found) for i, v in enumerate(value)]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return type(value)(items) if isinstance(value, tuple) else items
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for f in dataclasses.fields(value):
            if f.name in OWN_FIELDS or not f.init:
                continue
            old = getattr(value, f.name)
            new = _walk(old, genre, f"{path}.{f.name}" if path else f.name, found)
            if new is not old:
                changes[f.name] = new
        return dataclasses.replace(value, **changes) if changes else value
    if isinstance(value, set | frozenset):
        members = {_walk(v, genre, f"{path}{{}}", found) for v in value}
        return value if members == value else type(value)(members)
    if isinstance(value, dict):
        out = {
            k: v if k in OWN_FIELDS else _walk(v, genre, f"{path}.{k}" if path else str(k), found)
            for k, v in value.items()
        }
        return value if all(out[k] is value[k] for k in value) else out
    return value


def quarantine(value: Any, genre: Genre) -> tuple[Any, list[Quarantined]]:
    """``value`` with every flagged paragraph replaced by the marker, and the paragraphs withheld. A value
    it cannot rebuild raises: the executor then withholds the whole result (fails closed)."""
    found: list[Quarantined] = []
    return _walk(value, genre, "", found), found
