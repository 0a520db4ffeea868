"""The movers analyzer roles' typed reports.

Rules:
- Every report says its ``status`` (ok / partial / no_data) and carries the tool values its figures come
  from, so each figure traces to a tool result; unknown is ``None`` with a warning, never 0.
- ``ProgramDraft`` is the only thing a model writes in this workflow: Python source, never a figure.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from findesk.analytics.movers.models import GainersBoard, Origin
from findesk.data.models import NewsItem
from findesk.tools.movers import MAX_PROGRAM_CHARS, AnalyzerRun, MoverHistory

Status = Literal["ok", "partial", "no_data"]


class _Report(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: Status
    summary: str
    warnings: list[str] = Field(default_factory=list)


class GainersReport(_Report):
    board: GainersBoard | None = None


class HistoryReport(_Report):
    history: MoverHistory | None = None


class NewsReport(_Report):
    items: list[NewsItem] = Field(default_factory=list)
    withheld: int = 0  # headlines quarantined as likely prompt injection


class ProgramDraft(BaseModel):
    model_config = ConfigDict(extra="forbid")

    program: str = Field(min_length=1, max_length=MAX_PROGRAM_CHARS, description="Python 3 source")
    explanation: str = Field("", max_length=1_000, description="what the program computes, in a sentence")
    origin: Origin = "model"


class AnalysisReport(_Report):
    run: AnalyzerRun | None = None
