"""10-K highlights as tools: the leading risk factors (Item 1A) and the business overview (Item 1).

Rules:
- The text comes from the ``SectionService`` (the newest 10-K filed on or before ``ctx.as_of``); the
  extraction is ``knowledge.filings.highlights`` (pure), so a model and the deterministic composer read
  the same sentences.
- Each result carries a ``SectionCite`` whose ``key`` is what a finding cites: one key per (document,
  Item), the filing's sec.gov URL with an ``#item-1a`` fragment, so Item 1 and Item 1A of one 10-K are
  two sources each labelled with its own Item. A filing without an Archives URL is cited by EDGAR's
  filing search for its CIK, form and date, and the label says so; never by a local path. The full
  section text is not repeated in the result.
- A section with nothing readable is ``no_data`` saying why, never an empty success.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats.sec import filing_link, search_note
from findesk.data.models import FilingSection
from findesk.knowledge.filings.highlights import RiskFactor, business_summary, risk_factors
from findesk.tools.args import QUOTE_RULE, SymbolArgs, Ticker, ToolArgs
from findesk.tools.base import Tool, ToolContext
from findesk.tools.summaries import fit_lines


class SectionCite(BaseModel):
    """Where a highlight comes from: enough to cite it without the section's full text."""

    model_config = ConfigDict(frozen=True)

    key: str  # "<sec.gov URL>#item-1a": what findings cite, one per (document, Item)
    label: str  # "AAPL 10-K filed 2024-11-01, Item 1A (Risk Factors)"
    form: str
    filing_date: date
    item: str


def section_cite(s: FilingSection) -> SectionCite:
    url = filing_link(s)
    return SectionCite(
        key=f"{url}#item-{s.item.lower()}",
        label=f"{s.ticker} {s.form} filed {s.filing_date.isoformat()}, Item {s.item} ({s.title})"
        + search_note(url),
        form=s.form,
        filing_date=s.filing_date,
        item=s.item,
    )


class RiskFactorList(BaseModel):
    model_config = ConfigDict(frozen=True)

    section: SectionCite
    risks: list[RiskFactor]


class BusinessOverview(BaseModel):
    model_config = ConfigDict(frozen=True)

    section: SectionCite
    sentences: list[str]


class HighlightArgs(ToolArgs):
    symbol: Ticker
    limit: Annotated[int, Field(ge=1, le=10, description="At most this many risk factors (default 5).")] = 5


async def _risk_factors(args: HighlightArgs, ctx: ToolContext) -> Result[RiskFactorList]:
    got = await ctx.sections.section(args.symbol, "10-K", "1A", ctx.as_of)
    if isinstance(got, Err):
        return got
    risks = risk_factors(got.value.text, args.limit)
    if not risks:
        return Err(
            ErrorCode.NO_DATA,
            f"no risk-factor headings could be read in {got.value.citation()} "
            f"({len(got.value.text):,} characters; it may incorporate its risk factors by reference)",
        )
    return Ok(RiskFactorList(section=section_cite(got.value), risks=risks))


def summarize_risks(r: RiskFactorList) -> str:
    lines = [
        f"{n}. {risk.heading}" + (f" — {risk.summary}" if risk.summary else "")
        for n, risk in enumerate(r.risks, 1)
    ]
    return fit_lines(f"Leading risk factors, in the filing's order. Cite: {r.section.key}", lines)


get_risk_factors = Tool(
    name="get_risk_factors",
    description=(
        "The leading risk factors of a company's newest 10-K (Item 1A) filed on or before the run's as-of "
        "date, in the filing's order: each risk's own heading sentence and the first sentence of its "
        f"discussion, with the citation. {QUOTE_RULE}"
    ),
    args=HighlightArgs,
    fn=_risk_factors,
    summarize=summarize_risks,
    timeout_s=60.0,
    third_party="filing",
)


async def _business_overview(args: SymbolArgs, ctx: ToolContext) -> Result[BusinessOverview]:
    got = await ctx.sections.section(args.symbol, "10-K", "1", ctx.as_of)
    if isinstance(got, Err):
        return got
    sentences = business_summary(got.value.text, 2)
    if not sentences:
        return Err(ErrorCode.NO_DATA, f"no descriptive sentence could be read in {got.value.citation()}")
    return Ok(BusinessOverview(section=section_cite(got.value), sentences=sentences))


def summarize_business(b: BusinessOverview) -> str:
    return f"{' '.join(b.sentences)}\nCite: {b.section.key} ({b.section.label})"


get_business_overview = Tool(
    name="get_business_overview",
    description=(
        "What a company does, in its own words: the opening descriptive sentences of Item 1 (Business) of "
        f"its newest 10-K filed on or before the run's as-of date, with the citation. {QUOTE_RULE}"
    ),
    args=SymbolArgs,
    fn=_business_overview,
    summarize=summarize_business,
    timeout_s=60.0,
    third_party="filing",
)


TOOLS: tuple[Tool, ...] = (get_business_overview, get_risk_factors)
