"""Social claims checked against 8-K items and XBRL facts: one verdict per claim, of four.

Rules this module keeps: pure (claims, filings and ``as_of`` come in as arguments); never raises; only
filings filed on or before ``as_of`` count; every claim gets exactly one ``ClaimCheck``, in claim order.
Reported figures are printed exactly as filed; computed growth is printed to one decimal and said to be
computed. The claim date is the post's own date, capped at ``as_of``; the event window is
[claim date - window_days, as_of].

Verdicts:
- ``contradicted``: the filings cover what the claim is about and say otherwise (both sides cited).
- ``consistent``: the filings agree; the statement names the filing and period that matched.
- ``not_checkable``, with a reason: ``no_data`` (no 8-K list or no XBRL facts for the company, or the
  kind of event is not something 8-Ks must report), ``period_not_reported`` (the period the claim is
  about has no reported figure in the data), ``not_about_company`` (the sentence is about another
  company), ``metric_not_named`` (growth without saying of what, and no figure fits).
- ``not_a_claim``: a wish, a meme caption, sarcasm or a question (``SocialClaim.not_a_claim``).
Missing data is never a divergence.

Events. The 8-K record "covers" the window when it lists an 8-K filed on or before the window start
(so the list reaches back past the window; a list cut by its limit inside the window does not cover it).

  claim kind              consistent when filed in the window          no item, record covers window
  ----------------------  -------------------------------------------  ---------------------------------
  bankruptcy              Item 1.03                                    contradicted (must be filed
                                                                       within 4 business days)
  buyout, merger          Item 1.01 or 2.01 (8.01: see below)          contradicted (a material
                                                                       agreement must be filed)
  earnings_beat/_miss,    Item 2.02 (results released; a beat, miss    contradicted (no results
  guidance                or guidance is not in the item titles)       released in the window)
  offering                Item 3.02 or 1.01 (8.01: see below)          not_checkable: no_data
  split                   Item 5.03 (8.01: see below)                  not_checkable: no_data
  fda_approval            Item 7.01 or 8.01 (see below)                not_checkable: no_data
  (Items 7.01 and 8.01 are catch-alls: they back a claim only when filed at most 14 days before it.
  Offerings, splits and FDA approvals need no 8-K, so no 8-K is no evidence against them.)
  any                     -                                            record empty or not reaching
                                                                       back to the window start:
                                                                       not_checkable: no_data

Figures (revenue, EPS, growth; ``claim_periods`` reads the period the claim names):
  situation                                                  verdict
  ---------------------------------------------------------  ---------------------------------------
  no XBRL facts for the metric                               not_checkable: no_data
  "adjusted" / "non-GAAP" EPS (not an XBRL figure)           not_checkable: no_data
  period named, none of its figures reported by ``as_of``    not_checkable: period_not_reported
  period not named, no quarter or year ended in the 400      not_checkable: period_not_reported
  days before the post
  a candidate period fits                                    consistent, naming the best-fitting one
  no candidate fits (revenue/EPS within ``tolerance``,       contradicted, listing every candidate
  default 5% relative; growth within GROWTH_TOLERANCE_PP,
  2 percentage points, of the year-over-year growth
  computed against the same-length period a year earlier)
  growth of an unnamed metric, none fits (revenue and EPS    not_checkable: metric_not_named
  both tried)
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from findesk.analytics.claim_periods import (
    days,
    describe_period,
    named_periods,
    per_period,
    periods_for,
    year_end_month,
)
from findesk.analytics.social_claims import SocialClaim
from findesk.data.formats.sec import fact_link
from findesk.data.formats.sec_forms import EIGHT_K_ITEMS
from findesk.data.models import Fact, MaterialEvent

GROWTH_TOLERANCE_PP = 2.0
TOLERANCE = 0.05
_YOY_SLACK_DAYS = 20

Verdict = Literal["contradicted", "consistent", "not_checkable", "not_a_claim"]
Reason = Literal["no_data", "period_not_reported", "not_about_company", "metric_not_named"]
VERDICTS: tuple[Verdict, ...] = ("contradicted", "consistent", "not_checkable", "not_a_claim")
REASON_TEXT: dict[Reason, str] = {
    "no_data": "no data",
    "period_not_reported": "period not reported",
    "not_about_company": "not about this company",
    "metric_not_named": "does not say what grew",
}

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
# Why a missing item contradicts the claim; kinds not listed need no 8-K, so absence proves nothing.
_AGREEMENT = "a material merger or acquisition agreement must be filed on Form 8-K within four business days"
_REQUIRED = {
    "bankruptcy": "a bankruptcy or receivership must be reported on Form 8-K within four business days",
    "buyout": _AGREEMENT,
    "merger": _AGREEMENT,
    "earnings_beat": "so no quarterly results were released in the window",
    "earnings_miss": "so no quarterly results were released in the window",
    "guidance": "so no quarterly results (where guidance is given) were released in the window",
}
# "Other Events" and "Regulation FD Disclosure" can be about anything: only timing ties one to a claim.
_CATCH_ALL = ("7.01", "8.01")
CATCH_ALL_DAYS = 14
_EARNINGS_NOTE = "; filings show that results were released, not whether they beat or missed consensus"
_UNITS = {"revenue": "USD", "eps": "USD/shares"}
_ADJUSTED = re.compile(r"\b(?:adjusted|non-gaap|core|pro forma)\b", re.IGNORECASE)
_Metric = Literal["revenue", "eps"]


class OfficialSide(BaseModel):
    """What the filings show about a claim, with its citations."""

    model_config = ConfigDict(frozen=True)

    statement: str  # e.g. "No 8-K with Item 1.01 or 2.01 filed 2025-06-01..2025-08-29"
    citations: list[str] = Field(default_factory=list)  # EDGAR URLs (or snapshot refs) backing it


class ClaimCheck(BaseModel):
    """One claim and its verdict; ``reason`` is set exactly when the verdict is ``not_checkable``."""

    model_config = ConfigDict(frozen=True)

    claim: SocialClaim
    verdict: Verdict
    reason: Reason | None = None
    official: OfficialSide


def verdict_counts(checks: Sequence[ClaimCheck]) -> dict[str, int]:
    """How many checks have each verdict (every verdict present, zero included)."""
    found = Counter(c.verdict for c in checks)
    return {v: found.get(v, 0) for v in VERDICTS}


def reason_counts(checks: Sequence[ClaimCheck]) -> dict[Reason, int]:
    """How many ``not_checkable`` checks have each reason (only reasons that occur)."""
    return dict(Counter(c.reason for c in checks if c.verdict == "not_checkable" and c.reason))


def _num(value: float) -> str:
    return f"{int(value):,}" if value.is_integer() and abs(value) < 1e18 else f"{value:,}"


def _before(day: date, days_back: int) -> date:
    """``day`` minus ``days_back``, floored at the first representable date instead of overflowing."""
    return day - timedelta(days=days_back) if (day - date.min).days > days_back else date.min


def _unique(items: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _check(
    claim: SocialClaim, verdict: Verdict, text: str, cites: Sequence[str] = (), reason: Reason | None = None
) -> ClaimCheck:
    official = OfficialSide(statement=text, citations=_unique(cites))
    return ClaimCheck(claim=claim, verdict=verdict, reason=reason, official=official)


def _not_checkable(claim: SocialClaim, reason: Reason, text: str, cites: Sequence[str] = ()) -> ClaimCheck:
    return _check(claim, "not_checkable", text, cites, reason)


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
) -> ClaimCheck:
    wanted = _ITEMS[claim.kind]
    specific = [i for i in wanted if i not in _CATCH_ALL]
    catch_all = [i for i in wanted if i in _CATCH_ALL]
    start, near = _before(day, window_days), max(_before(day, CATCH_ALL_DAYS), _before(day, window_days))
    window = f"{start.isoformat()}..{as_of.isoformat()}"
    record = [e for e in events if e.filing_date <= as_of]
    seen = [e for e in record if start <= e.filing_date]
    note = _EARNINGS_NOTE if claim.kind in ("earnings_beat", "earnings_miss", "guidance") else ""
    hits = [e for e in seen if _item(e) in specific or (_item(e) in catch_all and e.filing_date >= near)]
    if hits:
        listed, cites = _filings_listed(hits)
        return _check(claim, "consistent", f"Filed in the window {window}: {'; '.join(listed)}{note}.", cites)
    if not record:
        return _not_checkable(
            claim,
            "no_data",
            f"No 8-K on record on or before {as_of.isoformat()}: the data has no 8-K list here.",
        )
    looked = [f"Item {_item_list(specific)} filed {window}"] if specific else []
    if catch_all:
        looked.append(
            f"Item {_item_list(catch_all)} filed {near.isoformat()}..{as_of.isoformat()} (a catch-all item "
            f"counts only when filed at most {CATCH_ALL_DAYS} days before the claim)"
        )
    listed, cites = _filings_listed(seen)
    found = f"8-Ks filed {window}: " + "; ".join(listed) if listed else f"no 8-K filed {window} is on record"
    text = f"No 8-K with {', nor with '.join(looked)}; {found}"
    oldest = min(e.filing_date for e in record)
    if oldest > start:
        return _not_checkable(
            claim,
            "no_data",
            f"{text}; the 8-K record on hand starts {oldest.isoformat()}, after the window start.",
            cites,
        )
    why = _REQUIRED.get(claim.kind)
    if why is None:
        return _not_checkable(
            claim, "no_data", f"{text}; 8-Ks need not report a {claim.kind.replace('_', ' ')}.", cites
        )
    return _check(claim, "contradicted", f"{text}; {why}.", cites)


# --- facts --------------------------------------------------------------------------------------


def _usable(facts: Sequence[Fact], metric: _Metric) -> list[Fact]:
    return [f for f in facts if f.unit == _UNITS[metric] and math.isfinite(f.value)]


def _label(fact: Fact, metric: _Metric) -> str:
    if metric == "revenue":
        return "revenue"
    return "diluted EPS" if "Diluted" in fact.concept else "basic EPS" if "Basic" in fact.concept else "EPS"


def _filed(fact: Fact) -> str:
    return f"{fact.form or 'filing'} filed {fact.filed.isoformat()}"


def _amount(fact: Fact) -> str:
    return f"{_num(fact.value)} {fact.unit}"


class _Scope:
    """The periods one figure claim is about, for one metric."""

    def __init__(self, claim: SocialClaim, facts: Sequence[Fact], metric: _Metric, day: date, as_of: date):
        self.metric = metric
        self.given = _usable(facts, metric)
        self.fy_month = year_end_month(self.given)
        self.pool = per_period(self.given, as_of)
        self.named = named_periods(claim.text)
        self.found = periods_for(self.named, self.pool, day, self.fy_month)

    def about(self) -> str:
        if self.named:
            return "The post names " + ", ".join(f"“{p.text}”" for p in self.named)
        return "The post names no period, so the periods ended in the 400 days before it were tried"

    def describe(self, fact: Fact) -> str:
        period = describe_period(fact, self.fy_month)
        return f"XBRL {_label(fact, self.metric)} for {period} ({_filed(fact)}): {_amount(fact)}"

    def missing(self, as_of: date) -> str:
        what = "it" if self.named else "such a period"
        return f"{self.about()}; no XBRL {self.metric} figure for {what} was filed by {as_of.isoformat()}"


def _check_figure(
    claim: SocialClaim, metric: _Metric, facts: Sequence[Fact], day: date, as_of: date, tol: float
) -> ClaimCheck:
    if claim.value is None:
        return _not_checkable(claim, "no_data", "The post states no figure to check.")
    if metric == "eps" and _ADJUSTED.search(claim.text):
        return _not_checkable(
            claim, "no_data", "Adjusted (non-GAAP) EPS is not an XBRL figure; filings tag GAAP EPS."
        )
    scope = _Scope(claim, facts, metric, day, as_of)
    if not scope.given:
        return _not_checkable(claim, "no_data", f"Not checked: XBRL {metric} facts were unavailable.")
    if not scope.found:
        return _not_checkable(claim, "period_not_reported", f"Not checked: {scope.missing(as_of)}.")
    said = f"The post says {_num(claim.value)} {_UNITS[metric]}"
    fitting = [f for f in scope.found if f.value and abs(claim.value - f.value) <= tol * abs(f.value)]
    if fitting:
        best = min(fitting, key=lambda f: abs(claim.value - f.value) / abs(f.value))  # type: ignore[operator]
        text = f"{said}; it matches {scope.describe(best)} (within {tol * 100:g}%)."
        return _check(claim, "consistent", text, [fact_link(best)])
    shown = "; ".join(scope.describe(f) for f in scope.found)
    text = f"{said}. {scope.about()}: {shown}; none is within {tol * 100:g}% of it."
    return _check(claim, "contradicted", text, [fact_link(f) for f in scope.found])


def _year_before(fact: Fact, given: Sequence[Fact]) -> Fact | None:
    target = _before(fact.period_end, 365)
    prior = [
        f
        for f in given
        if f.filed <= fact.filed
        and abs((f.period_end - target).days) <= _YOY_SLACK_DAYS
        and abs(days(f) - days(fact)) <= 15
        and f.value > 0
    ]
    return max(prior, key=lambda f: (f.accession_number == fact.accession_number, f.filed), default=None)


def _growth_rows(scope: _Scope) -> list[tuple[float, str, list[str]]]:
    rows = []
    for fact in scope.found:
        prior = _year_before(fact, scope.given)
        if prior is None:
            continue
        growth = (fact.value - prior.value) / prior.value * 100
        text = (
            f"XBRL {_label(fact, scope.metric)} for {describe_period(fact, scope.fy_month)} {_amount(fact)} "
            f"({_filed(fact)}) vs {describe_period(prior, scope.fy_month)} {_amount(prior)} "
            f"({_filed(prior)}): {growth:.1f}% year over year (computed)"
        )
        rows.append((growth, text, [fact_link(fact), fact_link(prior)]))
    return rows


def _check_growth(
    claim: SocialClaim, facts: Mapping[str, Sequence[Fact]], day: date, as_of: date, pp: float
) -> ClaimCheck:
    if claim.value is None:
        return _not_checkable(claim, "no_data", "The post states no growth figure to check.")
    metrics: list[_Metric] = [claim.metric] if claim.metric else ["revenue", "eps"]
    scopes = [_Scope(claim, facts.get(m) or (), m, day, as_of) for m in metrics]
    if not any(s.given for s in scopes):
        return _not_checkable(
            claim, "no_data", f"Not checked: XBRL {' and '.join(metrics)} facts were unavailable."
        )
    rows = [row for s in scopes for row in _growth_rows(s)]
    if not rows:
        why = "; ".join(_unique([s.missing(as_of) if not s.found else "" for s in scopes if s.given]))
        why = why.strip("; ") or f"{scopes[0].about()}; no year-earlier figure to compute growth from"
        return _not_checkable(claim, "period_not_reported", f"Not checked: {why}.")
    said = f"The post says {_num(claim.value)}% growth"
    fitting = [r for r in rows if abs(claim.value - r[0]) <= pp]
    if fitting:
        _, text, cites = min(fitting, key=lambda r: abs(claim.value - r[0]))  # type: ignore[operator]
        return _check(
            claim, "consistent", f"{said}; it matches {text} (within {pp:g} percentage points).", cites
        )
    shown = "; ".join(text for _, text, _ in rows)
    cites = [c for _, _, cs in rows for c in cs]
    if claim.metric is None:
        text = f"{said} without saying of what; {shown}; none is within {pp:g} percentage points of it."
        return _not_checkable(claim, "metric_not_named", text, cites)
    text = f"{said}. {scopes[0].about()}: {shown}; none is within {pp:g} percentage points."
    return _check(claim, "contradicted", text, cites)


def check_claims(
    claims: Sequence[SocialClaim],
    events: Sequence[MaterialEvent],
    facts: Mapping[str, Sequence[Fact]],
    *,
    as_of: date,
    window_days: int = 120,
    tolerance: float = TOLERANCE,
    growth_tolerance_pp: float = GROWTH_TOLERANCE_PP,
) -> list[ClaimCheck]:
    """One verdict per claim (see the module tables), in claim order."""
    out: list[ClaimCheck] = []
    window_days, tolerance, pp = max(0, window_days), abs(tolerance), abs(growth_tolerance_pp)
    for claim in claims:
        day = min(claim.published_at.date(), as_of)
        if claim.not_a_claim:
            out.append(_check(claim, "not_a_claim", f"Not a factual claim: {claim.not_a_claim}."))
        elif claim.about_other:
            text = f"The sentence is about {claim.about_other}, not this company."
            out.append(_not_checkable(claim, "not_about_company", text))
        elif claim.kind in _ITEMS:
            out.append(_check_event(claim, events, day, as_of, window_days))
        elif claim.kind == "growth":
            out.append(_check_growth(claim, facts, day, as_of, pp))
        else:
            metric: _Metric = "revenue" if claim.kind == "revenue" else "eps"
            out.append(_check_figure(claim, metric, list(facts.get(metric) or ()), day, as_of, tolerance))
    return out


def contradiction_sentence(checks: Sequence[ClaimCheck]) -> str | None:
    """The summary's sentence on the checks: only contradictions are divergences (None: no claims)."""
    if not checks:
        return None
    counts = verdict_counts(checks)
    n, total = counts["contradicted"], len(checks)
    if n:
        return f"{n} social claim{'s' if n > 1 else ''} contradicted by the filings ({total} checked)."
    rest = ", ".join(f"{counts[v]} {v.replace('_', ' ')}" for v in VERDICTS[1:] if counts[v])
    return f"No social claim is contradicted by the filings ({total} checked: {rest})."
