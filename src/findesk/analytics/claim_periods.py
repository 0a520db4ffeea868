"""Which reported period a figure claim is about, and which XBRL facts are that period.

Rules this module keeps:
- Pure text and date functions; no I/O; never raise on odd text or odd facts.
- A period is named by a quarter ("Q1 2025", "Q2 FY26", "2Q25", "second quarter of fiscal 2025", "the
  March quarter"), a year ("fiscal 2024", "FY24", "full-year 2024", "2024 revenue"), or relatively ("last
  quarter", "this quarter", "quarterly", "full year", "annual"). A bare "last year" is not a period: in
  "up from $1.26 last year" it is the comparison base.
- Quarter numbers and years are read both ways, fiscal and calendar ("Q2 2025" of a company whose year
  ends in September is fiscal Q2 = the March quarter, calendar Q2 = the June quarter): a fact fits when
  either reading names its period. The fiscal year is the calendar year it ends in (Apple's fiscal 2025
  ends 2025-09-27; NVIDIA's fiscal 2026 ends 2026-01-25); the year-end month comes from the company's own
  annual facts (December when it has none). A period ending in the first days of a month counts as the
  month before (52/53-week years).
- A quarter is a fact spanning 80-100 days, a year one spanning 350-380 days. Among facts for one period
  the newest filed on or before ``as_of`` is used.
- Relative names and unnamed claims mean the periods ended by the post's date: "last quarter" is the
  latest quarter ended by then (and the one before it when the latest was filed after the post, as it may
  not have been public yet); an unnamed claim is compared with every quarter and fiscal year that ended in
  the ``RECENT_DAYS`` days before the post.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

from findesk.analytics.key_figures import CONCEPTS
from findesk.data.models import Fact

QUARTER_DAYS = (80, 100)
YEAR_DAYS = (350, 380)
RECENT_DAYS = 400
_MONTH_SLACK = timedelta(days=7)  # a period ending 2025-02-01 is the January quarter / year
_I = re.IGNORECASE

PeriodKind = Literal["quarter", "year", "latest_quarter", "latest_year"]


@dataclass(frozen=True)
class NamedPeriod:
    """A period a claim names: ``number`` is the quarter (1-4), ``month`` the month a quarter ends in."""

    kind: PeriodKind
    text: str  # as written in the post
    number: int | None = None
    year: int | None = None
    month: int | None = None


_MONTHS = {
    m: n
    for n, names in enumerate(
        (
            "jan january",
            "feb february",
            "mar march",
            "apr april",
            "may",
            "jun june",
            "jul july",
            "aug august",
            "sep sept september",
            "oct october",
            "nov november",
            "dec december",
        ),
        1,
    )
    for m in names.split()
}
_ORDINAL = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
_YEAR = r"(?:\s*(?:of\s+)?(?:fiscal\s+(?:year\s+)?|fy\s?)?'?(?P<year>(?:19|20)\d{2}|\d{2})\b(?![%.,]?\d|%))?"
_QUARTER_RULES = (
    re.compile(rf"\b(?:fiscal\s+|fy\s?)?q(?P<q>[1-4])\b{_YEAR}", _I),
    re.compile(r"\bfy\s?'?(?P<year>(?:19|20)\d{2}|\d{2})\s+q(?P<q>[1-4])\b", _I),
    re.compile(r"\b(?P<q>[1-4])q\s?'?(?P<year>(?:19|20)\d{2}|\d{2})\b", _I),
    re.compile(
        rf"\b(?:fiscal\s+)?(?P<ord>first|second|third|fourth|1st|2nd|3rd|4th)[- ]quarter\b{_YEAR}", _I
    ),
)
_MONTH_QUARTER = re.compile(
    r"\b(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|"
    rf"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)[- ]quarter\b{_YEAR}",
    _I,
)
_YEAR_RULES = (
    re.compile(
        r"\b(?:fiscal(?:\s+year)?|fy|full[- ]year|calendar(?:\s+year)?)\s?'?(?P<year>(?:19|20)\d{2}|\d{2})\b",
        _I,
    ),
    re.compile(
        r"\b(?P<year>(?:19|20)\d{2})\s+(?:full[- ]year\s+|annual\s+|fiscal[- ]year\s+)?"
        r"(?:revenues?|sales|eps|earnings)\b",
        _I,
    ),
)
_LATEST_QUARTER = re.compile(
    r"\b(?:last|latest|this|the|most recent|recent|past|prior)\s+quarter\b|\bquarterly\b|\bthis q\b", _I
)
_LATEST_YEAR = re.compile(
    r"\b(?:full[- ]year|annual|(?:last|latest|past|this|the)\s+fiscal\s+year)\b(?!\s*(?:ago|earlier))", _I
)


def _year(text: str | None) -> int | None:
    if not text:
        return None
    value = int(text)
    return value + 2000 if value < 100 else value


def named_periods(text: str) -> list[NamedPeriod]:
    """The periods ``text`` names, in the order of the rules (specific before relative); a phrase
    already read by an earlier rule ("fiscal 2025" in "second quarter of fiscal 2025") is not read again."""
    text = text or ""
    out: list[NamedPeriod] = []
    taken: list[tuple[int, int]] = []

    def fresh(m: re.Match[str]) -> bool:
        if any(m.start() < end and start < m.end() for start, end in taken):
            return False
        taken.append((m.start(), m.end()))
        return True

    for rule in _QUARTER_RULES:
        for m in rule.finditer(text):
            groups = m.groupdict()
            number = int(groups["q"]) if groups.get("q") else _ORDINAL.get((groups.get("ord") or "").lower())
            if fresh(m):
                out.append(
                    NamedPeriod("quarter", m.group(0).strip(), number=number, year=_year(groups["year"]))
                )
    for m in _MONTH_QUARTER.finditer(text):
        month = _MONTHS.get(m.group("month").lower()) or _MONTHS.get(m.group("month").lower()[:3])
        if fresh(m):
            out.append(NamedPeriod("quarter", m.group(0).strip(), month=month, year=_year(m.group("year"))))
    for rule in _YEAR_RULES:
        out += [
            NamedPeriod("year", m.group(0).strip(), year=_year(m.group("year")))
            for m in rule.finditer(text)
            if fresh(m)
        ]
    if not out:
        out += [NamedPeriod("latest_quarter", m.group(0).strip()) for m in _LATEST_QUARTER.finditer(text)][:1]
        out += [NamedPeriod("latest_year", m.group(0).strip()) for m in _LATEST_YEAR.finditer(text)][:1]
    return out


# --- facts --------------------------------------------------------------------------------------


def days(fact: Fact) -> int:
    return (fact.period_end - fact.period_start).days if fact.period_start else -1


def is_quarter(fact: Fact) -> bool:
    return QUARTER_DAYS[0] <= days(fact) <= QUARTER_DAYS[1]


def is_year(fact: Fact) -> bool:
    return YEAR_DAYS[0] <= days(fact) <= YEAR_DAYS[1]


def _end(fact: Fact) -> date:
    """The period end as a month reads it: 2025-02-01 counts as January."""
    return fact.period_end - _MONTH_SLACK if fact.period_end.day <= _MONTH_SLACK.days else fact.period_end


def year_end_month(facts: Sequence[Fact]) -> int:
    """The month the company's fiscal year ends in, from its newest annual fact (December without one)."""
    years = [f for f in facts if is_year(f)]
    newest = max(years, key=lambda f: (f.period_end, f.filed), default=None)
    return _end(newest).month if newest else 12


def fiscal_year(fact: Fact, fy_month: int) -> int:
    end = _end(fact)
    return end.year if end.month <= fy_month else end.year + 1


def fiscal_quarter(fact: Fact, fy_month: int) -> int:
    months = (_end(fact).month - fy_month) % 12
    return (months + 2) // 3 if months else 4


def describe_period(fact: Fact, fy_month: int) -> str:
    """ "the quarter ended 2025-03-29 (fiscal Q2 2025)" / "fiscal year 2024 (ended 2024-09-28)"."""
    if is_quarter(fact):
        return (
            f"the quarter {fact.period_start.isoformat() if fact.period_start else '?'}.."
            f"{fact.period_end.isoformat()} (fiscal Q{fiscal_quarter(fact, fy_month)} "
            f"{fiscal_year(fact, fy_month)})"
        )
    start = fact.period_start.isoformat() if fact.period_start else "?"
    return f"fiscal year {fiscal_year(fact, fy_month)} ({start}..{fact.period_end.isoformat()})"


def _preference(f: Fact) -> int:
    """The concept's rank in ``key_figures.CONCEPTS`` (0 = most preferred; unknown concepts last)."""
    for concepts in CONCEPTS.values():
        if f.concept in concepts:
            return concepts.index(f.concept)
    return max(len(c) for c in CONCEPTS.values())


def per_period(facts: Sequence[Fact], as_of: date) -> list[Fact]:
    """One fact per (start, end) period by the briefing's one rule (``key_figures``): the most
    preferred concept reporting the period, its newest filing on or before ``as_of``; oldest first."""
    best: dict[tuple[date | None, date], Fact] = {}

    def rank(f: Fact) -> tuple[int, date, str]:
        return (-_preference(f), f.filed, f.accession_number or "")

    for f in facts:
        if f.filed > as_of or not (is_quarter(f) or is_year(f)):
            continue
        key = (f.period_start, f.period_end)
        if key not in best or rank(f) > rank(best[key]):
            best[key] = f
    return sorted(best.values(), key=lambda f: (f.period_end, days(f)))


def _fits(period: NamedPeriod, fact: Fact, fy_month: int) -> bool:
    if period.kind == "year":
        if not is_year(fact):
            return False
        calendar_year = _end(fact).year if _end(fact).month == 12 else None
        return period.year in (fiscal_year(fact, fy_month), calendar_year)
    if not is_quarter(fact):
        return False
    end = _end(fact)
    if period.month is not None:
        return end.month == period.month and period.year in (None, end.year)
    fiscal = (fiscal_quarter(fact, fy_month), fiscal_year(fact, fy_month))
    calendar = ((end.month + 2) // 3, end.year)
    return any(q == period.number and period.year in (None, y) for q, y in (fiscal, calendar))


def _latest(pool: Sequence[Fact], day: date, quarterly: bool) -> list[Fact]:
    """The latest period ended by ``day``, and the one before it when the latest was filed after ``day``."""
    ended = sorted(
        (f for f in pool if (is_quarter(f) if quarterly else is_year(f)) and f.period_end <= day),
        key=lambda f: f.period_end,
        reverse=True,
    )
    if not ended:
        return []
    return ended[:2] if ended[0].filed > day else ended[:1]


def periods_for(named: Sequence[NamedPeriod], pool: Sequence[Fact], day: date, fy_month: int) -> list[Fact]:
    """The facts of ``pool`` (one per period, see ``per_period``) that a claim made on ``day`` is about."""
    if not named:
        recent = day - timedelta(days=RECENT_DAYS)
        return [f for f in pool if recent < f.period_end <= day]
    out: list[Fact] = []
    for period in named:
        if period.kind == "latest_quarter":
            out += _latest(pool, day, quarterly=True)
        elif period.kind == "latest_year":
            out += _latest(pool, day, quarterly=False)
        else:
            fitting = [f for f in pool if _fits(period, f, fy_month) and f.period_end <= day]
            if period.year is None:  # "Q2" alone: the most recent one of each reading (fiscal, calendar)
                newest = sorted(fitting, key=lambda f: f.period_end, reverse=True)
                fiscal = [
                    f for f in newest if period.month is None and fiscal_quarter(f, fy_month) == period.number
                ]
                fitting = [*fiscal[:1], *[f for f in newest if f not in fiscal][:1]]
            out += fitting
    return list({id(f): f for f in out}.values())
