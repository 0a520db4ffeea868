"""The output guard: every sentence the desk writes is scrubbed of PII and advice and its numbers traced.

Rules:
- One guard per piece of output, over one number pool (the run's tool results and typed reports).
  ``text`` first removes personal data (``pii.redact``: emails, phones, card numbers, SSNs, account
  numbers, wallet keys, seed phrases, each replaced by a token naming it), then investment-advice
  sentences (``advice.scrub_advice``), and then lists every number of what is left that the pool does
  not explain (``number_trace.untraced_numbers``). PII goes first so no advice finding or untraced
  number quotes it. Findings accumulate on the guard so a workflow reports them once in its audit; the
  report counts PII by kind and never holds a removed value.
- ``prose`` guards model-written prose and shows the code-built fallback instead when the prose states a
  number the pool does not explain (every workflow's rule for a model's summary or answer); ``checked``
  does the same for a whole typed output against its code-built basis, and ``held`` says so in the
  report's warnings.
- ``model`` applies ``text`` to every string of a typed output (nested models and lists included),
  except fields that hold identifiers or links rather than prose (``IDENTIFIER_FIELDS``, and any value
  that is a URL); mappings are walked by value (their keys are identifiers): a single-agent run's
  output passes the same guard as a workflow's report.
- Pure: no I/O; never raises.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from findesk.guardrails.advice import AdviceFinding, scrub_advice
from findesk.guardrails.number_trace import NumberPool, UntracedNumber, untraced_numbers
from findesk.guardrails.pii import PiiKind, redact, removal_warnings

M = TypeVar("M", bound=BaseModel)

# Field names whose strings are keys, codes or links, not sentences the desk wrote.
IDENTIFIER_FIELDS = frozenset(
    {"symbol", "ticker", "url", "link", "source", "quote_source", "form", "cik", "accession", "id", "key"}
)


class GuardReport(BaseModel):
    """What the guard changed or flagged in one output."""

    advice_removed: list[AdviceFinding] = Field(default_factory=list)
    untraced_numbers: list[UntracedNumber] = Field(default_factory=list)
    pii_removed: list[PiiKind] = Field(default_factory=list)  # one kind per value removed, never the value

    @property
    def clean(self) -> bool:
        return not self.advice_removed and not self.untraced_numbers and not self.pii_removed

    def warnings(self) -> list[str]:
        """The audit lines a run shows for this report (empty when nothing was found)."""
        out = []
        if self.advice_removed:
            n = len(self.advice_removed)
            out.append(f"advice_removed: {n} sentence(s) giving investment advice were removed")
        if self.untraced_numbers:
            listed = ", ".join(u.text for u in self.untraced_numbers)
            out.append(f"number_trace: numbers not found in this run's data: {listed}")
        out += [f"pii_removed: {w}" for w in removal_warnings(self.pii_removed)]
        return out


class OutputGuard:
    def __init__(self, pool: NumberPool, *, advice: bool = True) -> None:
        self.pool = pool
        # False for a workflow whose purpose is a rating (the trading desk): PII and numbers are still
        # guarded, advice wording is not scrubbed, and the report carries its disclaimer instead
        self.scrub_advice = advice
        self.advice: list[AdviceFinding] = []
        self.untraced: list[UntracedNumber] = []
        self.pii: list[PiiKind] = []

    def text(self, value: str) -> str:
        redacted = redact(value)
        self.pii += [h.kind for h in redacted.found]
        clean, found = scrub_advice(redacted.text) if self.scrub_advice else (redacted.text, [])
        self.advice += found
        self.untraced += untraced_numbers(clean, self.pool)
        return clean

    def prose(
        self, texts: Sequence[str], fallback: Sequence[str], *, replaceable: bool
    ) -> tuple[list[str], list[UntracedNumber]]:
        """``texts`` guarded by ``text`` (PII and advice removed, numbers traced); when they are
        ``replaceable`` (a model wrote them) and state a number the pool does not explain, the code-built
        ``fallback`` (guarded) is shown instead. Returns what is shown and the numbers caught in ``texts``."""
        before = len(self.untraced)
        shown = [self.text(t) for t in texts]
        caught = self.untraced[before:]
        if replaceable and caught:
            shown = [self.text(f) for f in fallback]
        return shown, caught

    def model(self, value: M) -> M:
        """A copy of ``value`` with every prose string guarded."""
        return self._value(value, None)  # type: ignore[no-any-return]

    def checked(
        self, value: M, basis: M | None, *, part: Callable[[M], M] | None = None
    ) -> tuple[M, list[UntracedNumber]]:
        """``value`` guarded (by ``part``, default ``model``); when it was written by a model (a
        ``basis`` that differs from it: what code built from the same tool results) and states a number
        the pool does not explain, ``basis`` guarded is shown instead. Returns what is shown and the
        numbers caught in ``value`` when it was replaced (empty otherwise)."""
        guard = part or self.model
        before = len(self.untraced)
        shown = guard(value)
        caught = self.untraced[before:]
        if basis is None or basis is value or basis == value or not caught:
            return shown, []
        return guard(basis), list(caught)

    def held(
        self,
        key: str,
        value: M,
        basis: M | None,
        warnings: list[str],
        *,
        part: Callable[[M], M] | None = None,
    ) -> M:
        """``checked``, saying in ``warnings`` (under ``key``, the output's name in the report) which
        numbers a model stated that no tool gave when its output gave way to the code-built ``basis``."""
        shown, caught = self.checked(value, basis, part=part)
        if caught:
            numbers = ", ".join(u.text for u in caught)
            warnings.append(
                f"{key}: the model stated numbers no tool gave ({numbers}); the code-built version is shown"
            )
        return shown

    def report(self) -> GuardReport:
        return GuardReport(
            advice_removed=list(self.advice), untraced_numbers=list(self.untraced), pii_removed=list(self.pii)
        )

    def _value(self, value: Any, name: str | None) -> Any:
        if isinstance(value, str):
            if (name is not None and name in IDENTIFIER_FIELDS) or _is_link(value):
                return value
            return self.text(value)
        if isinstance(value, BaseModel):
            updates = {
                field: self._value(getattr(value, field), field)
                for field in type(value).model_fields
                if _has_text(getattr(value, field))
            }
            return value.model_copy(update=updates) if updates else value
        if isinstance(value, list):
            return [self._value(v, name) for v in value]
        if isinstance(value, dict):  # keys are identifiers (symbols, sectors); values are walked
            return {k: self._value(v, name) for k, v in value.items()}
        if isinstance(value, tuple):
            return tuple(self._value(v, name) for v in value)
        return value


def _is_link(value: str) -> bool:
    return value.startswith(("http://", "https://")) and " " not in value


def _has_text(value: Any) -> bool:
    if isinstance(value, str | BaseModel):
        return True
    if isinstance(value, list | tuple):
        return any(_has_text(v) for v in value)
    if isinstance(value, dict):
        return any(_has_text(v) for v in value.values())
    return False
