"""Assemble the briefing from the typed reports, and apply the output guards.

Rules:
- Pure: reports, coordinator notes and audit records in; a ``Briefing`` out.
- Built in parts as the agents finish (``official_part``, ``social_part``, then ``assemble``), each
  part guarded exactly once, so a section streamed early is the section the final briefing holds.
- Sections keep their fixed order; an empty section carries the reason in ``message``.
- Output guards run in both modes over every sentence the desk writes (headline, summary, findings,
  theme summaries, divergence statements): investment advice is removed sentence by sentence and
  listed in the audit; numbers are traced against the run's tool results and reports. A coordinator
  summary with an untraceable number is replaced by the deterministic one, and the numbers are listed.
- Quoted posts and headlines are shown as quotations under the UNVERIFIED label, not as our prose.
"""

from __future__ import annotations

from dataclasses import dataclass

from findesk.agents.roles.brief.coordinator import CoordinatorNotes
from findesk.agents.roles.brief.official import LIVE_QUOTE_MISSING, PARTIAL_LIST
from findesk.agents.roles.brief.reports import Finding, OfficialReport, SocialReport, SourceRef, ThemeNote
from findesk.analytics.divergence import ClaimCheck
from findesk.guardrails.advice import AdviceFinding
from findesk.guardrails.number_trace import NumberPool, UntracedNumber
from findesk.guardrails.output_guard import OutputGuard
from findesk.workflows.brief.models import (
    AuditSection,
    Briefing,
    BusinessSection,
    DivergencesSection,
    EventsSection,
    RisksSection,
    SnapshotSection,
    SocialSection,
)
from findesk.workflows.spec import RunFacts


def _finding(guard: OutputGuard, f: Finding) -> Finding:
    title = guard.text(f.title) if f.title else f.title
    return f.model_copy(update={"claim": guard.text(f.claim), "title": title})


def _theme(guard: OutputGuard, t: ThemeNote) -> ThemeNote:
    return t.model_copy(update={"summary": guard.text(t.summary)})


def _first(warnings: list[str], prefix: str) -> str | None:
    return next((w for w in warnings if w.startswith(prefix)), None)


@dataclass(frozen=True)
class OfficialPart:
    """The four official sections, guarded once, as soon as the official agent is done."""

    snapshot: SnapshotSection
    business: BusinessSection
    events: EventsSection
    risks: RisksSection
    sources: list[SourceRef]
    warnings: list[str]
    advice: list[AdviceFinding]
    untraced: list[UntracedNumber]


@dataclass(frozen=True)
class SocialPart:
    """The social section (themes guarded), as soon as the social agent is done."""

    section: SocialSection
    warnings: list[str]
    advice: list[AdviceFinding]
    untraced: list[UntracedNumber]


def official_part(official: OfficialReport, agent_warnings: list[str], pool: NumberPool) -> OfficialPart:
    """Numbers in official findings must trace to what the run had read when the agent finished."""
    guard = OutputGuard(pool)
    warnings = [*official.warnings, *agent_warnings]
    findings = [_finding(guard, f) for f in official.findings]
    business = [f for f in findings if f.kind == "business"]
    risks = [f for f in findings if f.kind == "risk"]
    events = [f for f in findings if f.kind == "event"]
    missing = official.quote_missing or LIVE_QUOTE_MISSING
    quote_msg = f"{missing}: {official.quote_error}" if official.quote is None else None
    return OfficialPart(
        snapshot=SnapshotSection(
            symbol=official.symbol, company=official.company, quote=official.quote, message=quote_msg
        ),
        business=BusinessSection(
            findings=business,
            facts=official.facts,
            key_figures=official.key_figures,
            message=None
            if business
            else _first(warnings, "Business overview") or "No business overview found.",
        ),
        events=EventsSection(
            filings=official.filings,
            findings=events,
            message=_first(warnings, PARTIAL_LIST)
            if official.filings
            else _first(warnings, "Filings") or "No 10-K, 10-Q or 8-K filings found.",
        ),
        risks=RisksSection(
            risks=risks,
            message=None if risks else _first(warnings, "Risk factors") or "No risk factors found.",
        ),
        sources=official.sources,
        warnings=warnings,
        advice=guard.advice,
        untraced=guard.untraced,
    )


def social_part(social: SocialReport, pool: NumberPool) -> SocialPart:
    guard = OutputGuard(pool)
    guarded = social.model_copy(update={"themes": [_theme(guard, t) for t in social.themes]})
    section = SocialSection(report=guarded, message=None if social.posts else _social_message(social))
    return SocialPart(section, list(social.warnings), guard.advice, guard.untraced)


def assemble(
    official: OfficialPart,
    social: SocialPart,
    divergences: list[ClaimCheck],
    notes: CoordinatorNotes,
    fallback_notes: CoordinatorNotes,
    run: RunFacts,
    pool: NumberPool,
) -> Briefing:
    """The whole briefing from the guarded parts; only the coordinator's prose is guarded here."""
    guard = OutputGuard(pool)
    warnings = [*official.warnings, *social.warnings, *run.warnings]
    by_model = notes != fallback_notes
    (headline, summary), caught = guard.prose(
        [notes.headline, notes.summary],
        [fallback_notes.headline, fallback_notes.summary],
        replaceable=by_model,
    )
    if caught and by_model:
        listed = ", ".join(u.text for u in caught)
        warnings.append(
            f"number_trace: the summary had numbers not found in this run's data ({listed}); "
            "the deterministic summary is shown instead"
        )
    advice = [*official.advice, *social.advice, *guard.advice]
    if advice:
        warnings.append(f"advice_removed: {len(advice)} sentence(s) giving investment advice were removed")
    report = social.section.report
    return Briefing(
        symbol=official.snapshot.symbol,
        as_of=run.as_of,
        headline=headline,
        summary=summary,
        snapshot=official.snapshot,
        business=official.business,
        events=official.events,
        risks=official.risks,
        social=social.section,
        divergences=DivergencesSection(
            divergences=[d for d in divergences if d.verdict == "contradicted"],
            others=[d for d in divergences if d.verdict != "contradicted"],
            claims_checked=len(report.claims),
            message=_divergence_message(divergences),
        ),
        audit=AuditSection(
            run_id=run.run_id,
            data_mode=run.data_mode,
            as_of=run.as_of,
            mode="model" if run.mode == "model" else "deterministic",
            agents=run.agents,
            tool_calls=run.tool_calls,
            warnings=warnings,
            model_round_trips=run.round_trips,
            untraced_numbers=[*official.untraced, *social.untraced, *guard.untraced],
            advice_removed=advice,
        ),
        sources=official.sources,
    )


def _social_message(social: SocialReport) -> str:
    return (
        f"No posts or articles in the window {social.window_start.isoformat()}..{social.as_of.isoformat()}"
        + (f" ({'; '.join(social.warnings)})" if social.warnings else "")
    )


def _divergence_message(checks: list[ClaimCheck]) -> str | None:
    """Why the section is empty; with claims the renderers print their verdict counts instead."""
    return None if checks else "No claims (events or figures) were found in the window's posts and articles."
