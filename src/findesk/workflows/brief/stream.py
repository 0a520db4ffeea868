"""Sections of a briefing emitted as ``section`` events the moment they are final.

Rules:
- Each part is built and guarded once (``assemble.official_part`` / ``social_part``); the final briefing
  reuses those parts, so a streamed section equals the same section of the ``done`` result.
- Order: the four official sections when the official agent is done, the social section when the
  social agent is done, then divergences and audit with the final briefing (before ``done``).
- The HTML of a section is ``render_html.section_html`` of a briefing holding the parts known so far;
  section bodies read only their own part, the sources and the run's data context.
"""

from __future__ import annotations

from collections.abc import Callable

from findesk.agents.roles.brief.reports import OfficialReport, SocialReport
from findesk.core.events.model import SectionReady
from findesk.core.events.trace import MemorySink, Tracer
from findesk.data.context import DataContext
from findesk.guardrails.number_trace import NumberCollector, NumberPool
from findesk.workflows.brief import audit
from findesk.workflows.brief.assemble import OfficialPart, SocialPart, official_part, social_part
from findesk.workflows.brief.models import (
    SECTION_NAMES,
    SECTION_TITLES,
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

_OFFICIAL: tuple[SectionName, ...] = ("snapshot", "business", "events", "risks")
_FINAL: tuple[SectionName, ...] = ("divergences", "audit")


class SectionStream:
    def __init__(
        self,
        tracer: Tracer,
        memory: MemorySink,
        context: DataContext,
        agent_warnings: Callable[[str], list[str]],
    ) -> None:
        self._tracer = tracer
        self._memory = memory
        self._context = context
        self._agent_warnings = agent_warnings
        self.official: OfficialPart | None = None
        self.social: SocialPart | None = None
        self.numbers = NumberCollector()  # every tool result is walked for numbers once per run

    @property
    def run_id(self) -> str:
        return self._tracer.run_id

    def pool(self, *extra: object) -> NumberPool:
        """The numbers of every tool result so far, plus ``extra``."""
        return audit.collect_tool_numbers(list(self._memory.events), self.numbers).pool(*extra)

    def official_ready(self, report: OfficialReport) -> None:
        pool = self.pool(report)
        self.official = official_part(report, self._agent_warnings("official"), pool)
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
        index = SECTION_NAMES.index(name)
        section = getattr(b, name)
        self._tracer.emit(
            SectionReady(
                name=name,
                title=SECTION_TITLES[index],
                index=index + 1,
                html=section_html(b, name),
                message=section.message,
            )
        )
