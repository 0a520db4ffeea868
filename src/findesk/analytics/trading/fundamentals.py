"""The fundamentals analyst's maths: quarterly figures from XBRL or yfinance, trailing-twelve-month
trends over up to 8 quarters, peer ranking, and the scored signals.

Pure: facts, quarters, returns and ratios come in as arguments; nothing is read here.

Quarters (``xbrl_quarters``, ``yfinance_quarters``):
- XBRL follows ``analytics.key_figures``' rule: facts filed on or before ``as_of`` only; per period the
  most preferred concept that reports it (revenue: ``key_figures.CONCEPTS``; capex:
  ``PaymentsToAcquirePropertyPlantAndEquipment`` then ``PaymentsToAcquireProductiveAssets``), and
  within it the newest filing; a period's kind comes from its length (80-100 days is a quarter).
- A quarter no filing reports as such is derived from two year-to-date periods with the same start
  whose ends are one quarter apart (fiscal Q4 = fiscal year - 9-month year to date; cash-flow Q2 =
  6 months - 3 months …). Every derived value is stated in the quarter's ``notes``. A quarter counts
  as known from the latest filing date among its inputs.
- Balance-sheet figures are the instant at the quarter end: equity ``StockholdersEquity``; debt
  ``LongTermDebt`` (current portion included), else ``LongTermDebtNoncurrent`` + ``LongTermDebtCurrent``
  (both required), plus ``CommercialPaper`` when reported at that instant.
- yfinance quarters are taken as the data layer gives them (already point in time; the quarter counts
  as known from ``visible_from``). They carry no cash flow, so free cash flow is None with the reason.

TTM points (``ttm_trends``), newest first, at most ``MAX_POINTS``:
- A point needs 4 consecutive quarters (ends 80-100 days apart). A flow with a missing quarter takes
  the fiscal year ending at the point's quarter end when one is reported (``key_figures`` rule 5),
  else it is None.
- Revenue growth = TTM revenue / the TTM revenue of the point 4 quarters earlier - 1. Margins = TTM
  operating (net) income / TTM revenue. ROE = TTM net income / the mean equity reported at the 4
  quarter ends and the quarter end before the window (at least 2 of those 5). Debt/equity = debt /
  equity at the point's quarter end (None when equity is not positive). FCF = TTM operating cash flow
  - TTM capex. A figure that cannot be computed is None, with the reason in ``missing``; never 0.

Signals (``fundamental_signals``; id ``fundamentals.<key>``, score in [-2, +2], weight in brackets):
- revenue_growth [1.5]: latest TTM growth ≥ 20% +1, ≥ 5% +0.5, > -5% 0, else -1; accelerating (growth
  up ≥ 2 pp on the previous quarter's TTM growth) +0.5, decelerating (down ≥ 2 pp) -0.5.
- margin_trend [1.0]: TTM operating margin vs 4 quarters earlier: ≥ +2 pp +1, ≥ +0.5 pp +0.5,
  ≤ -2 pp -1, ≤ -0.5 pp -0.5, else 0.
- profitability [0.5]: TTM net margin ≥ 20% +0.5, < 0% -1, else 0.
- roe [1.0]: ROE ≥ 20% +1, ≥ 10% +0.5, ≥ 0% 0, < 0% -1.
- leverage [0.75]: debt/equity ≤ 0.5 +0.5, ≤ 1.5 0, ≤ 3 -0.5, > 3 or equity not positive -1.
- fcf [0.75]: FCF margin (TTM FCF / TTM revenue) ≥ 15% +1, FCF > 0 +0.5, FCF < 0 -1.
- valuation_vs_peers [0.75]: P/E (else P/S) against the median of ≥ ``MIN_PEERS`` sub-industry peers
  with a positive ratio: premium ≤ -20% +0.5, ≥ +50% -1, ≥ +20% -0.5, else 0.
- sector_alpha [1.0]: 3M alpha vs the sector ETF ≥ +15 pp +1, ≥ +5 pp +0.5, ≤ -15 pp -1, ≤ -5 pp
  -0.5, else 0; a 6M alpha of the same sign and ≥ 5 pp adds ±0.5 (total within ±1.5).
A signal whose inputs are missing is not emitted (the report's warnings say why).

Peer ranks (``rank_peers``): 1 = best; returns rank high-to-low, P/E and P/S low-to-high with only
positive ratios ranked; a member without the metric is not ranked on it.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from findesk.analytics import key_figures
from findesk.analytics.key_figures import days, period_kind
from findesk.analytics.trading.sector_etf import RelativePerf
from findesk.analytics.trading.signals import Signal
from findesk.data.models import Fact
from findesk.data.models.fundamentals import FundamentalQuarter

MAX_POINTS = 8
QUARTER_GAP = (80, 100)
MIN_PEERS = 3
Source = Literal["xbrl", "yfinance"]
FlowMetric = Literal["revenue", "operating_income", "net_income", "operating_cash_flow", "capex"]

FLOW_CONCEPTS: dict[FlowMetric, tuple[str, ...]] = {
    "revenue": key_figures.CONCEPTS["revenue"],
    "operating_income": ("OperatingIncomeLoss",),
    "net_income": ("NetIncomeLoss",),
    "operating_cash_flow": ("NetCashProvidedByUsedInOperatingActivities",),
    "capex": ("PaymentsToAcquirePropertyPlantAndEquipment", "PaymentsToAcquireProductiveAssets"),
}
EQUITY_CONCEPTS = ("StockholdersEquity",)
DEBT_CONCEPTS = ("LongTermDebt", "LongTermDebtNoncurrent", "LongTermDebtCurrent", "CommercialPaper")
XBRL_CONCEPTS: tuple[str, ...] = tuple(
    dict.fromkeys([*itertools.chain.from_iterable(FLOW_CONCEPTS.values()), *EQUITY_CONCEPTS, *DEBT_CONCEPTS])
)
RANK_METRICS: dict[str, Literal["high", "low"]] = {
    "return_3m_pct": "high",
    "return_6m_pct": "high",
    "pe": "low",
    "ps": "low",
}


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Quarter(Model):
    """One fiscal quarter's figures from one source (USD); None where the source has no value."""

    start: date | None = None
    end: date
    filed: date | None = None  # when the quarter's figures became known
    revenue: float | None = None
    operating_income: float | None = None
    net_income: float | None = None
    operating_cash_flow: float | None = None
    capex: float | None = None
    equity: float | None = None
    debt: float | None = None
    # flows of a fiscal year ending at this quarter end, as reported: the TTM when a quarter is missing
    fiscal_year: dict[str, float] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)  # how derived values were obtained


class TtmPoint(Model):
    """One TTM point (``agents.roles.trading.models`` re-exports it for the fundamentals report)."""

    quarter_end: date
    filed: date | None = None
    revenue_ttm: float | None = None
    revenue_growth_yoy_pct: float | None = None
    net_income_ttm: float | None = None
    operating_margin_pct: float | None = None
    net_margin_pct: float | None = None
    roe_pct: float | None = None
    debt_to_equity: float | None = None
    fcf_ttm: float | None = None


class Trends(Model):
    source: Source
    points: list[TtmPoint]  # newest first
    quarters_used: list[date]  # quarter ends feeding the points, newest first
    growth_change_pp: float | None = None  # latest TTM growth minus the previous quarter's
    operating_margin_change_pp: float | None = None  # latest TTM operating margin minus 4 quarters earlier
    fcf_margin_pct: float | None = None  # latest TTM FCF / TTM revenue
    missing: list[str] = Field(default_factory=list)  # why a latest figure is None
    notes: list[str] = Field(default_factory=list)  # derivations of the quarters used


class ValuationGap(Model):
    metric: Literal["pe", "ps"]
    value: float
    peer_median: float
    peers: int  # peers with a positive ratio, the company excluded
    premium_pct: float  # value / peer median - 1, percent


class PeerRanking(Model):
    ranks: dict[str, int] = Field(default_factory=dict)  # metric -> 1-based rank of the company
    counts: dict[str, int] = Field(default_factory=dict)  # metric -> members ranked, company included
    members: int = 0  # members with any ranked metric, company included


# --- quarters from XBRL ----------------------------------------------------------------------------

Period = tuple[date, date]


def _series(facts: Iterable[Fact], concepts: Sequence[str], as_of: date) -> dict[Period, Fact]:
    """Duration facts in USD filed by ``as_of``: per period the preferred concept's newest filing."""
    rank = {c: i for i, c in enumerate(concepts)}
    usable = [
        f
        for f in facts
        if f.concept in rank and f.unit == "USD" and f.filed <= as_of and f.period_start is not None
    ]
    best: dict[Period, int] = {}
    for f in usable:
        assert f.period_start is not None
        key = (f.period_start, f.period_end)
        best[key] = min(best.get(key, len(rank)), rank[f.concept])
    out: dict[Period, Fact] = {}
    for f in sorted(usable, key=lambda f: f.filed):  # later filings replace earlier ones
        assert f.period_start is not None
        key = (f.period_start, f.period_end)
        if rank[f.concept] == best[key]:
            out[key] = f
    return out


def _instants(facts: Iterable[Fact], concept: str, as_of: date) -> dict[date, Fact]:
    out: dict[date, Fact] = {}
    kept = (f for f in facts if f.concept == concept and f.unit == "USD" and f.filed <= as_of)
    for f in sorted(kept, key=lambda f: f.filed):
        if f.period_start is None:
            out[f.period_end] = f
    return out


def _num(value: float) -> str:
    return f"{value:,.0f}"


def _quarters_of(
    values: Mapping[Period, Fact], label: str
) -> dict[date, tuple[date, float, date, str | None]]:
    """Quarter end -> (start, value, filed, derivation note): reported quarters, then derived ones."""
    out: dict[date, tuple[date, float, date, str | None]] = {}
    for f in values.values():
        if period_kind(f) == "quarter" and f.period_start is not None:
            out[f.period_end] = (f.period_start, f.value, f.filed, None)
    by_start: dict[date, list[Fact]] = {}
    for f in values.values():
        if f.period_start is not None:
            by_start.setdefault(f.period_start, []).append(f)
    for group in by_start.values():
        for shorter, longer in itertools.permutations(sorted(group, key=lambda f: f.period_end), 2):
            gap = (longer.period_end - shorter.period_end).days
            if days(longer) <= QUARTER_GAP[1] or not QUARTER_GAP[0] <= gap <= QUARTER_GAP[1]:
                continue
            if longer.period_end in out:
                continue  # a reported quarter always wins over a derived one
            start = shorter.period_end + timedelta(days=1)
            note = (
                f"{label} {start.isoformat()}..{longer.period_end.isoformat()} derived: "
                f"{_num(longer.value)} ({shorter.period_start}..{longer.period_end}) - "
                f"{_num(shorter.value)} ({shorter.period_start}..{shorter.period_end})"
            )
            out[longer.period_end] = (
                start,
                longer.value - shorter.value,
                max(longer.filed, shorter.filed),
                note,
            )
    return out


def _debt_at(debt: Mapping[str, Mapping[date, Fact]], end: date) -> tuple[float | None, date | None]:
    total = debt["LongTermDebt"].get(end)
    parts = (
        [total]
        if total is not None
        else [debt["LongTermDebtNoncurrent"].get(end), debt["LongTermDebtCurrent"].get(end)]
    )
    if any(p is None for p in parts):
        return None, None
    found = [p for p in parts if p is not None]
    paper = debt["CommercialPaper"].get(end)
    if paper is not None:
        found.append(paper)
    return sum(f.value for f in found), max(f.filed for f in found)


def xbrl_quarters(facts: Sequence[Fact], as_of: date) -> list[Quarter]:
    """Quarters (newest first) from a company's facts of ``XBRL_CONCEPTS``, filed by ``as_of``."""
    series = {m: _series(facts, c, as_of) for m, c in FLOW_CONCEPTS.items()}
    flows = {m: _quarters_of(series[m], m.replace("_", " ")) for m in FLOW_CONCEPTS}
    years: dict[date, dict[str, Fact]] = {}
    for m, periods in series.items():
        for f in periods.values():
            if period_kind(f) == "year":
                years.setdefault(f.period_end, {})[m] = f
    equity = _instants(facts, EQUITY_CONCEPTS[0], as_of)
    debt = {c: _instants(facts, c, as_of) for c in DEBT_CONCEPTS}
    out: list[Quarter] = []
    for end in sorted(flows["revenue"], reverse=True):
        start, _, _, _ = flows["revenue"][end]
        values: dict[str, Any] = {}
        filed: list[date] = []
        notes: list[str] = []
        for metric, quarters in flows.items():
            got = quarters.get(end)
            if got is None or abs((got[0] - start).days) > 7:
                values[metric] = None
                continue
            values[metric] = got[1]
            filed.append(got[2])
            if got[3]:
                notes.append(got[3])
        fiscal_year = {m: f.value for m, f in years.get(end, {}).items()}
        filed += [f.filed for f in years.get(end, {}).values()]
        eq = equity.get(end)
        debt_value, debt_filed = _debt_at(debt, end)
        filed += [d for d in (eq.filed if eq else None, debt_filed) if d is not None]
        out.append(
            Quarter(
                start=start,
                end=end,
                filed=max(filed),
                equity=eq.value if eq else None,
                debt=debt_value,
                fiscal_year=fiscal_year,
                notes=notes,
                **values,
            )
        )
    return out


def yfinance_quarters(quarters: Sequence[FundamentalQuarter]) -> list[Quarter]:
    """The data layer's quarters (already point in time), newest first, with no cash flow."""
    return [
        Quarter(
            end=q.quarter_end,
            filed=q.visible_from,
            revenue=q.total_revenue,
            operating_income=q.operating_income,
            net_income=q.net_income,
            equity=q.stockholders_equity,
            debt=q.total_debt,
        )
        for q in sorted(quarters, key=lambda q: q.quarter_end, reverse=True)
    ]


# --- TTM -----------------------------------------------------------------------------------------


def _consecutive(window: Sequence[Quarter]) -> bool:
    return all(
        QUARTER_GAP[0] <= (newer.end - older.end).days <= QUARTER_GAP[1]
        for newer, older in itertools.pairwise(window)
    )


def _total(window: Sequence[Quarter], field: str) -> float | None:
    """The sum of the 4 quarters; with a quarter missing, the fiscal year ending at the window's end."""
    values = [getattr(q, field) for q in window]
    if any(v is None for v in values):
        return window[0].fiscal_year.get(field)
    return float(sum(values))


def _pct(top: float | None, bottom: float | None) -> float | None:
    return None if top is None or bottom is None or bottom <= 0 else top / bottom * 100


def _point(quarters: Sequence[Quarter], i: int) -> TtmPoint | None:
    window = quarters[i : i + 4]
    if len(window) < 4 or not _consecutive(window):
        return None
    revenue = _total(window, "revenue")
    net = _total(window, "net_income")
    operating = _total(window, "operating_income")
    ocf, capex = _total(window, "operating_cash_flow"), _total(window, "capex")
    # the balance sheets at the window's quarter ends and at the quarter end just before it
    edges = list(window)
    if len(quarters) > i + 4 and _consecutive([window[-1], quarters[i + 4]]):
        edges.append(quarters[i + 4])
    bounding = [q.equity for q in edges if q.equity is not None]
    equity_now = window[0].equity
    roe = None
    if net is not None and equity_now is not None and len(bounding) >= 2:
        average = statistics.fmean(bounding)
        roe = net / average * 100 if average > 0 else None
    de = None
    if window[0].debt is not None and equity_now is not None and equity_now > 0:
        de = window[0].debt / equity_now
    return TtmPoint(
        quarter_end=window[0].end,
        filed=max((q.filed for q in window if q.filed), default=None),
        revenue_ttm=revenue,
        net_income_ttm=net,
        operating_margin_pct=_pct(operating, revenue),
        net_margin_pct=_pct(net, revenue),
        roe_pct=roe,
        debt_to_equity=de,
        fcf_ttm=None if ocf is None or capex is None else ocf - capex,
    )


def _year_earlier(points: Sequence[TtmPoint], point: TtmPoint) -> TtmPoint | None:
    target = point.quarter_end - timedelta(days=365)
    return next((p for p in points if abs((p.quarter_end - target).days) <= 20), None)


def _missing(source: Source, latest: TtmPoint, quarters: Sequence[Quarter]) -> list[str]:
    why: list[str] = []
    if latest.revenue_growth_yoy_pct is None:
        why.append("revenue growth: no TTM point 4 quarters earlier (8 consecutive quarters needed)")
    if latest.roe_pct is None:
        why.append(
            "ROE: no stockholders' equity in the yfinance quarterly data"
            if source == "yfinance" and all(q.equity is None for q in quarters)
            else "ROE: net income or at least 2 equity figures around the window are missing"
        )
    if latest.debt_to_equity is None:
        why.append(
            "debt/equity: no stockholders' equity in the yfinance quarterly data"
            if source == "yfinance" and all(q.equity is None for q in quarters)
            else "debt/equity: debt or a positive equity at the latest quarter end is missing"
        )
    if latest.fcf_ttm is None:
        why.append(
            "free cash flow: the yfinance quarterly data has no cash-flow statement"
            if source == "yfinance"
            else "free cash flow: operating cash flow or capex is missing for a quarter of the window"
        )
    return why


def ttm_trends(quarters: Sequence[Quarter], source: Source, max_points: int = MAX_POINTS) -> Trends | None:
    """TTM points (newest first) from quarters, or None when no 4 consecutive quarters exist."""
    ordered = sorted(quarters, key=lambda q: q.end, reverse=True)
    raw = [(i, p) for i in range(len(ordered)) if (p := _point(ordered, i)) is not None]
    all_points = [p for _, p in raw]
    points: list[TtmPoint] = []
    used: set[int] = set()
    for i, p in raw[:max_points]:
        used |= set(range(i, min(i + 5, len(ordered))))  # the window and the balance sheet before it
        prior = _year_earlier(all_points, p)
        growth = None
        if prior is not None and p.revenue_ttm is not None and prior.revenue_ttm is not None:
            growth = (p.revenue_ttm / prior.revenue_ttm - 1) * 100 if prior.revenue_ttm > 0 else None
            j = next(k for k, q in raw if q is prior)
            used |= set(range(j, j + 4))
        points.append(p.model_copy(update={"revenue_growth_yoy_pct": growth}))
    if not points:
        return None
    latest = points[0]
    prev = points[1] if len(points) > 1 else None
    year_ago = _year_earlier(points, latest)
    growth_change = None
    if (
        prev is not None
        and latest.revenue_growth_yoy_pct is not None
        and prev.revenue_growth_yoy_pct is not None
    ):
        growth_change = latest.revenue_growth_yoy_pct - prev.revenue_growth_yoy_pct
    margin_change = None
    if (
        year_ago is not None
        and latest.operating_margin_pct is not None
        and year_ago.operating_margin_pct is not None
    ):
        margin_change = latest.operating_margin_pct - year_ago.operating_margin_pct
    kept = [ordered[k] for k in sorted(used)]
    return Trends(
        source=source,
        points=points,
        quarters_used=[q.end for q in kept],
        growth_change_pp=growth_change,
        operating_margin_change_pp=margin_change,
        fcf_margin_pct=_pct(latest.fcf_ttm, latest.revenue_ttm),
        missing=_missing(source, latest, ordered),
        notes=[n for q in kept for n in q.notes],
    )


# --- peers -----------------------------------------------------------------------------------------


def rank_peers(symbol: str, table: Mapping[str, Mapping[str, float | None]]) -> PeerRanking:
    """The company's rank per metric among the members (itself included) that have the metric."""
    ranks: dict[str, int] = {}
    counts: dict[str, int] = {}
    ranked_members: set[str] = set()
    for metric, better in RANK_METRICS.items():
        values = {
            s: v
            for s, row in table.items()
            if (v := row.get(metric)) is not None and (better == "high" or v > 0)
        }
        if not values:
            continue
        ranked_members |= set(values)
        counts[metric] = len(values)
        if symbol in values:
            mine = values[symbol]
            ahead = sum(1 for v in values.values() if (v > mine if better == "high" else v < mine))
            ranks[metric] = ahead + 1
    return PeerRanking(ranks=ranks, counts=counts, members=len(ranked_members))


def valuation_gap(symbol: str, table: Mapping[str, Mapping[str, float | None]]) -> ValuationGap | None:
    """P/E (else P/S) of the company against the median of its peers' positive ratios."""
    for metric in ("pe", "ps"):
        mine = table.get(symbol, {}).get(metric)
        others = [
            v for s, row in table.items() if s != symbol and (v := row.get(metric)) is not None and v > 0
        ]
        if mine is None or mine <= 0 or len(others) < MIN_PEERS:
            continue
        median = statistics.median(others)
        return ValuationGap(
            metric="pe" if metric == "pe" else "ps",
            value=mine,
            peer_median=median,
            peers=len(others),
            premium_pct=(mine / median - 1) * 100,
        )
    return None


# --- signals ---------------------------------------------------------------------------------------


def _sig(key: str, text: str, score: float, weight: float) -> Signal:
    return Signal(id=f"fundamentals.{key}", analyst="fundamentals", text=text, score=score, weight=weight)


def _clamp(score: float, limit: float = 2.0) -> float:
    return max(-limit, min(limit, score))


def _growth_signal(t: Trends) -> Signal | None:
    g = t.points[0].revenue_growth_yoy_pct
    if g is None:
        return None
    score = 1.0 if g >= 20 else 0.5 if g >= 5 else 0.0 if g > -5 else -1.0
    text = f"TTM revenue growth {g:.1f}% year on year"
    d = t.growth_change_pp
    if d is not None:
        if d >= 2:
            score, text = score + 0.5, f"{text}, accelerating ({d:+.1f} pp on the previous quarter)"
        elif d <= -2:
            score, text = score - 0.5, f"{text}, decelerating ({d:+.1f} pp on the previous quarter)"
        else:
            text = f"{text}, steady ({d:+.1f} pp on the previous quarter)"
    return _sig("revenue_growth", text, _clamp(score), 1.5)


def _margin_signal(t: Trends) -> Signal | None:
    d, m = t.operating_margin_change_pp, t.points[0].operating_margin_pct
    if d is None or m is None:
        return None
    score = 1.0 if d >= 2 else 0.5 if d >= 0.5 else -1.0 if d <= -2 else -0.5 if d <= -0.5 else 0.0
    word = "expanding" if d >= 0.5 else "contracting" if d <= -0.5 else "stable"
    text = f"TTM operating margin {m:.1f}%, {word} ({d:+.1f} pp on a year earlier)"
    return _sig("margin_trend", text, score, 1.0)


def _profit_signal(t: Trends) -> Signal | None:
    m = t.points[0].net_margin_pct
    if m is None:
        return None
    score = 0.5 if m >= 20 else -1.0 if m < 0 else 0.0
    return _sig("profitability", f"TTM net margin {m:.1f}%", score, 0.5)


def _roe_signal(t: Trends) -> Signal | None:
    r = t.points[0].roe_pct
    if r is None:
        return None
    score = 1.0 if r >= 20 else 0.5 if r >= 10 else 0.0 if r >= 0 else -1.0
    return _sig("roe", f"TTM return on equity {r:.1f}%", score, 1.0)


def _leverage_signal(t: Trends) -> Signal | None:
    de = t.points[0].debt_to_equity
    if de is None:
        return None
    score = 0.5 if de <= 0.5 else 0.0 if de <= 1.5 else -0.5 if de <= 3 else -1.0
    return _sig("leverage", f"Debt/equity {de:.2f}", score, 0.75)


def _money(value: float) -> str:
    for unit, size in (("T", 1e12), ("B", 1e9), ("M", 1e6)):
        if abs(value) >= size:
            return f"{value / size:,.2f}{unit}"
    return f"{value:,.0f}"


def _fcf_signal(t: Trends) -> Signal | None:
    fcf, margin = t.points[0].fcf_ttm, t.fcf_margin_pct
    if fcf is None:
        return None
    if fcf < 0:
        return _sig("fcf", f"TTM free cash flow negative ({_money(fcf)} USD)", -1.0, 0.75)
    score = 1.0 if margin is not None and margin >= 15 else 0.5 if fcf > 0 else 0.0
    share = f", {margin:.1f}% of revenue" if margin is not None else ""
    return _sig("fcf", f"TTM free cash flow {_money(fcf)} USD{share}", score, 0.75)


def trend_signals(trends: Trends | None) -> list[Signal]:
    if trends is None or not trends.points:
        return []
    makers = (_growth_signal, _margin_signal, _profit_signal, _roe_signal, _leverage_signal, _fcf_signal)
    return [s for make in makers if (s := make(trends)) is not None]


def valuation_signal(gap: ValuationGap | None) -> Signal | None:
    if gap is None:
        return None
    p = gap.premium_pct
    score = 0.5 if p <= -20 else -1.0 if p >= 50 else -0.5 if p >= 20 else 0.0
    name = "P/E" if gap.metric == "pe" else "P/S"
    side = "premium" if p >= 0 else "discount"
    text = (
        f"{name} {gap.value:.1f} vs a peer median of {gap.peer_median:.1f} ({gap.peers} peers): "
        f"{abs(p):.1f}% {side}"
    )
    return _sig("valuation_vs_peers", text, score, 0.75)


def alpha_signal(relative: Sequence[RelativePerf], etf: str) -> Signal | None:
    by = {r.window: r for r in relative}
    three = by.get("3M")
    if three is None:
        return None
    a = three.alpha_pp
    score = 1.0 if a >= 15 else 0.5 if a >= 5 else -1.0 if a <= -15 else -0.5 if a <= -5 else 0.0
    text = f"3M alpha vs {etf} {a:+.1f} pp (stock {three.stock_pct:+.1f}%, {etf} {three.etf_pct:+.1f}%)"
    six = by.get("6M")
    if six is not None:
        text += f"; 6M alpha {six.alpha_pp:+.1f} pp"
        if abs(six.alpha_pp) >= 5 and (six.alpha_pp > 0) == (a > 0) and score != 0:
            score += 0.5 if a > 0 else -0.5
    return _sig("sector_alpha", text, _clamp(score, 1.5), 1.0)


def fundamental_signals(
    trends: Trends | None,
    gap: ValuationGap | None,
    relative: Sequence[RelativePerf],
    etf: str | None,
) -> list[Signal]:
    """Every signal the inputs support, in a fixed order (trends, valuation, alpha)."""
    out = trend_signals(trends)
    if (v := valuation_signal(gap)) is not None:
        out.append(v)
    if etf is not None and (a := alpha_signal(relative, etf)) is not None:
        out.append(a)
    return out
