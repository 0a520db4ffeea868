"""Key figures from XBRL facts: latest quarter and fiscal year with the year before, trailing P/E, yield.

Pure: facts, a price and ``as_of`` come in as arguments; nothing is read here.

The one rule for choosing XBRL facts (every figure of the briefing follows it):

1. Per metric an ordered concept list (``CONCEPTS``): revenue prefers ``Revenues`` (total revenue),
   then ``RevenueFromContractWithCustomerExcludingAssessedTax``, ``SalesRevenueNet`` and
   ``RevenueFromContractWithCustomerIncludingAssessedTax``; diluted EPS is ``EarningsPerShareDiluted``;
   dividends are ``CommonStockDividendsPerShareDeclared``. Only facts in the metric's unit (USD,
   USD/shares) and filed on or before ``as_of`` count.
2. A period is its (start, end) pair. For each period the value comes from the most preferred concept
   that reports it, and within that concept from the newest filing (latest restatement known at
   ``as_of``; for a year-earlier period that is usually the current filing's comparative column).
3. The kind of a period is read from its length, never from ``fp`` or ``frame``: 80-100 days is a
   quarter, 350-380 days a fiscal year; other lengths (6- and 9-month year-to-date) are used only to
   derive trailing sums. The latest quarter and latest fiscal year are the latest period ends of
   their kind across all concepts, so a company that switched concepts (Alphabet's 2021 ``Revenues``
   vs its FY2024 ``RevenueFromContract…``) shows its newest period. A fiscal Q4 is not reported as a
   quarter by most companies and is never derived here.
4. The year-earlier value is the same kind of period ending 365 +/- 20 days earlier; growth is
   computed (``growth_pct``) and labelled as computed wherever it is shown.
5. Trailing twelve months of a per-share metric (EPS for the P/E, dividends for the yield): the
   latest fiscal year when it ends at the latest quarter; else the sum of the last four reported
   consecutive quarters; else fiscal year + year-to-date - the year-earlier year-to-date. The
   method is stated with its inputs. Per-share inputs must share one share basis: a stock split is
   seen when one period's per-share value differs between two filings by a split-like ratio; the split
   lies between those filings (all such pairs of one split narrow it down), and a sum or a growth
   figure whose inputs were filed before the end of that interval is not computed (reason given). A
   split after the newest filing is invisible in the facts, a known limit.
6. Nothing is invented: a metric without facts, a period without its year-earlier value, a sum with a
   missing input each say "not available" with the reason.

The next earnings date (``next_earnings``) comes only from an earnings calendar as known at ``as_of``
(the data layer withholds dates a calendar recorded later would reveal); it is never guessed from
the rhythm of past calls, and a scheduled date says it is scheduled and when that was recorded.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict

from findesk.data.formats.sec import fact_link
from findesk.data.models import EarningsCalendar, EarningsEvent, Fact

Metric = Literal["revenue", "eps", "dividend"]
PeriodKind = Literal["quarter", "year"]

CONCEPTS: dict[Metric, tuple[str, ...]] = {
    "revenue": (
        "Revenues",
        "RevenueFromContractWithCustomerExcludingAssessedTax",
        "SalesRevenueNet",
        "RevenueFromContractWithCustomerIncludingAssessedTax",
    ),
    "eps": ("EarningsPerShareDiluted",),
    "dividend": ("CommonStockDividendsPerShareDeclared",),
}
UNITS: dict[Metric, str] = {"revenue": "USD", "eps": "USD/shares", "dividend": "USD/shares"}
LABELS: dict[Metric, str] = {"revenue": "Revenue", "eps": "Diluted EPS", "dividend": "Dividends declared"}
QUARTER_DAYS = (80, 100)
YEAR_DAYS = (350, 380)
YEAR_SLACK_DAYS = 20
_SPLIT_MIN_RATIO = 1.5

Period = tuple[date, date]


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Figure(Model):
    """One reported value, as filed: what it is, which period, which filing."""

    concept: str
    value: float
    unit: str
    period_start: date
    period_end: date
    form: str | None = None
    filed: date
    accession_number: str | None = None
    citation: str  # the filing's EDGAR index page, or the data file when no accession is known


class Comparison(Model):
    metric: Literal["revenue", "eps"]
    period: PeriodKind
    current: Figure
    year_earlier: Figure | None = None
    growth_pct: float | None = None  # computed from the two figures
    note: str | None = None  # why there is no growth figure


class Computed(Model):
    """A figure the desk computes (P/E, yield): the value, or why it cannot be given."""

    value: float | None = None
    method: str | None = None  # how, with the inputs' figures and periods
    reason: str | None = None  # "not available" because …
    inputs: list[Figure] = []


class Note(Model):
    text: str
    citation: str | None = None


class KeyFigures(Model):
    """What the Business section shows on one screen."""

    comparisons: list[Comparison] = []
    trailing_pe: Computed | None = None
    dividend_yield: Computed | None = None
    next_earnings: Note | None = None
    earnings_release: Note | None = None
    missing: str | None = None  # why there are no XBRL figures at all


# --- selection -----------------------------------------------------------------------------------


def days(f: Fact) -> int:
    return (f.period_end - f.period_start).days if f.period_start else -1


def period_kind(f: Fact) -> PeriodKind | None:
    if QUARTER_DAYS[0] <= days(f) <= QUARTER_DAYS[1]:
        return "quarter"
    if YEAR_DAYS[0] <= days(f) <= YEAR_DAYS[1]:
        return "year"
    return None


def _usable(facts: Iterable[Fact], metric: Metric, as_of: date) -> list[Fact]:
    concepts = CONCEPTS[metric]
    return [
        f
        for f in facts
        if f.concept in concepts
        and f.unit == UNITS[metric]
        and f.filed <= as_of
        and f.period_start is not None
        and math.isfinite(f.value)
    ]


def _period(f: Fact) -> Period:
    assert f.period_start is not None  # _usable keeps duration facts only
    return (f.period_start, f.period_end)


def consistent_facts(facts: Iterable[Fact], metric: Metric, as_of: date) -> list[Fact]:
    """Every filing's value of each period, from the most preferred concept reporting that period."""
    usable = _usable(facts, metric, as_of)
    rank = {c: i for i, c in enumerate(CONCEPTS[metric])}
    best: dict[Period, int] = {}
    for f in usable:
        best[_period(f)] = min(best.get(_period(f), len(rank)), rank[f.concept])
    kept = [f for f in usable if rank[f.concept] == best[_period(f)]]
    return sorted(kept, key=lambda f: (f.period_end, f.filed, days(f)))


def series(facts: Iterable[Fact], metric: Metric, as_of: date) -> dict[Period, Fact]:
    """One value per period: the preferred concept's newest filing on or before ``as_of``."""
    out: dict[Period, Fact] = {}
    for f in consistent_facts(facts, metric, as_of):  # sorted by filing date: later ones replace
        out[_period(f)] = f
    return out


def _latest(values: Iterable[Fact], kind: PeriodKind) -> Fact | None:
    return max((f for f in values if period_kind(f) == kind), key=lambda f: f.period_end, default=None)


def _ending_near(values: Iterable[Fact], end: date, length: int, slack: int = YEAR_SLACK_DAYS) -> Fact | None:
    fitting = [f for f in values if abs((f.period_end - end).days) <= slack and abs(days(f) - length) <= 15]
    return min(fitting, key=lambda f: abs((f.period_end - end).days), default=None)


def figure(f: Fact) -> Figure:
    assert f.period_start is not None
    return Figure(
        concept=f.concept,
        value=f.value,
        unit=f.unit,
        period_start=f.period_start,
        period_end=f.period_end,
        form=f.form,
        filed=f.filed,
        accession_number=f.accession_number,
        citation=fact_link(f),
    )


# --- share basis (stock splits) ------------------------------------------------------------------


def _split_like(a: float, b: float) -> bool:
    if a <= 0 or b <= 0:
        return False
    ratio = max(a, b) / min(a, b)
    return ratio >= _SPLIT_MIN_RATIO and abs(ratio - round(ratio)) <= 0.1 * round(ratio)


def split_intervals(facts: Iterable[Fact], metric: Metric, as_of: date) -> list[tuple[date, date]]:
    """(after, by): a split happened after the first date and by the second, as the facts show it.

    Each pair of filings reporting one period with a split-like ratio bounds a split; overlapping
    bounds are one split, narrowed to their intersection.
    """
    by_period: dict[Period, list[Fact]] = {}
    for f in consistent_facts(facts, metric, as_of):
        by_period.setdefault(_period(f), []).append(f)
    bounds: list[tuple[date, date]] = []
    for reported in by_period.values():
        for old in reported:
            for new in reported:
                if old.filed < new.filed and _split_like(old.value, new.value):
                    bounds.append((old.filed, new.filed))
    merged: list[tuple[date, date]] = []
    for low, high in sorted(bounds, key=lambda b: b[1]):
        if merged and low < merged[-1][1] and merged[-1][0] < high:
            merged[-1] = (max(low, merged[-1][0]), min(high, merged[-1][1]))
        else:
            merged.append((low, high))
    return merged


def _basis_problem(inputs: Sequence[Fact], splits: Sequence[tuple[date, date]], to_as_of: bool) -> str | None:
    """Why the inputs may not share one share basis (with each other, or with today's price)."""
    first, last = min(f.filed for f in inputs), max(f.filed for f in inputs)
    if not to_as_of and len({f.accession_number or f.filed for f in inputs}) == 1:
        return None  # one filing states all its per-share figures on one basis
    for after, by in splits:
        spans = first < by and (to_as_of or after < last)
        if spans:
            return (
                f"per-share values were restated for a stock split made between {after.isoformat()} and "
                f"{by.isoformat()}, and an input was filed {first.isoformat()}, before the restated "
                "figures; they are not adjusted here"
            )
    return None


# --- comparisons ---------------------------------------------------------------------------------


def _growth(current: Fact, prior: Fact) -> float | None:
    return (current.value - prior.value) / abs(prior.value) * 100 if prior.value > 0 else None


def compare(facts: Sequence[Fact], metric: Literal["revenue", "eps"], as_of: date) -> list[Comparison]:
    values = series(facts, metric, as_of)
    splits = split_intervals(facts, metric, as_of) if metric == "eps" else []
    out: list[Comparison] = []
    kinds: tuple[PeriodKind, ...] = ("quarter", "year")
    for kind in kinds:
        current = _latest(values.values(), kind)
        if current is None:
            continue
        prior = _ending_near(
            (f for f in values.values() if period_kind(f) == kind),
            current.period_end - timedelta(days=365),
            days(current),
        )
        note: str | None = None
        growth: float | None = None
        if prior is None:
            note = "the year-earlier period is not reported in the facts filed by the as-of date"
        elif (problem := _basis_problem([current, prior], splits, to_as_of=False)) is not None:
            note = problem
        elif (growth := _growth(current, prior)) is None:
            note = "the year-earlier value is zero or negative; growth is not meaningful"
        if note is None and _basis_problem([current], splits, to_as_of=True) is not None:
            note = "reported before a stock split that later filings restated; not adjusted for it"
        out.append(
            Comparison(
                metric=metric,
                period=kind,
                current=figure(current),
                year_earlier=figure(prior) if prior is not None else None,
                growth_pct=growth,
                note=note,
            )
        )
    return out


# --- trailing twelve months ----------------------------------------------------------------------


def _four_quarters(values: Mapping[Period, Fact], latest: Fact) -> list[Fact] | None:
    chain = [latest]
    while len(chain) < 4:
        head = chain[-1]
        assert head.period_start is not None
        before = [
            f
            for f in values.values()
            if period_kind(f) == "quarter" and abs((f.period_end - head.period_start).days + 1) <= 7
        ]
        if not before:
            return None
        chain.append(max(before, key=lambda f: f.period_end))
    return chain


def _year_to_date(values: Mapping[Period, Fact], year: Fact, quarter: Fact) -> list[Fact] | None:
    """[fiscal year, year-to-date, year-earlier year-to-date] when all three are reported."""
    ytd = next(
        (
            f
            for f in values.values()
            if f.period_end == quarter.period_end
            and f.period_start is not None
            and 0 < (f.period_start - year.period_end).days <= 7
        ),
        None,
    )
    if ytd is None:
        return None
    prior = _ending_near(values.values(), ytd.period_end - timedelta(days=365), days(ytd))
    return [year, ytd, prior] if prior is not None else None


def _span(f: Fact) -> str:
    assert f.period_start is not None
    return f"{f.period_start.isoformat()}..{f.period_end.isoformat()}"


def _num(value: float) -> str:
    return f"{value:,.4f}".rstrip("0").rstrip(".")


def trailing(facts: Sequence[Fact], metric: Metric, as_of: date) -> tuple[float, str, list[Fact]] | str:
    """(sum, method, inputs) of the trailing twelve months, or why it cannot be computed."""
    values = series(facts, metric, as_of)
    if not values:
        return (
            f"no {LABELS[metric].lower()} facts ({', '.join(CONCEPTS[metric])}) filed by {as_of.isoformat()}"
        )
    year, quarter = _latest(values.values(), "year"), _latest(values.values(), "quarter")
    if year is not None and (quarter is None or year.period_end >= quarter.period_end - timedelta(days=7)):
        inputs, method = [year], f"fiscal year {_span(year)} as reported"
        total = year.value
    elif quarter is not None and (chain := _four_quarters(values, quarter)) is not None:
        inputs, total = chain, sum(f.value for f in chain)
        method = "sum of the last four reported quarters: " + " + ".join(
            f"{_num(f.value)} ({_span(f)})" for f in reversed(chain)
        )
    elif year is not None and quarter is not None and (ytd := _year_to_date(values, year, quarter)):
        inputs, total = ytd, ytd[0].value + ytd[1].value - ytd[2].value
        method = (
            f"fiscal year {_num(ytd[0].value)} ({_span(ytd[0])}) + year to date {_num(ytd[1].value)} "
            f"({_span(ytd[1])}) - year-earlier year to date {_num(ytd[2].value)} ({_span(ytd[2])})"
        )
    else:
        return (
            f"the reported periods do not cover the last twelve months (no four consecutive quarters, "
            f"and no fiscal year with year-to-date figures) in facts filed by {as_of.isoformat()}"
        )
    if metric != "revenue":
        problem = _basis_problem(inputs, split_intervals(facts, metric, as_of), to_as_of=True)
        if problem is not None:
            return problem
    return total, method, inputs


def trailing_pe(eps: Sequence[Fact], price: float | None, price_date: date | None, as_of: date) -> Computed:
    if price is None or price_date is None:
        return Computed(reason="no share price for the as-of date")
    got = trailing(eps, "eps", as_of)
    if isinstance(got, str):
        return Computed(reason=got)
    total, method, inputs = got
    if total <= 0:
        return Computed(
            reason=f"trailing diluted EPS is {_num(total)} (zero or negative); a P/E is not meaningful",
            inputs=[figure(f) for f in inputs],
        )
    return Computed(
        value=price / total,
        method=(
            f"price {price:,.2f} on {price_date.isoformat()} / trailing-twelve-month diluted EPS "
            f"{_num(total)} ({method})"
        ),
        inputs=[figure(f) for f in inputs],
    )


def dividend_yield(
    dividends: Sequence[Fact], price: float | None, price_date: date | None, as_of: date
) -> Computed:
    if price is None or price_date is None or price <= 0:
        return Computed(reason="no share price for the as-of date")
    got = trailing(dividends, "dividend", as_of)
    if isinstance(got, str):
        return Computed(reason=got)
    total, method, inputs = got
    return Computed(
        value=total / price * 100,
        method=(
            f"dividends declared per share over the trailing twelve months {_num(total)} ({method}) / "
            f"price {price:,.2f} on {price_date.isoformat()}"
        ),
        inputs=[figure(f) for f in inputs],
    )


def key_figures(
    facts: Mapping[Metric, Sequence[Fact]],
    price: float | None,
    price_date: date | None,
    as_of: date,
) -> KeyFigures:
    """Comparisons, P/E and yield from the facts of each metric (any concepts, any filings)."""
    comparisons = compare(facts.get("revenue", ()), "revenue", as_of) + compare(
        facts.get("eps", ()), "eps", as_of
    )
    return KeyFigures(
        comparisons=comparisons,
        trailing_pe=trailing_pe(facts.get("eps", ()), price, price_date, as_of),
        dividend_yield=dividend_yield(facts.get("dividend", ()), price, price_date, as_of),
    )


# --- earnings dates ------------------------------------------------------------------------------


def _fiscal(e: EarningsEvent) -> str:
    return f"fiscal {e.fiscal_year} Q{e.fiscal_quarter}"


def next_earnings(cal: EarningsCalendar) -> Note:
    """The "Next earnings date" line from a calendar answer (one line on the one screen)."""
    recorded = cal.recorded_on.isoformat()
    nxt = cal.next_event
    if nxt is not None:
        text = (
            f"{nxt.day.isoformat()} ({_fiscal(nxt)}), scheduled, per the earnings calendar recorded "
            f"{recorded}"
        )
    elif cal.as_of < cal.recorded_on:
        # Nothing of the calendar is used, so nothing is cited: it was not yet known at as_of.
        return Note(text=f"not known at this date: the data's earnings calendar was recorded {recorded}")
    else:
        text = (
            f"not known: the earnings calendar recorded {recorded} lists no {cal.ticker} date after "
            f"{cal.as_of.isoformat()}"
        )
    return Note(text=text, citation=cal.url or cal.source.cite())


def last_earnings(cal: EarningsCalendar) -> str | None:
    """The latest listed earnings date on or before ``as_of``; a passed date the calendar had only
    scheduled is not called held."""
    last = cal.last_event
    if last is None:
        return None
    if last.status == "held":
        return f"last earnings call {last.day.isoformat()} ({_fiscal(last)})"
    return (
        f"last listed earnings date {last.day.isoformat()} ({_fiscal(last)}), scheduled when the calendar "
        f"was recorded {cal.recorded_on.isoformat()}; this data does not confirm it took place"
    )
