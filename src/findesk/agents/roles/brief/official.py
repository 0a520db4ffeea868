"""The official sub-agent: what the company's filings and market data say, every finding cited.

Rules:
- Primary sources only: quote, company identity, the filing list, 8-K items, 10-K Item 1 and 1A
  highlights, XBRL facts. Nothing from news or social media.
- Evidence (quote, filings, 8-K item titles and excerpts, facts, sources) is built by code from the
  playbook's outcomes (``build_report``); the agent's part is ``OfficialNotes``: cited findings.
- A finding whose citation is not one of the run's source keys is dropped with a warning, so every
  official claim in a briefing is cited to a filing the run actually read.
- A failed source becomes a warning naming it (``Live quote unavailable: …``), never a gap or a guess.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from findesk.agents.role import (
    Caps,
    DeterministicPolicy,
    Outcomes,
    PlannedCall,
    Role,
    outcome_error,
    outcome_value,
)
from findesk.agents.roles.brief.reports import (
    CompanyView,
    EventItemView,
    FactView,
    FilingView,
    Finding,
    OfficialNotes,
    OfficialReport,
    QuoteView,
    SourceRef,
)
from findesk.data.formats.sec import archives_url
from findesk.data.formats.sec_forms import EIGHT_K_ITEMS
from findesk.data.models import Company, Fact, Filing, FilingSection, MaterialEvent, Quote
from findesk.knowledge.filings.highlights import event_excerpt
from findesk.tools.highlights import BusinessOverview, RiskFactorList

EVENT_FORMS = ["10-K", "10-K/A", "8-K", "8-K/A"]
MAX_FILINGS = 5
MAX_EVENTS = 10  # 8-Ks whose items are checked against social claims
REVENUE_CONCEPTS = ("Revenues", "RevenueFromContractWithCustomerExcludingAssessedTax")
EPS_CONCEPT = "EarningsPerShareDiluted"
EXCERPT_CHARS = 300
FACTS = 8  # newest facts per concept: enough to hold the latest quarter and fiscal year


class BriefInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    symbol: str = Field(min_length=1, max_length=10, description="US ticker, e.g. AAPL")

    @field_validator("symbol")
    @classmethod
    def _upper(cls, value: str) -> str:
        return value.strip().upper()


SYSTEM_PROMPT = (
    "You are the primary-source analyst of an advisor briefing desk. You report only what the company's "
    "own SEC filings and market data say: the business (10-K Item 1), the leading risk factors (10-K Item "
    "1A) and what recent 8-Ks announced. Every finding cites exactly one source key, copied character for "
    "character from the tool results (the URL after 'Cite:' or in the filing list). Never use news or "
    "social media, never speculate, never give investment advice, recommendations, price targets or "
    "allocations. If a source failed, say so in warnings instead of filling the gap."
)


def _stage_one(inputs: BriefInput, _: Outcomes) -> list[PlannedCall]:
    s = inputs.symbol
    calls = [
        PlannedCall("company", "get_company", {"symbol": s}),
        PlannedCall("quote", "get_quote", {"symbol": s}),
        PlannedCall("filings", "list_filings", {"symbol": s, "forms": EVENT_FORMS, "limit": MAX_FILINGS}),
        PlannedCall("events", "get_material_events", {"symbol": s, "limit": MAX_EVENTS}),
        PlannedCall("business", "get_business_overview", {"symbol": s}),
        PlannedCall("risks", "get_risk_factors", {"symbol": s, "limit": 5}),
        PlannedCall("eps", "get_xbrl_facts", {"symbol": s, "concept": EPS_CONCEPT, "limit": FACTS}),
    ]
    calls += [
        PlannedCall(f"revenue:{c}", "get_xbrl_facts", {"symbol": s, "concept": c, "limit": FACTS})
        for c in REVENUE_CONCEPTS
    ]
    return calls


def _readable(f: Filing) -> bool:
    # Only documents that exist: stored in the snapshot, or any filing when a live vendor listed it.
    return f.accession_number is not None and (f.local_path is not None or f.source.vendor != "snapshot")


def _stage_two(inputs: BriefInput, outcomes: Outcomes) -> list[PlannedCall]:
    filings: list[Filing] = outcome_value(outcomes, "filings") or []
    return [
        PlannedCall(
            f"8k:{f.accession_number}",
            "get_8k_items",
            {"symbol": inputs.symbol, "accession_number": f.accession_number},
        )
        for f in filings
        if f.form.startswith("8-K") and _readable(f)
    ]


def filing_key(f: Filing) -> str:
    return f.url or f.local_path or f.source.ref


def _filing_label(f: Filing) -> str:
    items = f" (items {', '.join(f.items)})" if f.items else ""
    return f"{f.ticker} {f.form} filed {f.filing_date.isoformat()}{items}"


def compose(inputs: BriefInput, outcomes: Outcomes) -> OfficialNotes:
    """Deterministic notes: the filings' own sentences, each cited to the section it comes from."""
    findings: list[Finding] = []
    business: BusinessOverview | None = outcome_value(outcomes, "business")
    if business is not None:
        findings.append(
            Finding(kind="business", claim=" ".join(business.sentences), citation=business.section.key)
        )
    risks: RiskFactorList | None = outcome_value(outcomes, "risks")
    if risks is not None:
        findings += [
            Finding(kind="risk", title=r.heading, claim=r.summary or r.heading, citation=risks.section.key)
            for r in risks.risks
        ]
    for view in _filing_views(outcomes):
        for item in view.items:
            if item.excerpt:
                filed = view.filing_date.isoformat()
                findings.append(
                    Finding(
                        kind="event",
                        title=f"{view.form} filed {filed}: Item {item.item} {item.title}",
                        claim=item.excerpt,
                        citation=view.citation,
                    )
                )
    return OfficialNotes(findings=findings)


def _task(inputs: BriefInput) -> str:
    return (
        f"Write the primary-source part of an advisor briefing on {inputs.symbol}. The tool results above "
        "hold the quote, the filing list, 8-K items, the 10-K business overview and risk factors and XBRL "
        "facts. Submit findings: one 'business' finding (1-2 sentences), up to 5 'risk' findings (title = "
        "the risk's heading, claim = a one-line summary) and an 'event' finding for each 8-K whose text you "
        "read. "
        "Figures and dates are shown by the desk from the tool results; do not restate numbers you were not "
        "given. Call more tools only if something essential is missing."
    )


ROLE: Role[BriefInput, OfficialNotes] = Role(
    name="official",
    description="Primary-source analyst: quote, filings, 8-K events, 10-K business and risks, each cited.",
    system_prompt=SYSTEM_PROMPT,
    tools=(
        "get_company",
        "get_quote",
        "list_filings",
        "get_material_events",
        "get_8k_items",
        "get_business_overview",
        "get_risk_factors",
        "get_filing_section",
        "get_xbrl_facts",
    ),
    input_schema=BriefInput,
    output_schema=OfficialNotes,
    policy=DeterministicPolicy(stages=(_stage_one, _stage_two), compose=compose),
    task=_task,
    tier="mid",
    caps=Caps(max_iterations=3, max_tokens_per_call=2048, max_tool_calls_per_turn=4),
)


# ---- evidence: built by code from the playbook outcomes -------------------------------------------


def _company_view(c: Company | None) -> CompanyView | None:
    if c is None:
        return None
    return CompanyView(name=c.name, cik=c.cik, exchange=c.exchange, sector=c.sector, industry=c.industry)


def _quote_view(q: Quote | None) -> QuoteView | None:
    if q is None:
        return None
    return QuoteView(
        session_date=q.session_date,
        price=q.price,
        change=q.change,
        change_pct=q.change_pct,
        previous_close=q.previous_close,
        day_low=q.day_low,
        day_high=q.day_high,
        volume=q.volume,
        market_cap=q.market_cap,
        market_cap_date=q.market_cap_date,
        currency=q.currency,
        source=q.source.cite() + (f" ({q.source.note})" if q.source.note else ""),
        notes=list(q.notes),
    )


def _filing_views(outcomes: Outcomes) -> list[FilingView]:
    filings: list[Filing] = outcome_value(outcomes, "filings") or []
    views = []
    for f in filings:
        items: list[EventItemView] = []
        note: str | None = None
        if f.form.startswith("8-K"):
            sections: list[FilingSection] | None = outcome_value(outcomes, f"8k:{f.accession_number}")
            texts = {s.item: s.text for s in sections or []}
            items = [
                EventItemView(
                    item=code,
                    title=EIGHT_K_ITEMS.get(code, "unknown item"),
                    excerpt=event_excerpt(texts[code], EXCERPT_CHARS) if code in texts else None,
                )
                for code in f.items
            ]
            if sections is None:
                error = outcome_error(outcomes, f"8k:{f.accession_number}")
                note = (
                    "document not read: " + error
                    if error and "not requested" not in error
                    else "the document is not stored in this data source; item titles only"
                )
        views.append(
            FilingView(
                form=f.form,
                filing_date=f.filing_date,
                report_date=f.report_date,
                items=items,
                content_note=note,
                citation=filing_key(f),
            )
        )
    return views


def _pick_facts(
    facts: list[Fact], metric: Literal["revenue", "eps"], sources: dict[str, SourceRef]
) -> list[FactView]:
    """The newest quarterly (~3 months) and annual (~12 months) values, each cited to its filing."""
    views: list[FactView] = []
    for months in (3, 12):
        span = [
            f
            for f in facts
            if f.period_start is not None and abs((f.period_end - f.period_start).days / 30.44 - months) < 1
        ]
        if not span:
            continue
        best = max(span, key=lambda f: (f.period_end, f.filed))
        if best.accession_number:
            key = archives_url(best.cik, best.accession_number, f"{best.accession_number}-index.htm")
        else:
            key = best.source.cite()
        sources.setdefault(
            key,
            SourceRef(
                key=key,
                label=f"{best.ticker} {best.form or 'filing'} filed "
                f"{best.filed.isoformat()} (XBRL {best.concept})",
            ),
        )
        views.append(
            FactView(
                metric=metric,
                concept=best.concept,
                value=best.value,
                unit=best.unit,
                period_start=best.period_start,
                period_end=best.period_end,
                form=best.form,
                filed=best.filed,
                citation=key,
            )
        )
    return views


def _revenue_facts(outcomes: Outcomes) -> list[Fact]:
    # Companies tag revenue under different concepts; the one with the newest filing is current.
    found = [outcome_value(outcomes, f"revenue:{c}") or [] for c in REVENUE_CONCEPTS]
    found = [f for f in found if f]
    return max(found, key=lambda fs: max(f.filed for f in fs)) if found else []


def build_report(symbol: str, outcomes: Outcomes, notes: OfficialNotes) -> OfficialReport:
    warnings: list[str] = []
    sources: dict[str, SourceRef] = {}
    quote: Quote | None = outcome_value(outcomes, "quote")
    quote_error = None if quote is not None else outcome_error(outcomes, "quote")
    if quote_error:
        warnings.append(f"Live quote unavailable: {quote_error}")
    company: Company | None = outcome_value(outcomes, "company")
    if company is None:
        warnings.append(f"Company details unavailable: {outcome_error(outcomes, 'company')}")
    filings: list[Filing] = outcome_value(outcomes, "filings") or []
    if not filings:
        warnings.append(f"Filings unavailable: {outcome_error(outcomes, 'filings') or 'none found'}")
    for f in filings:
        sources[filing_key(f)] = SourceRef(key=filing_key(f), label=_filing_label(f))
    for key, what in (
        ("business", "Business overview (10-K Item 1)"),
        ("risks", "Risk factors (10-K Item 1A)"),
    ):
        value: BusinessOverview | RiskFactorList | None = outcome_value(outcomes, key)
        if value is None:
            warnings.append(f"{what} unavailable: {outcome_error(outcomes, key)}")
        else:
            sources[value.section.key] = SourceRef(key=value.section.key, label=value.section.label)
    events: list[MaterialEvent] = outcome_value(outcomes, "events") or []
    if "events" in outcomes and not outcomes["events"].ok:
        why = outcome_error(outcomes, "events")
        warnings.append(f"8-K items unavailable (social claims not checked against them): {why}")
    for e in events:
        key = e.url or e.source.ref
        sources.setdefault(
            key, SourceRef(key=key, label=f"{e.ticker} {e.form} filed {e.filing_date.isoformat()}")
        )
    revenue, eps = _revenue_facts(outcomes), outcome_value(outcomes, "eps") or []
    facts = _pick_facts(revenue, "revenue", sources) + _pick_facts(eps, "eps", sources)
    if not revenue and not eps:
        warnings.append(f"XBRL facts unavailable: {outcome_error(outcomes, 'eps')}")
    kept = [f for f in notes.findings if f.citation in sources]
    dropped = len(notes.findings) - len(kept)
    if dropped:
        warnings.append(f"{dropped} finding(s) dropped: their citation is not a source this run read")
    return OfficialReport(
        symbol=symbol,
        company=_company_view(company),
        quote=_quote_view(quote),
        quote_error=quote_error,
        filings=_filing_views(outcomes),
        facts=facts,
        findings=kept,
        sources=list(sources.values()),
        warnings=warnings + list(notes.warnings),
        material_events=events,
        xbrl={"revenue": revenue, "eps": eps},
    )


def describe(report: OfficialReport) -> dict[str, Any]:
    """The report as the coordinator reads it: without the raw 8-K items and XBRL series."""
    return report.model_dump(mode="json", exclude={"material_events", "xbrl", "sources"}, exclude_none=True)
