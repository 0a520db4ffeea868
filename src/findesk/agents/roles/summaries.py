"""A model's prose held to code's report: the one rule every analyst role with a code-built report uses.

Rules:
- ``summary_only``: of a model-written report only its ``summary`` is kept, clipped to ``SUMMARY_CHARS``
  and opening with ``label`` when one is required (social chatter is UNVERIFIED); every figure, signal,
  board, score, status, source and warning is code's (``basis``: the composer over the same tool
  results). An empty summary keeps code's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, Self, TypeVar

SUMMARY_CHARS = 1_200  # a model-written summary is clipped here


class Summarized(Protocol):
    summary: str

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self: ...


ReportT = TypeVar("ReportT", bound=Summarized)


def summary_only(out: ReportT, basis: ReportT, *, label: str | None = None) -> ReportT:
    """``basis`` with the model's summary (see the module rules)."""
    summary = out.summary.strip()[:SUMMARY_CHARS] or basis.summary
    if label is not None and not summary.startswith(label):
        summary = f"{label}: {summary}"
    return basis.model_copy(update={"summary": summary})
