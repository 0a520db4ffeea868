"""The input guard every workflow that takes text runs before any tool, model or store sees it.

Rules this module keeps:
- Pure; never raises. One order for every workflow: length cap, then PII redaction, then the
  injection detector, then the misconduct check (evading sanctions, laundering, insider trading,
  manipulation) and the advice check, then the topic check — so personal data is gone before anything
  is logged, stored, screened or refused (a refusal never quotes the raw text).
- The redacted text is what the workflow runs on and records (opening event, audit, memory, prompts);
  which kinds were removed is kept, never the values.
- Refusals are ``REFUSED`` with one message that says what findesk will do instead; an over-long
  text is ``INVALID_INPUT``. A refusal carries the detector's reasons (rule families, classifier
  score) for the audit, not the text.
- A message that only the classifier flags (no rule family) is refused as injection only when the
  classifier is all but certain (``CERTAIN``); below that it is an ordinary message (declined if the
  topic check finds it off topic, answered otherwise): the rules carry the recall on input.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field

from findesk.core.result import Err, ErrorCode, Ok, Result, err
from findesk.guardrails.advice import advice_refusal, too_long
from findesk.guardrails.conduct import REFUSAL as CONDUCT_REFUSAL
from findesk.guardrails.conduct import misconduct
from findesk.guardrails.injection import screen_input
from findesk.guardrails.pii import PiiKind, redact
from findesk.guardrails.scope import DECLINE, off_topic

CERTAIN = 0.99  # the classifier's score that refuses a message with no rule behind it
INJECTION_REFUSAL = (
    "This reads as an attempt to change findesk's instructions or to see its configuration (prompt "
    "injection or jailbreak), so it is refused. findesk only answers research questions about US "
    "markets, companies, filings, the economy, crypto and sanctions, from its data with sources; ask "
    "one of those and it will answer."
)


class GuardedText(BaseModel):
    """The text a workflow may use: stripped, capped, with personal data replaced by tokens."""

    model_config = ConfigDict(frozen=True)

    text: str
    redacted: list[PiiKind] = Field(default_factory=list)  # the kinds removed (never the values)


def guard_text(
    text: str,
    *,
    what: str = "question",
    known: Callable[[str], bool] | None = None,
    strict_topic: bool = False,
) -> Result[GuardedText]:
    """``text`` as the workflow may use it, or why it is refused (see the module's rules).

    ``known``: a predicate on folded text naming entities the workflow knows (companies, series), so a
    question naming one is in scope; ``strict_topic``: decline a question with no finance anchor at all
    (a workflow that cannot carry a subject over from a session)."""
    stripped = text.strip() if isinstance(text, str) else ""
    if (long := too_long(stripped, what)) is not None:
        return long
    cleaned = redact(stripped)
    kinds = cleaned.kinds
    verdict = screen_input(cleaned.text)
    only_classifier = verdict.reasons == ["classifier"]
    # the classifier was trained on payloads meant for passages: typed by a user, "Explain the theory of
    # relativity." is only off topic (declined below), and a wish about the reply ("In your answer, use
    # percentages.") scores high on its own words; alone it refuses only when it is all but certain
    ordinary = only_classifier and (verdict.score < CERTAIN or off_topic(cleaned.text, known=known))
    if verdict.flagged and not ordinary:
        return err(
            ErrorCode.REFUSED, INJECTION_REFUSAL, detector=", ".join(verdict.reasons), score=verdict.score
        )
    if (words := misconduct(cleaned.text)) is not None:
        return err(ErrorCode.REFUSED, CONDUCT_REFUSAL, matched=words)
    # the cap was checked on the text as typed: redaction tokens may lengthen it, never past a refusal
    if (advice := advice_refusal(cleaned.text)) is not None:
        return advice
    if off_topic(cleaned.text, known=known, strict=strict_topic):
        return Err(ErrorCode.REFUSED, DECLINE)
    return Ok(GuardedText(text=cleaned.text, redacted=kinds))
