"""Social claims checked against 8-K items and XBRL facts.

Rules this module keeps: pure (claims, filings and ``as_of`` come in as arguments); never raises; only
filings filed on or before ``as_of`` count; claims consistent with the filings are NOT returned; the
divergences come back in claim order. Reported figures are printed exactly as filed; computed growth is
printed to one decimal and said to be computed. The claim date is the post's own date, capped at ``as_of``;
the event window is [claim date - window_days, as_of].

  claim kind              checked against                                            if nothing matches
  ----------------------  ---------------------------------------------------------  ------------------
  buyout, merger          8-K Item 1.01, 2.01 or 8.01 filed in the window            unsupported
  bankruptcy              8-K Item 1.03 filed in the window                          unsupported
  offering                8-K Item 3.02, 1.01 or 8.01 filed in the window            unsupported
  split                   8-K Item 5.03 or 8.01 filed in the window                  unsupported
  earnings_beat/_miss,    8-K Item 2.02 filed in the window (results released; a     unsupported
  guidance                beat or miss against consensus is not in filings)
  fda_approval            8-K Item 7.01 or 8.01 filed in the window                  unsupported
  (Items 7.01 and 8.01 are catch-alls: they back a claim only when filed at most 14 days before it)
  revenue, eps            XBRL fact of the latest ~3-month (80-100 days) and latest  contradicted
                          ~12-month (350-380 days) period filed on or before as_of
                          and on or before the claim date; consistent when within
                          ``tolerance`` (relative, default 5%) of any of them
  growth                  year-over-year growth computed from those facts and the    contradicted
                          same-length period ending a year earlier (+-20 days);      (unsupported when
                          consistent within ``growth_tolerance_pp`` (default 2 pp)   the post does not
                          of any; revenue and EPS both tried when unnamed            say what grew)
  revenue, eps, growth    no facts for the metric, none for a usable period, or the  unsupported, with
                          latest period older than 500 days                          the reason

An unsupported event names the items looked for and the window, and lists and cites every 8-K filed in
the window (or says none is on record). A contradicted figure cites the EDGAR index page of each filing
it shows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from findesk.analytics.social_claims import SocialClaim
from findesk.data.formats.sec import archives_url
from findesk.data.formats.sec_forms import EIGHT_K_ITEMS
from findesk.data.models import Fact, MaterialEvent

GROWTH_TOLERANCE_PP = 2.0
STALE_DAYS = 500
_QUARTER_DAYS = (80, 100)
_YEAR_DAYS = (350, 380)
_YOY_SLACK_DAYS = 20

_ITEMS: dict[str, tuple[str, ...]] = {
    "buyout": ("1.01", "2.01", "8.01"),
    "merger": ("1.01", "2.01", "8.01"),
    "bankruptcy": ("1.03",),
    "offering": ("3.02", "1.01", "8.01"),
    "split": ("5.03", "8.01"),
    "earnings_beat": ("2.02",),
    "earnings_miss": ("2.02",),
    "guidance": ("2.02",),
    "fda_approval": ("7.01", "8.01"),
}
# "Other Events" and "Regulation FD Disclosure" can be about anything: only timing ties one to a claim.
_CATCH_ALL = ("7.01", "8.01")
CATCH_ALL_DAYS = 14
_EARNINGS_NOTE = " (filings can show that results were released, not whether they beat or missed consensus)"
_UNITS = {"revenue": "USD", "eps": "USD/shares"}
_Metric = Literal["revenue", "eps"]


class OfficialSide(BaseModel):
    """What the filings show about a claim, with its citations."""

    model_config = ConfigDict(frozen=True)

    statement: str  # e.g. "No 8-K with Item 1.01 or 2.01 filed 2025-06-01..2025-08-29"
    citations: list[str] = Field(default_factory=list)  # EDGAR URLs (or snapshot refs) backing it


class Divergence(BaseModel):
    model_config = ConfigDict(frozen=True)

    claim: SocialClaim
    verdict: Literal["contradicted", "unsupported"]
    official: OfficialSide


def _num(value: float) -> str:
    return f"{int(value):,}" if value.is_integer() and abs(value) < 1e18 else f"{value:,}"


def _cite_fact(fact: Fact) -> str:
    if fact.accession_number:
        accession = fact.accession_number
        return archives_url(fact.cik, accession, f"{accession}-index.htm")
    return fact.source.cite()


def _before(day: date, days: int) -> date:
    """``day`` minus ``days``, floored at the first representable date instead of overflowing."""
    return day - timedelta(days=days) if (day - date.min).days > days else date.min


def _unique(items: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _verdict(
    claim: SocialClaim, verdict: Literal["contradicted", "unsupported"], text: str, cites: Sequence[str] = ()
) -> Divergence:
    return Divergence(
        claim=claim, verdict=verdict, official=OfficialSide(statement=text, citations=_unique(cites))
    )


# --- events -------------------------------------------------------------------------------------


def _item_list(items: Sequence[str]) -> str:
    named = [f"{i} ({EIGHT_K_ITEMS.get(i, 'unknown item')})" for i in items]
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " or " + named[-1]


def _item(event: MaterialEvent) -> str:
    return event.item.strip().removeprefix("Item").strip()


def _filings_listed(seen: Sequence[MaterialEvent]) -> tuple[list[str], list[str]]:
    """One line and one citation per 8-K (its items grouped), newest first."""
    filings: dict[tuple[date, str], list[MaterialEvent]] = {}
    for event in seen:
        key = (event.filing_date, event.accession_number or event.url or event.source.cite())
        filings.setdefault(key, []).append(event)
    listed, cites = [], []
    for (filed, _), group in sorted(filings.items(), key=lambda kv: kv[0], reverse=True):
        items = sorted({_item(e) for e in group})
        label = "Item" if len(items) == 1 else "Items"
        listed.append(f"{group[0].form} filed {filed.isoformat()} ({label} {', '.join(items)})")
        cites.append(group[0].url or group[0].source.cite())
    return listed, cites


def _check_event(
    claim: SocialClaim, events: Sequence[MaterialEvent], day: date, as_of: date, window_days: int
) -> Divergence | None:
    wanted = _ITEMS[claim.kind]
    specific = [i for i in wanted if i not in _CATCH_ALL]
    catch_all = [i for i in wanted if i in _CATCH_ALL]
    start, near = _before(day, window_days), max(_before(day, CATCH_ALL_DAYS), _before(day, window_days))
    seen = [e for e in events if start <= e.filing_date <= as_of]
    if any(_item(e) in specific or (_item(e) in catch_all and e.filing_date >= near) for e in seen):
        return None
    window = f"{start.isoformat()}..{as_of.isoformat()}"
    looked = [f"Item {_item_list(specific)} filed {window}"] if specific else []
    if catch_all:
        looked.append(
            f"Item {_item_list(catch_all)} filed {near.isoformat()}..{as_of.isoformat()} (a catch-all item "
            f"counts only when filed at most {CATCH_ALL_DAYS} days before the claim)"
        )
    note = _EARNINGS_NOTE if claim.kind in ("earnings_beat", "earnings_miss", "guidance") else ""
    listed, cites = _filings_listed(seen)
    found = f"8-Ks filed {window}: " + "; ".join(listed) if listed else f"no 8-K filed {window} is on record"
    text = f"No 8-K with {', nor with '.join(looked)}{note}; {found}."
    return _verdict(claim, "unsupported", text, cites)


# --- facts --------------------------------------------------------------------------------------


def _days(fact: Fact) -> int:
    return (fact.period_end - fact.period_start).days if fact.period_start else -1


def _usable(facts: Sequence[Fact], metric: _Metric, cutoff: date) -> list[Fact]:
    return [f for f in facts if f.filed <= cutoff and f.unit == _UNITS[metric] and math.isfinite(f.value)]


def _latest(pool: Sequence[Fact], span: tuple[int, int]) -> Fact | None:
    fitting = [f for f in pool if span[0] <= _days(f) <= span[1]]
    return max(fitting, key=lambda f: (f.period_end, f.filed, f.accession_number or ""), default=None)


def _candidates(facts: Sequence[Fact], metric: _Metric, cutoffs: Sequence[date]) -> list[Fact]:
    """Latest quarter and latest year as seen at each cutoff, not staler than ``STALE_DAYS``."""
    out: dict[tuple[object, ...], Fact] = {}
    for cutoff in cutoffs:
        pool = _usable(facts, metric, cutoff)
        for span in (_QUARTER_DAYS, _YEAR_DAYS):
            fact = _latest(pool, span)
            if fact and (cutoff - fact.period_end).days <= STALE_DAYS:
                out[(fact.concept, fact.period_start, fact.period_end, fact.accession_number, fact.value)] = (
                    fact
                )
    return sorted(out.values(), key=lambda f: (_days(f), f.period_end, f.filed))


def _label(fact: Fact, metric: _Metric) -> str:
    if metric == "revenue":
        return "Revenues"
    return "diluted EPS" if "Diluted" in fact.concept else "basic EPS" if "Basic" in fact.concept else "EPS"


def _period(fact: Fact) -> str:
    kind = "quarter" if _QUARTER_DAYS[0] <= _days(fact) <= _QUARTER_DAYS[1] else "fiscal year"
    start = fact.period_start.isoformat() if fact.period_start else "?"
    return f"{kind} {start}..{fact.period_end.isoformat()}"


def _filed(fact: Fact) -> str:
    return f"{fact.form or 'filing'} filed {fact.filed.isoformat()}"


def _amount(fact: Fact) -> str:
    return f"{_num(fact.value)} {fact.unit}"


def _describe(fact: Fact, metric: _Metric) -> str:
    return f"XBRL {_label(fact, metric)} for the {_period(fact)} ({_filed(fact)}): {_amount(fact)}"


def _why_none(facts: Sequence[Fact], metric: _Metric, cutoff: date) -> str:
    if not facts:
        return f"XBRL {metric} facts were unavailable"
    pool = [f for f in _usable(facts, metric, cutoff) if _days(f) > 0]
    if not pool:
        return (
            f"no XBRL {metric} fact in {_UNITS[metric]} for a period filed on or before {cutoff.isoformat()}"
        )
    newest = max(f.period_end for f in pool)
    return f"the latest XBRL {metric} period ends {newest.isoformat()}, too old to check a current claim"


def _check_figure(
    claim: SocialClaim, metric: _Metric, facts: Sequence[Fact], cutoffs: list[date], tol: float
) -> Divergence | None:
    if claim.value is None:
        return _verdict(claim, "unsupported", "The post states no figure to check.")
    found = _candidates(facts, metric, cutoffs)
    if not found:
        return _verdict(claim, "unsupported", f"Not checked: {_why_none(facts, metric, cutoffs[-1])}.")
    if any(f.value and abs(claim.value - f.value) <= tol * abs(f.value) for f in found):
        return None
    shown = "; ".join(_describe(f, metric) for f in found)
    text = (
        f"The post says {_num(claim.value)} {_UNITS[metric]}; {shown}; none is within {tol * 100:g}% of it."
    )
    return _verdict(claim, "contradicted", text, [_cite_fact(f) for f in found])


def _year_before(fact: Fact, pool: Sequence[Fact]) -> Fact | None:
    target = _before(fact.period_end, 365)
    prior = [
        f
        for f in pool
        if abs((f.period_end - target).days) <= _YOY_SLACK_DAYS
        and abs(_days(f) - _days(fact)) <= 15
        and f.value > 0
    ]
    return max(prior, key=lambda f: (f.accession_number == fact.accession_number, f.filed), default=None)


def _check_growth(
    claim: SocialClaim, facts: Mapping[str, Sequence[Fact]], cutoffs: list[date], pp: float
) -> Divergence | None:
    metrics: list[_Metric] = [claim.metric] if claim.metric else ["revenue", "eps"]
    if claim.value is None:
        return _verdict(claim, "unsupported", "The post states no growth figure to check.")
    rows: list[tuple[float, str, list[str]]] = []
    reasons: list[str] = []
    for metric in metrics:
        given = list(facts.get(metric) or ())
        found = _candidates(given, metric, cutoffs)
        if not found:
            reasons.append(_why_none(given, metric, cutoffs[-1]))
        for fact in found:
            prior = _year_before(fact, _usable(given, metric, fact.filed))
            if prior is None:
                reasons.append(f"no {metric} fact for the period a year before the {_period(fact)}")
                continue
            growth = (fact.value - prior.value) / prior.value * 100
            text = (
                f"XBRL {_label(fact, metric)} {_period(fact)} {_amount(fact)} ({_filed(fact)}) vs "
                f"{_period(prior)} {_amount(prior)} ({_filed(prior)}): "
                f"{growth:.1f}% year over year (computed)"
            )
            rows.append((growth, text, [_cite_fact(fact), _cite_fact(prior)]))
    if not rows:
        return _verdict(claim, "unsupported", f"Not checked: {'; '.join(_unique(reasons))}.")
    if any(abs(claim.value - growth) <= pp for growth, _, _ in rows):
        return None
    said = f"The post says {_num(claim.value)}% growth"
    shown = "; ".join(text for _, text, _ in rows)
    cites = [c for _, _, cs in rows for c in cs]
    if claim.metric is None:
        text = f"{said} without saying of what; {shown}; none is within {pp:g} percentage points of it."
        return _verdict(claim, "unsupported", text, cites)
    return _verdict(
        claim, "contradicted", f"{said}; {shown}; none is within {pp:g} percentage points.", cites
    )


def find_divergences(
    claims: Sequence[SocialClaim],
    events: Sequence[MaterialEvent],
    facts: Mapping[str, Sequence[Fact]],
    *,
    as_of: date,
    window_days: int = 120,
    tolerance: float = 0.05,
    growth_tolerance_pp: float = GROWTH_TOLERANCE_PP,
) -> list[Divergence]:
    """Claims the filings do not back (see the module table), in claim order."""
    out: list[Divergence] = []
    window_days, tolerance, pp = max(0, window_days), abs(tolerance), abs(growth_tolerance_pp)
    for claim in claims:
        day = min(claim.published_at.date(), as_of)
        cutoffs = sorted({day, as_of})
        result: Divergence | None
        if claim.kind in _ITEMS:
            result = _check_event(claim, events, day, as_of, window_days)
        elif claim.kind == "growth":
            result = _check_growth(claim, facts, cutoffs, pp)
        else:
            metric: _Metric = "revenue" if claim.kind == "revenue" else "eps"
            result = _check_figure(claim, metric, list(facts.get(metric) or ()), cutoffs, tolerance)
        if result is not None:
            out.append(result)
    return out
