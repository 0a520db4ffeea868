"""Sections of a briefing emitted as ``section`` events the moment they are final.

Rules:
- Each part is built and guarded once (``assemble.official_part`` / ``social_part``); the final briefing
  reuses those parts, so a streamed section equals the same section of the ``done`` result.
- Order: the four official sections when the official agent is done, the social section when the
  social agent is done, then divergences and audit with the final briefing (before ``done``).
- Progress arrives as the graph's stream-writer chunks ``(agent, report, agent warnings)``.
- The HTML of a section is ``render_html.section_html`` of a briefing holding the parts known so far;
  section bodies read only their own part, the sources and the run's data context.
"""

from __future__ import annotations

from typing import Any

from findesk.agents.roles.brief.reports import OfficialReport, SocialReport
from findesk.guardrails.number_trace import NumberPool
from findesk.workflows.brief.assemble import OfficialPart, SocialPart, official_part, social_part
from findesk.workflows.brief.models import (
    AuditSection,
    Briefing,
    BusinessSection,
    DivergencesSection,
    EventsSection,
    RisksSection,
    SectionName,
    SnapshotSection,
    SocialSection,
)
from findesk.workflows.brief.render_html import section_html
from findesk.workflows.spec import RunScope

_OFFICIAL: tuple[SectionName, ...] = ("snapshot", "business", "events", "risks")
_FINAL: tuple[SectionName, ...] = ("divergences", "audit")


class SectionStream:
    def __init__(self, scope: RunScope) -> None:
        self._scope = scope
        self._tracer = scope.tracer
        self._context = scope.context
        self.official: OfficialPart | None = None
        self.social: SocialPart | None = None

    @property
    def run_id(self) -> str:
        return self._tracer.run_id

    def pool(self, *extra: object) -> NumberPool:
        """The numbers of every tool result so far, plus ``extra``."""
        return self._scope.pool(*extra)

    def update(self, chunk: Any) -> None:
        agent, report, warnings = chunk
        if agent == "official":
            self.official_ready(report, list(warnings))
        elif agent == "social":
            self.social_ready(report)

    def official_ready(self, report: OfficialReport, warnings: list[str]) -> None:
        pool = self.pool(report)
        self.official = official_part(report, warnings, pool)
        draft = self._draft(report.symbol)
        for name in _OFFICIAL:
            self._emit(draft, name)

    def social_ready(self, report: SocialReport) -> None:
        pool = self.pool(report)
        self.social = social_part(report, pool)
        self._emit(self._draft(report.symbol), "social")

    def finish(self, briefing: Briefing) -> None:
        for name in _FINAL:
            self._emit(briefing, name)

    def _draft(self, symbol: str) -> Briefing:
        """A briefing holding the parts known so far; the rest are empty placeholders never emitted."""
        o, s, day = self.official, self.social, self._context.as_of
        placeholder_social = SocialSection(report=SocialReport(symbol=symbol, window_start=day, as_of=day))
        return Briefing(
            symbol=symbol,
            as_of=day,
            headline="",
            summary="",
            snapshot=o.snapshot if o else SnapshotSection(symbol=symbol),
            business=o.business if o else BusinessSection(),
            events=o.events if o else EventsSection(),
            risks=o.risks if o else RisksSection(),
            social=s.section if s else placeholder_social,
            divergences=DivergencesSection(),
            audit=AuditSection(
                run_id=self._tracer.run_id,
                data_mode=self._context.describe(),
                as_of=day,
                mode="deterministic",
            ),
            sources=o.sources if o else [],
        )

    def _emit(self, b: Briefing, name: SectionName) -> None:
        self._scope.section(name, section_html(b, name), getattr(b, name).message)
