"""The equity specialist: prices, reported revenue, valuation ratios, peers and filing passages of up
to ``MAX_TICKERS`` US companies, every figure cited.

Rules:
- Bounded playbook: at most ``MAX_TICKERS`` tickers and ``MAX_QUARTERS`` quarters; every call of a
  stage runs concurrently. The ``full_equity_analysis`` template adds peers and a risk-factor search
  per ticker (a playbook variant, not a different role).
- Revenue per quarter comes from the company's XBRL facts (``analytics.key_figures.series``: its one
  selection rule). A quarter XBRL does not report as a quarter (a fiscal fourth quarter is reported as
  the year) is taken from the quarterly fundamentals file when that file has it as reported at the
  as-of date, cited to the file and labelled with the file's quarter-end label; nothing is derived.
- Valuation ratios come from ``get_valuation_ratios``; when it has no P/E (fewer than four reported
  quarters in the file) the XBRL trailing P/E (``key_figures.trailing_pe``) at the same price is used,
  its method stated. A ratio neither can give is "data unavailable" with the reason.
- Filing search needs the retrieval index; without it the report says so and answers from XBRL facts.
- A ticker no source knows is one warning naming it, not a list of tool errors.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from findesk.agents.role import (
    Outcomes,
    PlannedCall,
    outcome_error,
    outcome_value,
)
from findesk.agents.roles.research.findings import (
    Citation,
    Finding,
    SpecialistInput,
    SpecialistReport,
)
from findesk.agents.roles.research.market_findings import (
    CHART_TOOL,
    STATS_TOOL,
    chart_of,
    stats_findings,
    unavailable,
)
from findesk.agents.roles.research.specialist import specialist_role, specialist_task
from findesk.analytics.key_figures import CONCEPTS, period_kind, series, trailing_pe
from findesk.data.formats.sec import fact_link
from findesk.data.models import Fact
from findesk.data.models.fundamentals import IndexPeers, QuarterlyFundamentals
from findesk.data.symbols import upper_symbol
from findesk.tools.calculators import ReturnStats
from findesk.tools.equity_research import ValuationReport
from findesk.tools.search_filings import FilingPassages
from findesk.tools.summaries import clip, exact

AGENT = "equity"
FULL_TEMPLATE = "full_equity_analysis"
MAX_TICKERS = 4
DEFAULT_QUARTERS = 4
MAX_QUARTERS = 8
SEGMENT_THEMES = frozenset({"data-center revenue"})  # route themes naming a segment, not the company total
DEFAULT_WINDOW_DAYS = 90
MAX_WINDOW_DAYS = 1_300
SEARCH_K = 3
PASSAGES_SHOWN = 2
PASSAGE_CHARS = 240
SAME_QUARTER_DAYS = 10  # an XBRL quarter end and the file's month-end label this close are one quarter
_UNKNOWN = ("not_found", "invalid_input", "out_of_scope")


def tickers(inputs: SpecialistInput) -> list[str]:
    """The companies routed here: indexes and ETFs are the macro desk's."""
    market = set(inputs.subjects.market or [])
    named = [t for t in inputs.subjects.tickers if t.strip() and t not in market]
    return list(dict.fromkeys(upper_symbol(t) for t in named))[:MAX_TICKERS]


def quarters(inputs: SpecialistInput) -> int:
    return max(1, min(inputs.subjects.quarters or DEFAULT_QUARTERS, MAX_QUARTERS))


def window_days(inputs: SpecialistInput) -> int:
    return max(5, min(inputs.subjects.window_days or DEFAULT_WINDOW_DAYS, MAX_WINDOW_DAYS))


def full(inputs: SpecialistInput) -> bool:
    return inputs.template == FULL_TEMPLATE


def _stage_one(inputs: SpecialistInput, _: Outcomes) -> list[PlannedCall]:
    names = tickers(inputs)
    revenue = CONCEPTS["revenue"]
    calls: list[PlannedCall] = []
    for t in names:
        calls += [
            PlannedCall(f"stats:{t}", STATS_TOOL, {"asset": t, "lookback_days": window_days(inputs)}),
            PlannedCall(
                f"revenue:{t}",
                "get_xbrl_facts",
                {"symbol": t, "concept": revenue[0], "also": list(revenue[1:]), "period": "quarter"},
            ),
            PlannedCall(f"eps:{t}", "get_xbrl_facts", {"symbol": t, "concept": CONCEPTS["eps"][0]}),
            PlannedCall(
                f"fundamentals:{t}", "get_quarterly_fundamentals", {"symbol": t, "quarters": MAX_QUARTERS}
            ),
            PlannedCall(f"valuation:{t}", "get_valuation_ratios", {"symbol": t}),
        ]
        if full(inputs):
            calls += [
                PlannedCall(f"peers:{t}", "get_peers", {"symbol": t}),
                PlannedCall(
                    f"risks:{t}",
                    "search_filings",
                    {"query": "risk factors", "symbol": t, "item": "1A", "k": SEARCH_K},
                ),
            ]
    if names:
        calls.append(
            PlannedCall("chart", CHART_TOOL, {"assets": names, "lookback_days": window_days(inputs)})
        )
    search: dict[str, Any] = {"query": inputs.question[:500], "k": SEARCH_K}
    if len(names) == 1:
        search["symbol"] = names[0]
    calls.append(PlannedCall("search", "search_filings", search))
    return calls


# ---- revenue ---------------------------------------------------------------------------------------


def _xbrl_quarters(facts: list[Fact], as_of: date) -> list[Fact]:
    chosen = series(facts, "revenue", as_of).values()
    return sorted(
        (f for f in chosen if period_kind(f) == "quarter"), key=lambda f: f.period_end, reverse=True
    )


def revenue_findings(
    t: str, outcomes: Outcomes, n: int, as_of: date
) -> tuple[list[Finding], list[dict[str, Any]], list[str]]:
    """Findings for the latest ``n`` quarters' revenue, the table behind them, and warnings."""
    warnings: list[str] = []
    facts: list[Fact] = outcome_value(outcomes, f"revenue:{t}") or []
    xbrl = _xbrl_quarters(facts, as_of)
    if not xbrl:
        warnings.append(
            unavailable(outcomes, f"revenue:{t}", f"{t} XBRL revenue facts")
            if not facts
            else f"data unavailable: {t} XBRL facts report no quarterly revenue"
        )
    file: QuarterlyFundamentals | None = outcome_value(outcomes, f"fundamentals:{t}")
    rows: list[tuple[date, Finding, dict[str, Any]]] = []
    for f in xbrl:
        end = f.period_end.isoformat()
        rows.append(
            (
                f.period_end,
                Finding(
                    text=f"{t} revenue for the quarter ended {end}: {exact(f.value)} USD "
                    f"({f.form or 'filing'} filed {f.filed.isoformat()}, XBRL {f.concept}).",
                    citations=[Citation(agent=AGENT, tool="get_xbrl_facts", source=fact_link(f))],
                    quantity=f"{t} revenue quarter ended {end}",
                    value=f.value,
                    unit="USD",
                    observed=f.period_end,
                ),
                {
                    "quarter_end": end,
                    "revenue": f.value,
                    "filed": f.filed.isoformat(),
                    "source": fact_link(f),
                },
            )
        )
    if file is not None:
        for q in file.quarters:
            taken = any(abs((q.quarter_end - f.period_end).days) <= SAME_QUARTER_DAYS for f in xbrl)
            if taken or q.total_revenue is None:
                continue
            end = q.quarter_end.isoformat()
            rows.append(
                (
                    q.quarter_end,
                    Finding(
                        text=f"{t} revenue for the quarter labelled {end} in the quarterly fundamentals "
                        f"file: {exact(q.total_revenue)} USD (counted as reported from "
                        f"{q.visible_from.isoformat()}).",
                        citations=[
                            Citation(
                                agent=AGENT, tool="get_quarterly_fundamentals", source=file.source.cite()
                            )
                        ],
                        quantity=f"{t} revenue quarter ended {end}",
                        value=q.total_revenue,
                        unit="USD",
                        observed=q.quarter_end,
                    ),
                    {"quarter_end": end, "revenue": q.total_revenue, "source": file.source.cite()},
                )
            )
    elif not xbrl:
        warnings.append(unavailable(outcomes, f"fundamentals:{t}", f"{t} quarterly fundamentals"))
    rows.sort(key=lambda r: r[0], reverse=True)
    kept = rows[:n]
    if (
        kept
        and any(r[1].citations[0].tool == "get_quarterly_fundamentals" for r in kept)
        and file is not None
    ):
        warnings.append(
            f"{t}: some quarters come from the quarterly fundamentals file, where {file.visibility}"
        )
    if 0 < len(kept) < n:
        warnings.append(f"data unavailable: only {len(kept)} of the {n} quarters asked for {t} are reported")
    return [r[1] for r in kept], [r[2] for r in kept], warnings


# ---- valuation -------------------------------------------------------------------------------------


def _why(reason: str | None) -> str:
    return (reason or "no reason given").removeprefix("not available: ")


def valuation_findings(t: str, outcomes: Outcomes, as_of: date) -> tuple[list[Finding], list[str]]:
    report: ValuationReport | None = outcome_value(outcomes, f"valuation:{t}")
    if report is None:
        return [], [unavailable(outcomes, f"valuation:{t}", f"{t} valuation ratios")]
    v = report.valuation
    findings: list[Finding] = []
    warnings: list[str] = []
    day = v.price_date.isoformat()
    cite = [
        Citation(agent=AGENT, tool="get_valuation_ratios", source=report.price_source),
        Citation(agent=AGENT, tool="get_valuation_ratios", source=report.fundamentals_source),
    ]
    for r in v.ratios:
        if r.value is not None:
            findings.append(
                Finding(
                    text=f"{t} {r.name} {r.value:.2f} on {day} = {r.method}.",
                    citations=cite,
                    quantity=f"{t} {r.name} {day}",
                    value=r.value,
                    unit="ratio",
                    observed=v.price_date,
                )
            )
            continue
        if r.name == "P/E":
            eps: list[Fact] = outcome_value(outcomes, f"eps:{t}") or []
            pe = trailing_pe(eps, v.price, v.price_date, as_of)
            if pe.value is not None:
                sources = [Citation(agent=AGENT, tool="get_valuation_ratios", source=report.price_source)]
                sources += [
                    Citation(agent=AGENT, tool="get_xbrl_facts", source=i.citation)
                    for i in {i.citation: i for i in pe.inputs}.values()
                ]
                findings.append(
                    Finding(
                        text=f"{t} P/E {pe.value:.2f} on {day} = {pe.method} (XBRL facts; from the "
                        f"fundamentals file {_why(r.reason)}).",
                        citations=sources,
                        quantity=f"{t} P/E {day}",
                        value=pe.value,
                        unit="ratio",
                        observed=v.price_date,
                    )
                )
                continue
        warnings.append(f"data unavailable: {t} {r.name}: {_why(r.reason)}")
    return findings, warnings


# ---- peers and passages ----------------------------------------------------------------------------


def peers_finding(t: str, outcomes: Outcomes) -> tuple[Finding | None, str | None]:
    p: IndexPeers | None = outcome_value(outcomes, f"peers:{t}")
    if p is None:
        return None, unavailable(outcomes, f"peers:{t}", f"{t} peers")
    listed = ", ".join(x.symbol for x in p.peers) or "no other member"
    return (
        Finding(
            text=f"{t} ({p.name}) is in the GICS sub-industry {p.sub_industry}; its S&P 500 peers there "
            f"(constituents list of {p.list_date.isoformat()}): {listed}.",
            citations=[Citation(agent=AGENT, tool="get_peers", source=p.source.cite())],
        ),
        None,
    )


def passage_findings(outcomes: Outcomes, key: str, what: str) -> tuple[list[Finding], str | None]:
    found: FilingPassages | None = outcome_value(outcomes, key)
    if found is None:
        if key not in outcomes:
            return [], None
        return [], unavailable(outcomes, key, f"filing search ({what}); figures come from XBRL facts only")
    if not found.passages:
        return [], f"filing search ({what}) found no passage filed by the as-of date"
    return [
        Finding(
            text=f'{p.label}: "{clip(p.text, PASSAGE_CHARS)}"',
            citations=[Citation(agent=AGENT, tool="search_filings", source=p.key)],
        )
        for p in found.passages[:PASSAGES_SHOWN]
    ], None


# ---- compose ---------------------------------------------------------------------------------------


def _unknown(t: str, outcomes: Outcomes) -> bool:
    keys = [k for k in outcomes if k.endswith(f":{t}")]
    return bool(keys) and all(
        any(code in (outcome_error(outcomes, k) or "") for code in _UNKNOWN) for k in keys
    )


def compose(inputs: SpecialistInput, outcomes: Outcomes) -> SpecialistReport:
    findings: list[Finding] = []
    warnings: list[str] = []
    data: dict[str, Any] = {"tickers": [], "revenue": {}, "valuation": {}, "template": inputs.template}
    names = tickers(inputs)
    if not names:
        warnings.append("data unavailable: no ticker was found in the question for the equity specialist")
    for t in names:
        if _unknown(t, outcomes):
            warnings.append(
                f"data unavailable: {t} is not a ticker any source knows (no prices, filings or fundamentals "
                f"at {inputs.as_of.isoformat()}); check the symbol"
            )
            continue
        data["tickers"].append(t)
        stats: ReturnStats | None = outcome_value(outcomes, f"stats:{t}")
        if stats is not None:
            findings += stats_findings(AGENT, stats)
        else:
            warnings.append(unavailable(outcomes, f"stats:{t}", f"{t} price history"))
        revenue, table, notes = revenue_findings(t, outcomes, quarters(inputs), inputs.as_of)
        findings += revenue
        data["revenue"][t] = table
        warnings += notes
        ratios, notes = valuation_findings(t, outcomes, inputs.as_of)
        findings += ratios
        warnings += notes
        report: ValuationReport | None = outcome_value(outcomes, f"valuation:{t}")
        if report is not None:
            data["valuation"][t] = report.valuation.model_dump(mode="json")
        if full(inputs):
            peer, note = peers_finding(t, outcomes)
            findings += [peer] if peer else []
            warnings += [note] if note else []
            passages, note = passage_findings(outcomes, f"risks:{t}", f"{t} risk factors")
            findings += passages
            warnings += [note] if note else []
    for theme in (t for t in inputs.subjects.themes if t in SEGMENT_THEMES):
        # Total revenue is not the segment the reader asked for; saying so keeps it from being read as one.
        warnings.append(
            f"data unavailable: {theme} is a business-segment figure, which the XBRL company facts and the "
            "quarterly fundamentals file do not carry; the revenue shown is total company revenue"
        )
    passages, note = passage_findings(outcomes, "search", "the question")
    findings += passages
    warnings += [note] if note else []
    chart, note = chart_of(outcomes, "chart", frozenset(names) - set(data["tickers"]))
    warnings += [note] if note else []
    return SpecialistReport(
        agent="equity",
        findings=findings,
        data=data,
        charts=[chart] if chart else [],
        warnings=list(dict.fromkeys(warnings)),
    )


SYSTEM_PROMPT = (
    "You are the equity specialist of a research desk for US markets. Answer with findings about the "
    "companies asked: price performance, reported revenue per quarter, valuation ratios (P/E, EV/EBITDA, "
    "P/S) with the figures and dates used, peers and what filings say. Every number comes from a tool "
    "result and every finding cites the tool and the source the result named. Use only data known at the "
    "as-of date; say 'data unavailable' instead of estimating. Research framing only: no advice, targets "
    "or allocations."
)


def _task(inputs: SpecialistInput) -> str:
    s = inputs.subjects
    return specialist_task(
        inputs,
        f"Tickers: {', '.join(tickers(inputs))}\nQuarters: {quarters(inputs)}; "
        f"window: {window_days(inputs)} days; themes: {', '.join(s.themes) or '-'}",
    )


ROLE = specialist_role(
    name="research_equity",
    description="Equity specialist: prices, XBRL revenue, valuation ratios, peers, filing passages; cited.",
    system_prompt=SYSTEM_PROMPT,
    tools=(
        STATS_TOOL,
        CHART_TOOL,
        "get_xbrl_facts",
        "get_quarterly_fundamentals",
        "get_valuation_ratios",
        "get_peers",
        "search_filings",
        "get_price_history",
        "get_quote",
    ),
    stage=_stage_one,
    compose=compose,
    task=_task,
)
