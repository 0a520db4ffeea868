"""The briefing as a typed report: seven sections in a fixed order, the same in both modes.

Rules:
- Every section is present. A section without data says why in ``message`` (and the warning is in the
  audit section): never invented content, never a silent gap.
- Official content cites ``sources`` by key; social content is UNVERIFIED and says so.
- Figures are copied from typed tool results by code, never written by a model.
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from findesk.agents.roles.brief.reports import (
    CompanyView,
    FactView,
    FilingView,
    Finding,
    QuoteView,
    SocialReport,
    SourceRef,
)
from findesk.analytics.divergence import ClaimCheck
from findesk.analytics.key_figures import KeyFigures
from findesk.guardrails.advice import AdviceFinding
from findesk.guardrails.number_trace import UntracedNumber
from findesk.workflows.records import AgentRecord, ToolCallRecord
from findesk.workflows.report_parts import data_label

DISCLAIMER = (
    "For information only: findesk summarizes filings, market data and public posts; it does not give "
    "investment advice, recommendations, price targets or allocations."
)
SECTION_TITLES = (
    "Snapshot",
    "Business snapshot",
    "Material events",
    "Top risks",
    "Social signal (UNVERIFIED)",
    "Divergences",
    "Sources and audit",
)


SectionName = Literal["snapshot", "business", "events", "risks", "social", "divergences", "audit"]
SECTION_NAMES: tuple[SectionName, ...] = (
    "snapshot",
    "business",
    "events",
    "risks",
    "social",
    "divergences",
    "audit",
)


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid")

    message: str | None = None  # why the section is empty or partial


class SnapshotSection(Section):
    symbol: str
    company: CompanyView | None = None
    quote: QuoteView | None = None


class BusinessSection(Section):
    findings: list[Finding] = Field(default_factory=list)
    facts: list[FactView] = Field(default_factory=list)  # latest reported revenue and EPS, cited
    # latest quarter and fiscal year with the year before, P/E, yield, earnings date and release
    key_figures: KeyFigures | None = None


class EventsSection(Section):
    filings: list[FilingView] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)


class RisksSection(Section):
    risks: list[Finding] = Field(default_factory=list)


class SocialSection(Section):
    report: SocialReport


class DivergencesSection(Section):
    divergences: list[ClaimCheck] = Field(default_factory=list)  # contradicted claims only
    others: list[ClaimCheck] = Field(default_factory=list)  # consistent, not checkable, not a claim
    claims_checked: int = 0


class AuditSection(Section):
    run_id: str
    data_mode: str  # "offline snapshot as of 2025-08-29" / "live"
    as_of: date
    mode: Literal["deterministic", "model"]
    agents: list[AgentRecord] = Field(default_factory=list)
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    model_round_trips: int = 0  # sequential model calls on the critical path
    untraced_numbers: list[UntracedNumber] = Field(default_factory=list)
    advice_removed: list[AdviceFinding] = Field(default_factory=list)


class AnswerPoint(BaseModel):
    model_config = ConfigDict(extra="forbid")

    section: SectionName
    text: str  # one line of the section's own evidence
    citations: list[str] = Field(default_factory=list)  # source keys (``Briefing.source_number``)


class ClientAnswer(BaseModel):
    """Where the briefing answers the client's question, or that it does not (``addressed`` false)."""

    model_config = ConfigDict(extra="forbid")

    question: str
    addressed: bool
    topics: list[str] = Field(default_factory=list)  # "risk factors", "reported figures", …
    points: list[AnswerPoint] = Field(default_factory=list)
    note: str  # one sentence: which sections to read, or why the briefing does not answer it


def section_title(name: SectionName) -> str:
    return SECTION_TITLES[SECTION_NAMES.index(name)]


class Briefing(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # first in every rendering (and the JSON's first key): "offline snapshot as of 2025-08-29 · AAPL
    # briefing"; derived from the audit when not given
    data_line: str = ""
    symbol: str
    as_of: date
    headline: str
    summary: str
    snapshot: SnapshotSection
    business: BusinessSection
    events: EventsSection
    risks: RisksSection
    social: SocialSection
    divergences: DivergencesSection
    audit: AuditSection
    sources: list[SourceRef] = Field(default_factory=list)
    question: ClientAnswer | None = None  # the client's question, answered from the sections above
    disclaimer: str = DISCLAIMER

    @model_validator(mode="after")
    def _state_the_data(self) -> Briefing:
        if not self.data_line:
            self.data_line = f"{data_label(self.audit.data_mode, self.audit.as_of)} · {self.symbol} briefing"
        return self

    def source_number(self, key: str) -> int | None:
        """1-based footnote number of a source key, as the renderers print it."""
        for n, ref in enumerate(self.sources, 1):
            if ref.key == key:
                return n
        return None
