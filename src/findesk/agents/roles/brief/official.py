"""The official sub-agent: what the company's filings and market data say, every finding cited.

Rules:
- Primary sources only: quote, company identity, the filing list, 8-K items, 10-K Item 1 and 1A
  highlights, XBRL facts; and the earnings calendar for dates only (the next earnings date as known
  at the as-of date, cited to the calendar's link). Nothing from news or social media.
- Evidence (quote, filings, 8-K item titles and excerpts, facts, sources) is built by code from the
  playbook's outcomes (``build_report``); the agent's part is ``OfficialNotes``: cited findings.
- A finding whose citation is not one of the run's source keys is dropped with a warning, so every
  official claim in a briefing is cited to a filing the run actually read.
- Sources: one per filing listed (10-K, 10-Q, 8-K; its sec.gov URL) and one per 10-K Item read
  (``<url>#item-1``, ``<url>#item-1a``), each labelled with its own form, date and Item, so [n] names
  the Item it quotes; no source is a local path. Given the as-of date, each carries its age.
- A failed source becomes a warning naming it (``Quote unavailable in the offline snapshot: …`` or
  ``Live quote unavailable: …``), never a gap or a guess.
"""

from __future__ import annotations

from datetime import date
from typing import Any

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
    RangeView,
    SourceRef,
)
from findesk.analytics.key_figures import CONCEPTS, KeyFigures, Metric, Note, consistent_facts, next_earnings
from findesk.analytics.key_figures import key_figures as figures_of
from findesk.core.dates import age_phrase
from findesk.core.result import Err
from findesk.data.formats.sec import filing_link, search_note
from findesk.data.formats.sec_forms import EIGHT_K_ITEMS
from findesk.data.models import (
    Company,
    EarningsCalendar,
    Fact,
    Filing,
    FilingSection,
    MaterialEvent,
    Quote,
)
from findesk.data.models.market import PriceRange
from findesk.data.router import DO_NOT_ESTIMATE
from findesk.data.symbols import upper_symbol
from findesk.knowledge.filings.highlights import event_excerpt
from findesk.tools.highlights import BusinessOverview, RiskFactorList

EVENT_FORMS = ["10-K", "10-K/A", "10-Q", "10-Q/A", "8-K", "8-K/A"]
MAX_FILINGS = 5
MAX_EVENTS = 10  # 8-Ks whose items are checked against social claims
EXCERPT_CHARS = 300
PARTIAL_LIST = "Filing list"  # warning prefix of a listing's source note (the snapshot's partial lists)


class BriefInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    symbol: str = Field(min_length=1, max_length=10, description="US ticker, e.g. AAPL")

    @field_validator("symbol")
    @classmethod
    def _upper(cls, value: str) -> str:
        return upper_symbol(value)  # folds ASCII only: 'ıbm' must not become IBM


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
        PlannedCall("calendar", "get_earnings_calendar", {"symbol": s}),
    ]
    # Every concept of the one selection rule (analytics.key_figures.CONCEPTS), all periods: the
    # rule picks across concepts and periods, so nothing is capped before it runs.
    calls += [
        PlannedCall(f"xbrl:{metric}", "get_xbrl_facts", {"symbol": s, "concept": cs[0], "also": list(cs[1:])})
        for metric, cs in CONCEPTS.items()
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
    """A filing's citation: its sec.gov URL, else EDGAR's search for its form and date (never a path)."""
    return filing_link(f)


def _filing_label(f: Filing) -> str:
    items = f" (items {', '.join(f.items)})" if f.items else ""
    return f"{f.ticker} {f.form} filed {f.filing_date.isoformat()}{items}{search_note(filing_key(f))}"


def _age(day: date, as_of: date | None) -> str | None:
    return age_phrase(day, as_of) if as_of is not None else None


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
        "get_earnings_calendar",
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
        basis=q.basis,
        as_traded_from=q.as_traded_from,
        range_52w=_range_view(q.range_52w),
        source=q.source.cite() + (f" ({q.source.note})" if q.source.note else ""),
        notes=list(q.notes),
    )


LIVE_QUOTE_MISSING = "Live quote unavailable"


def quote_missing_label(outcomes: Outcomes) -> str:
    """A failed quote is named by where it was asked: only the offline snapshot answered (the
    snapshot data mode's one quote source), or a live source did."""
    outcome = outcomes.get("quote")
    err = outcome.result if outcome is not None else None
    if isinstance(err, Err) and err.source == "snapshot":
        return "Quote unavailable in the offline snapshot"
    return LIVE_QUOTE_MISSING


def _range_view(r: PriceRange | None) -> RangeView | None:
    if r is None:
        return None
    fields = r.model_dump(include=set(RangeView.model_fields) - {"source"})
    return RangeView(**fields, source=r.source.cite() + (f" ({r.source.note})" if r.source.note else ""))


def _filing_views(outcomes: Outcomes, as_of: date | None = None) -> list[FilingView]:
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
                age=_age(f.filing_date, as_of),
            )
        )
    return views


def _fact_views(
    kf: KeyFigures, sources: dict[str, SourceRef], symbol: str, as_of: date | None
) -> list[FactView]:
    """The current figure of each comparison; every figure shown is registered as a cited source."""
    views: list[FactView] = []
    for c in kf.comparisons:
        for fig in (c.current, c.year_earlier):
            if fig is not None:
                sources.setdefault(
                    fig.citation,
                    SourceRef(
                        key=fig.citation,
                        label=f"{symbol} {fig.form or 'filing'} filed {fig.filed.isoformat()} "
                        f"(XBRL {fig.concept})",
                        form=fig.form,
                        filed=fig.filed,
                        age=_age(fig.filed, as_of),
                    ),
                )
        views.append(FactView(metric=c.metric, **c.current.model_dump(include=set(FactView.model_fields))))
    return views


def _xbrl(outcomes: Outcomes, metric: Metric) -> list[Fact]:
    return list(outcome_value(outcomes, f"xbrl:{metric}") or [])


def _xbrl_missing(outcomes: Outcomes, symbol: str) -> str:
    errors = [e for e in (outcome_error(outcomes, f"xbrl:{m}") for m in CONCEPTS) if e]
    shown = "no revenue, EPS, P/E or dividend-yield figures are shown"
    if not errors or any("no_data" in e for e in errors):
        return f"XBRL facts (SEC companyfacts) for {symbol} are not in the data: {shown}."
    return f"XBRL facts for {symbol} could not be read ({errors[0].splitlines()[0]}): {shown}."


def _earnings_release(outcomes: Outcomes, events: list[MaterialEvent], as_of: date | None) -> Note:
    """What the newest 8-K Item 2.02 (results) says, when its document was read."""
    release = next((e for e in events if e.item == "2.02"), None)
    if release is None:
        read = len({e.accession_number or e.filing_date for e in events})
        if not read:
            return Note(text="not available: no 8-K is on record in this data")
        return Note(text=f"not available: none of the {read} newest 8-Ks on record has Item 2.02 (results)")
    key = filing_link(release)
    filed = release.filing_date.isoformat()
    sections: list[FilingSection] = outcome_value(outcomes, f"8k:{release.accession_number}") or []
    text = next((s.text for s in sections if s.item == "2.02"), None)
    if text is None:
        return Note(
            text=f"The latest earnings 8-K (Item 2.02) was filed {filed}; its document is not available in "
            "this data, so what it reported is not shown.",
            citation=key,
        )
    return Note(text=f"8-K filed {filed}, Item 2.02: {event_excerpt(text, EXCERPT_CHARS)}", citation=key)


def _next_earnings(outcomes: Outcomes) -> Note:
    """The calendar's line (``analytics.key_figures.next_earnings``), or why there is none."""
    calendar: EarningsCalendar | None = outcome_value(outcomes, "calendar")
    if calendar is not None:
        return next_earnings(calendar)
    outcome = outcomes.get("calendar")
    if outcome is not None and isinstance(outcome.result, Err):
        why = outcome.result.reason.replace(DO_NOT_ESTIMATE, "").strip().rstrip(" .;")
    else:
        why = outcome_error(outcomes, "calendar") or "the earnings calendar was not read"
    return Note(text=f"not available: {why}")


def build_report(
    symbol: str, outcomes: Outcomes, notes: OfficialNotes, as_of: date | None = None
) -> OfficialReport:
    """The report; with ``as_of``, filings and sources carry their age ("10 months ago")."""
    warnings: list[str] = []
    sources: dict[str, SourceRef] = {}
    quote: Quote | None = outcome_value(outcomes, "quote")
    quote_error = None if quote is not None else outcome_error(outcomes, "quote")
    quote_missing = None if quote_error is None else quote_missing_label(outcomes)
    if quote_error:
        warnings.append(f"{quote_missing}: {quote_error}")
    company: Company | None = outcome_value(outcomes, "company")
    if company is None:
        warnings.append(f"Company details unavailable: {outcome_error(outcomes, 'company')}")
    filings: list[Filing] = outcome_value(outcomes, "filings") or []
    if not filings:
        warnings.append(f"Filings unavailable: {outcome_error(outcomes, 'filings') or 'none found'}")
    # a partial listing says so: "latest filing" is only the latest the data source lists
    for note in dict.fromkeys(f.source.note for f in filings if f.source.note):
        warnings.append(f"{PARTIAL_LIST}: {note}")
    for f in filings:
        sources[filing_key(f)] = SourceRef(
            key=filing_key(f),
            label=_filing_label(f),
            form=f.form,
            filed=f.filing_date,
            age=_age(f.filing_date, as_of),
        )
    for key, what in (
        ("business", "Business overview (10-K Item 1)"),
        ("risks", "Risk factors (10-K Item 1A)"),
    ):
        value: BusinessOverview | RiskFactorList | None = outcome_value(outcomes, key)
        if value is None:
            warnings.append(f"{what} unavailable: {outcome_error(outcomes, key)}")
        else:
            c = value.section
            sources[c.key] = SourceRef(
                key=c.key, label=c.label, form=c.form, filed=c.filing_date, age=_age(c.filing_date, as_of)
            )
    events: list[MaterialEvent] = outcome_value(outcomes, "events") or []
    if "events" in outcomes and not outcomes["events"].ok:
        why = outcome_error(outcomes, "events")
        warnings.append(f"8-K items unavailable (social claims not checked against them): {why}")
    for e in events:
        key = filing_link(e)
        sources.setdefault(
            key,
            SourceRef(
                key=key,
                label=f"{e.ticker} {e.form} filed {e.filing_date.isoformat()}{search_note(key)}",
                form=e.form,
                filed=e.filing_date,
                age=_age(e.filing_date, as_of),
            ),
        )
    xbrl = {m: _xbrl(outcomes, m) for m in CONCEPTS}
    day = as_of or date.max  # the tools already kept facts filed on or before the run's as-of date
    key_figures = figures_of(xbrl, quote.price if quote else None, quote.session_date if quote else None, day)
    if not any(xbrl.values()):
        missing = _xbrl_missing(outcomes, symbol)
        key_figures = key_figures.model_copy(
            update={"missing": missing, "trailing_pe": None, "dividend_yield": None}
        )
        warnings.append(missing)
    key_figures = key_figures.model_copy(
        update={
            "earnings_release": _earnings_release(outcomes, events, as_of),
            "next_earnings": _next_earnings(outcomes),
        }
    )
    facts = _fact_views(key_figures, sources, symbol, as_of)
    calendar: EarningsCalendar | None = outcome_value(outcomes, "calendar")
    if calendar is not None and key_figures.next_earnings and key_figures.next_earnings.citation:
        key = key_figures.next_earnings.citation
        recorded = calendar.recorded_on.isoformat()
        sources.setdefault(
            key, SourceRef(key=key, label=f"{symbol} earnings dates, earnings calendar recorded {recorded}")
        )
    kept = [f for f in notes.findings if f.citation in sources]
    dropped = len(notes.findings) - len(kept)
    if dropped:
        warnings.append(f"{dropped} finding(s) dropped: their citation is not a source this run read")
    return OfficialReport(
        symbol=symbol,
        company=_company_view(company),
        quote=_quote_view(quote),
        quote_error=quote_error,
        quote_missing=quote_missing,
        filings=_filing_views(outcomes, as_of),
        facts=facts,
        findings=kept,
        sources=list(sources.values()),
        warnings=warnings + list(notes.warnings),
        material_events=events,
        key_figures=key_figures,
        # every filing's value, one concept per period (the selection rule), for divergence checks
        xbrl={m: consistent_facts(xbrl[m], m, day) for m in ("revenue", "eps")},
    )


def describe(report: OfficialReport) -> dict[str, Any]:
    """The report as the coordinator reads it: without the raw 8-K items and XBRL series."""
    return report.model_dump(
        mode="json", exclude={"material_events", "xbrl", "sources", "key_figures"}, exclude_none=True
    )
