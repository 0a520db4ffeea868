"""SEC filing tools: the filing list, one Item section, 8-K material events and items, XBRL facts.

Rules:
- Thin: arguments are shaped, the router or the ``SectionService`` is called with ``ctx.as_of``,
  and its ``Result`` is returned; the only reshaping is ordering XBRL facts newest period first and
  filtering them by period kind (quarter/year by length, as ``analytics.key_figures`` tells them)
  before any limit, so a fiscal year is never cut off behind quarters. Summaries show the newest
  ``SUMMARY_FACTS``; the result holds every fact.
- Every line of a summary is citable on its own: form, filing date and the EDGAR URL (or the
  accession number when the URL is unknown or the list is long). Sections cite with
  ``FilingSection.citation()``; facts name their form, filing date, accession and EDGAR index page.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, StringConstraints

from findesk.analytics.key_figures import period_kind
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats.sec import filing_index_url, filing_link
from findesk.data.models import Fact, Filing, FilingSection, MaterialEvent
from findesk.tools.args import POINT_IN_TIME, QUOTE_RULE, Ticker, ToolArgs
from findesk.tools.base import Tool, ToolContext
from findesk.tools.summaries import SUMMARY_BUDGET, clip, exact, fit_lines

SECTION_PREVIEW_CHARS = 1_500
SUMMARY_FACTS = 6  # facts a summary shows; the result holds them all


def _upper(value: object) -> object:
    return value.strip().upper() if isinstance(value, str) else value


FormName = Annotated[
    str, StringConstraints(strip_whitespace=True, to_upper=True, min_length=1, max_length=12)
]


class ListFilingsArgs(ToolArgs):
    symbol: Ticker
    forms: Annotated[
        list[FormName] | None,
        Field(
            max_length=12,
            description='Only these SEC forms, e.g. ["10-K", "10-Q", "8-K"]; default: every form.',
        ),
    ] = None
    limit: Annotated[int, Field(ge=1, le=50, description="At most this many filings, newest first.")] = 10


async def _list_filings(args: ListFilingsArgs, ctx: ToolContext) -> Result[list[Filing]]:
    forms = frozenset(args.forms) if args.forms else None
    return await ctx.router.filings(args.symbol, ctx.as_of, forms, args.limit)


def _filing_line(f: Filing, with_url: bool) -> str:
    period = f" period {f.report_date.isoformat()}" if f.report_date else ""
    items = f" items {', '.join(f.items)}" if f.items else ""
    refs = [f.accession_number, f.url if with_url or not f.accession_number else None]
    where = " ".join(r for r in refs if r) or filing_link(f)
    return f"- {f.filing_date.isoformat()} {f.form}{period}{items}: {where}"


def summarize_filings(filings: list[Filing]) -> str:
    if not filings:
        return "No filings found."
    head = f"{len(filings)} SEC filings of {filings[0].ticker} (CIK {filings[0].cik}), newest first:"
    full = [_filing_line(f, with_url=True) for f in filings]
    if sum(len(line) + 1 for line in full) + len(head) < SUMMARY_BUDGET - 200:
        return fit_lines(head, full)
    # A long list keeps every filing visible by citing accession numbers instead of URLs.
    tail = "Cited by accession number; the EDGAR URLs are in the full result."
    return fit_lines(head, [_filing_line(f, with_url=False) for f in filings], tail)


list_filings = Tool(
    name="list_filings",
    description=(
        "List a US company's SEC filings filed on or before the run's as-of date, newest first: form "
        "(10-K annual report, 10-Q quarterly report, 8-K current report, 4 insider trade, ...), filing "
        "date, period of report, 8-K item codes, accession number and EDGAR URL. Use it to see what a "
        "company filed and when; then use get_filing_section to read an Item of a 10-K/10-Q, "
        f"get_material_events for what 8-Ks announced, get_xbrl_facts for reported numbers. {QUOTE_RULE}"
    ),
    args=ListFilingsArgs,
    fn=_list_filings,
    summarize=summarize_filings,
)


class FilingSectionArgs(ToolArgs):
    symbol: Ticker
    form: Annotated[
        Literal["10-K", "10-Q"],
        BeforeValidator(_upper),
        Field(description="10-K (annual report) or 10-Q (quarterly report); the newest one is used."),
    ]
    item: Annotated[
        str,
        StringConstraints(strip_whitespace=True, min_length=1, max_length=10),
        Field(
            description=(
                "10-K Item, e.g. 1 (Business), 1A (Risk Factors), 7 (MD&A), 7A (market risk), 8 "
                "(financial statements); 10-Q Item with its part, e.g. I-2 (MD&A), II-1A (Risk Factors)."
            )
        ),
    ]


async def _filing_section(args: FilingSectionArgs, ctx: ToolContext) -> Result[FilingSection]:
    return await ctx.sections.section(args.symbol, args.form, args.item, ctx.as_of)


def summarize_section(s: FilingSection) -> str:
    shown = s.text[:SECTION_PREVIEW_CHARS]
    more = (
        f"\n[first {len(shown):,} of {len(s.text):,} characters shown; the full text is in the result]"
        if len(s.text) > len(shown)
        else f"\n[complete section: {len(s.text):,} characters]"
    )
    period = f" (period {s.report_date.isoformat()})" if s.report_date else ""
    return f"Cite: {s.citation()}{period}\n{shown}{more}"


get_filing_section = Tool(
    name="get_filing_section",
    description=(
        "Read one Item of a company's newest 10-K or 10-Q filed on or before the run's as-of date, e.g. "
        "Item 1A Risk Factors or Item 7 MD&A. Returns the citation (ticker, form, filing date, item, "
        "official title, EDGAR URL) and the section text; the summary shows the first "
        f"{SECTION_PREVIEW_CHARS:,} characters and the total length. Use it for what a company itself "
        f"says about its business, risks and results. Cite the filing when you use it. {QUOTE_RULE}"
    ),
    args=FilingSectionArgs,
    fn=_filing_section,
    summarize=summarize_section,
    timeout_s=60.0,  # a cold 10-K parse can take several seconds on a slow disk
    third_party="filing",
)


class MaterialEventsArgs(ToolArgs):
    symbol: Ticker
    limit: Annotated[
        int, Field(ge=1, le=25, description="Look at this many of the newest 8-K filings (default 5).")
    ] = 5


async def _material_events(args: MaterialEventsArgs, ctx: ToolContext) -> Result[list[MaterialEvent]]:
    return await ctx.router.material_events(args.symbol, ctx.as_of, args.limit)


def summarize_events(events: list[MaterialEvent]) -> str:
    if not events:
        return "No 8-K items found in the filings examined."
    # One line per filing: its items share the filing's date, event date and URL.
    by_filing: dict[tuple[str, str], list[MaterialEvent]] = defaultdict(list)
    for e in events:
        by_filing[(e.filing_date.isoformat(), e.accession_number or e.url or "")].append(e)
    lines = []
    for group in by_filing.values():
        first = group[0]
        happened = f" (event {first.event_date.isoformat()})" if first.event_date else ""
        items = "; ".join(f"Item {e.item} {clip(e.title, 90)}" for e in group)
        where = first.url or first.accession_number or first.source.ref
        lines.append(f"- {first.filing_date.isoformat()} {first.form}{happened}: {items} — {where}")
    head = f"8-K material events of {events[0].ticker} (CIK {events[0].cik}), newest first:"
    return fit_lines(head, lines)


get_material_events = Tool(
    name="get_material_events",
    description=(
        "What a company's recent 8-K current reports announced: each 8-K item code with its official SEC "
        "title (e.g. 2.02 Results of Operations and Financial Condition, 5.02 officer or director "
        "changes, 1.01 material agreements), filing date, event date and EDGAR URL, newest first. Use it "
        "to find earnings releases, leadership changes, deals and other material events. It gives the "
        f"item titles, not the press release text. {POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=MaterialEventsArgs,
    fn=_material_events,
    summarize=summarize_events,
    third_party="filing",
)


EIGHT_K_LOOKBACK = 25
ITEM_PREVIEW_CHARS = 500


class EightKItemsArgs(ToolArgs):
    symbol: Ticker
    accession_number: Annotated[
        str,
        StringConstraints(strip_whitespace=True, pattern=r"^\d{10}-\d{2}-\d{6}$"),
        Field(description="Accession number of the 8-K, e.g. 0000320193-24-000120 (from list_filings)."),
    ]


async def _eight_k_items(args: EightKItemsArgs, ctx: ToolContext) -> Result[list[FilingSection]]:
    listed = await ctx.router.filings(args.symbol, ctx.as_of, frozenset({"8-K", "8-K/A"}), EIGHT_K_LOOKBACK)
    if isinstance(listed, Err):
        return listed
    match = [f for f in listed.value if f.accession_number == args.accession_number]
    if not match:
        return Err(
            ErrorCode.NOT_FOUND,
            f"no 8-K with accession {args.accession_number} among the {len(listed.value)} newest 8-Ks of "
            f"{args.symbol} filed on or before {ctx.as_of.isoformat()}",
        )
    return await ctx.sections.sections(match[0], ctx.as_of)


def summarize_eight_k(sections: list[FilingSection]) -> str:
    if not sections:
        return "The 8-K document has no Item headings that could be read."
    first = sections[0]
    where = first.url or first.local_path or first.source.ref
    head = f"{first.ticker} {first.form} filed {first.filing_date.isoformat()} — cite: {where}"
    blocks = [f"Item {s.item} {s.title}: {clip(s.text, ITEM_PREVIEW_CHARS)}" for s in sections]
    return fit_lines(head, blocks)


get_8k_items = Tool(
    name="get_8k_items",
    description=(
        "Read what one 8-K current report says, item by item (e.g. Item 2.02 results, Item 5.02 officer "
        f"changes): the first {ITEM_PREVIEW_CHARS} characters of each item's text, with the filing's "
        "citation. Pass the accession number from list_filings. Some stored filings have no document; "
        f"the error says so. {POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=EightKItemsArgs,
    fn=_eight_k_items,
    summarize=summarize_eight_k,
    timeout_s=60.0,
    third_party="filing",
)


class XbrlFactsArgs(ToolArgs):
    symbol: Ticker
    concept: Annotated[
        str,
        StringConstraints(strip_whitespace=True, min_length=2, max_length=120),
        Field(
            description=(
                "XBRL concept name, e.g. Revenues, NetIncomeLoss, EarningsPerShareDiluted, Assets, "
                "us-gaap:OperatingIncomeLoss."
            )
        ),
    ]
    period: Annotated[
        Literal["quarter", "year", "instant", "any"],
        BeforeValidator(lambda v: v.strip().lower() if isinstance(v, str) else v),
        Field(
            description=(
                "Only facts of this kind of period, told by its length: quarter (~3 months), year "
                "(~12 months, a fiscal year), instant (a balance at a date), or any (default)."
            )
        ),
    ] = "any"
    also: Annotated[
        tuple[Annotated[str, StringConstraints(strip_whitespace=True, min_length=2, max_length=120)], ...],
        Field(
            max_length=6,
            description=(
                "Further concepts for the same figure, e.g. revenue tagged differently over the years "
                '(["RevenueFromContractWithCustomerExcludingAssessedTax"]); ones the company does not '
                "report are skipped."
            ),
        ),
    ] = ()
    limit: Annotated[
        int | None,
        Field(ge=1, le=400, description="At most N facts, newest period first (default: all)."),
    ] = None


def _kind(f: Fact) -> Literal["quarter", "year", "instant"] | None:
    return "instant" if f.period_start is None else period_kind(f)


async def _xbrl_facts(args: XbrlFactsArgs, ctx: ToolContext) -> Result[list[Fact]]:
    found: list[Fact] = []
    first_error: Err | None = None
    for concept in dict.fromkeys([args.concept, *args.also]):
        got = await ctx.router.facts(args.symbol, concept, ctx.as_of)
        if isinstance(got, Err):
            first_error = first_error or got
        else:
            found += got.value
    if not found and first_error is not None:
        return first_error
    # The period filter comes before the limit: capping first once hid a fiscal year behind quarters.
    kept = [f for f in found if args.period == "any" or _kind(f) == args.period]
    kept.sort(key=lambda f: (f.period_end, f.filed), reverse=True)
    return Ok(kept[: args.limit] if args.limit is not None else kept)


def _fact_line(f: Fact, with_concept: bool = False) -> str:
    if f.period_start is not None:
        # Filings report quarters, years to date and prior years side by side; the length tells
        # them apart at a glance.
        months = round((f.period_end - f.period_start).days / 30.44)
        period = f"{f.period_start.isoformat()} to {f.period_end.isoformat()} (~{months} months)"
    else:
        period = f"at {f.period_end.isoformat()}"
    fiscal = f" for FY{f.fiscal_year}" if f.fiscal_year else ""
    if fiscal and f.fiscal_period and f.fiscal_period != "FY":
        fiscal += f" {f.fiscal_period}"
    accession = f.accession_number or "n/a"
    filed = f"{f.form or 'filing'}{fiscal} filed {f.filed.isoformat()}, accession {accession}"
    concept = f" [{f.concept}]" if with_concept else ""
    return f"- {exact(f.value)} {f.unit}, {period} ({filed}){concept}"


def summarize_facts(facts: list[Fact]) -> str:
    if not facts:
        return "No XBRL facts found."
    first = facts[0]
    label = f" ({first.label})" if first.label and first.label != first.concept else ""
    shown = facts[:SUMMARY_FACTS]
    concepts = list(dict.fromkeys(f"{f.taxonomy}:{f.concept}" for f in shown))
    if len(concepts) > 1:
        label = ""
    head = f"{first.ticker} XBRL {' + '.join(concepts)}{label}, newest periods first:"
    more = len(facts) - len(shown)
    filings = sorted({(f.accession_number, f.form, f.filed) for f in shown if f.accession_number})
    cites = [
        f"{acc} = {form or 'filing'} filed {filed.isoformat()}: {filing_index_url(first.cik, acc)}"
        for acc, form, filed in filings
        if acc is not None
    ]
    tail = "\n".join(["Filings (EDGAR index pages):", *cites]) if cites else ""
    lines = [_fact_line(f, with_concept=len(concepts) > 1) for f in shown]
    if more:
        lines.append(f"… {more} older facts in the full result (use period= to pick quarters or years).")
    return fit_lines(head, lines, f"{tail}\nSource: {first.source.cite()}".strip())


get_xbrl_facts = Tool(
    name="get_xbrl_facts",
    description=(
        "Reported numbers from a company's SEC XBRL financial data for one concept (e.g. Revenues, "
        "NetIncomeLoss, EarningsPerShareDiluted), as filed on or before the run's as-of date, newest "
        "periods first: value with its unit (USD, shares, USD/shares), the period it covers (start to end "
        "for flows, 'at' a date for balances), fiscal year/quarter, form, filing date and accession. One "
        "filing reports several periods (quarter, year to date, prior year): pass period='quarter' or "
        f"'year' to get only those, and read the period before quoting. The summary shows the newest "
        f"{SUMMARY_FACTS}. {QUOTE_RULE}"
    ),
    args=XbrlFactsArgs,
    fn=_xbrl_facts,
    summarize=summarize_facts,
)

TOOLS: tuple[Tool, ...] = (
    list_filings,
    get_filing_section,
    get_material_events,
    get_8k_items,
    get_xbrl_facts,
)
