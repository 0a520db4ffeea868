"""What memory holds: session turns, long-term facts about a user, and the caps that bound both.

Rules:
- Memory sits below the agents layer, so a turn keeps the research desk's routed subjects as the JSON
  object of ``agents.roles.research.findings.Subjects`` (``model_dump(mode="json")``): a ``SubjectMap``.
  Memory merges such maps field by field (lists united, scalars replaced) without knowing the fields,
  so a new field of ``Subjects`` needs no change here; the graph validates the map back into
  ``Subjects``.
- Every text kept is cleaned (``clean_text``: one line, no control or bidi characters) and capped, so a
  huge or hostile question cannot grow the database or break a terminal when it is listed.
- A user and a session are opaque ids checked by ``check_user`` / ``check_session``; one user never sees
  another's rows, whatever session id both use. ``SESSION_PATTERN`` is the one session-id rule: the
  input models (``QueryRequest``, ``ResearchInput``) use it, so what they accept the store accepts.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from findesk.core.formatting import clip, one_line
from findesk.core.result import Err, ErrorCode, Ok, Result

SubjectMap = dict[str, Any]  # a ``Subjects`` as its JSON object
FactKind = Literal["holding", "follows", "theme"]
FACT_KINDS: tuple[FactKind, ...] = ("holding", "follows", "theme")

MAX_FACTS_PER_USER = 200
MAX_TURNS_PER_SESSION = 50
MAX_SESSIONS_PER_USER = 100  # oldest sessions are dropped beyond this
MAX_QUESTION_CHARS = 2_000  # as ``SpecialistInput.question``
MAX_LINE_CHARS = 500  # an answer's first line, a fact's source question
MAX_SUBJECT_CHARS = 60
MAX_DETAIL_CHARS = 120
MAX_ID_CHARS = 64

_DROPPED = frozenset({"Cc", "Cf", "Cs", "Co"})  # controls, format (zero-width, bidi), surrogates, private
# A session id is given by a caller (``ask --session``, a request body): every input model checks it with
# ``SESSION_PATTERN`` so an id the store would refuse is refused before a run starts. A user id is made
# by an interface ("local", "key:<id>"), hence its ":" and "@".
SESSION_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$"
_SESSION_ID = re.compile(SESSION_PATTERN)
_USER_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@-]{0,63}")


def clean_text(text: str, limit: int) -> str:
    """``text`` on one line without control, format (zero-width, bidi) or surrogate characters, cut
    to ``limit`` characters (only its first ``4 * limit`` characters are read)."""
    text = text[: limit * 4]  # bounded work for a huge text; only ``limit`` characters are kept anyway
    # whitespace controls (line breaks, tabs) separate words: they become spaces, the rest goes
    kept = "".join(
        " " if ch.isspace() else ch for ch in text if ch.isspace() or unicodedata.category(ch) not in _DROPPED
    )
    return clip(one_line(kept), limit)


def check_user(user: str) -> Result[str]:
    return _check_id(user, "user", _USER_ID, ". _ : @ -")


def check_session(session: str) -> Result[str]:
    return _check_id(session, "session", _SESSION_ID, ". _ -")


def _check_id(value: str, what: str, pattern: re.Pattern[str], signs: str) -> Result[str]:
    text = value.strip()
    if not pattern.fullmatch(text):
        shown = clip(one_line(text), 40)
        return Err(
            ErrorCode.INVALID_INPUT,
            f"{what} id {shown!r} is not valid: 1 to {MAX_ID_CHARS} ASCII letters, digits or {signs}, "
            "starting with a letter or digit",
        )
    return Ok(text)


class Turn(BaseModel):
    """One research run in a session, as the graph records it after answering."""

    model_config = ConfigDict(frozen=True)

    question: str = Field(max_length=MAX_QUESTION_CHARS)  # as asked
    resolved: str = Field(max_length=MAX_QUESTION_CHARS)  # as answered (a follow-up made whole)
    subjects: SubjectMap = Field(default_factory=dict)  # the subjects routed
    intents: list[str] = Field(default_factory=list, max_length=16)  # "equity", "macro", …
    answer_line: str = Field(default="", max_length=MAX_LINE_CHARS)  # the answer's first line
    run_id: str | None = Field(default=None, max_length=MAX_ID_CHARS)
    at: datetime | None = None  # set by the store when None

    def cleaned(self) -> Turn:
        """The turn with every text cleaned and capped (what the store keeps)."""
        return self.model_copy(
            update={
                "question": clean_text(self.question, MAX_QUESTION_CHARS),
                "resolved": clean_text(self.resolved, MAX_QUESTION_CHARS),
                "intents": [clean_text(i, 40) for i in self.intents if i.strip()],
                "answer_line": clean_text(self.answer_line, MAX_LINE_CHARS),
                "run_id": clean_text(self.run_id, MAX_ID_CHARS) if self.run_id else None,
            }
        )


class NewFact(BaseModel):
    """A fact about a user before it is stored: from the rules (``facts.extract_facts``) or, when a
    model is configured, proposed by the model and passed to ``MemoryStore.add_facts``."""

    model_config = ConfigDict(frozen=True)

    kind: FactKind
    subject: str = Field(min_length=1, max_length=MAX_SUBJECT_CHARS)  # "AAPL", "semiconductors"
    detail: str = Field(default="", max_length=MAX_DETAIL_CHARS)  # "200 shares"
    source: str = Field(default="", max_length=MAX_LINE_CHARS)  # the question it was stated in


class Fact(NewFact):
    """A stored fact: visible to its user (``findesk memory facts``) and deletable by id."""

    id: str
    created_at: datetime


class FactsAdded(BaseModel):
    """What ``add_facts`` did: the facts stored (new or updated) and why any others were not."""

    stored: list[Fact] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
