"""Valuation ratios (P/E, EV/EBITDA, P/S) from a price and reported quarterly figures.

Pure: the price, its date and the quarters known at the as-of date come in as arguments.

Rules:
- Trailing twelve months (TTM) is the sum of the latest ``TTM_QUARTERS`` reported quarters, which must
  be consecutive (80-100 days apart); otherwise every TTM ratio is "not available" with the reason.
- Market cap = price x shares outstanding at the latest quarter end; enterprise value = market cap +
  total debt - cash and short-term investments, all from that latest quarter.
- P/E = price / TTM diluted EPS; EV/EBITDA = EV / TTM EBITDA; P/S = market cap / TTM revenue. A
  missing input, or a non-positive denominator (a loss, negative EBITDA), gives no value and says why:
  a ratio is never estimated.
- Every ratio states its method with the figures and dates used.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from datetime import date

from pydantic import BaseModel, ConfigDict

from findesk.data.models.fundamentals import FundamentalQuarter

TTM_QUARTERS = 4
QUARTER_GAP_DAYS = (80, 100)


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Ratio(Model):
    name: str  # "P/E", "EV/EBITDA", "P/S"
    value: float | None = None
    method: str | None = None  # how, with the figures and dates used
    reason: str | None = None  # why there is no value


class Valuation(Model):
    price: float
    price_date: date
    quarters_used: list[date]  # quarter-end labels of the TTM window, newest first
    market_cap: float | None = None
    enterprise_value: float | None = None
    ttm_revenue: float | None = None
    ttm_ebitda: float | None = None
    ttm_eps: float | None = None
    ratios: list[Ratio]
    notes: list[str] = []


def _ttm_window(quarters: Sequence[FundamentalQuarter]) -> tuple[list[FundamentalQuarter], str | None]:
    latest = sorted(quarters, key=lambda q: q.quarter_end, reverse=True)[:TTM_QUARTERS]
    if len(latest) < TTM_QUARTERS:
        return latest, f"only {len(latest)} reported quarter(s) known, {TTM_QUARTERS} are needed for TTM"
    for newer, older in itertools.pairwise(latest):
        gap = (newer.quarter_end - older.quarter_end).days
        if not QUARTER_GAP_DAYS[0] <= gap <= QUARTER_GAP_DAYS[1]:
            return latest, (
                f"the latest {TTM_QUARTERS} quarters are not consecutive "
                f"({older.quarter_end.isoformat()} to {newer.quarter_end.isoformat()} is {gap} days)"
            )
    return latest, None


def _sum(window: Sequence[FundamentalQuarter], field: str) -> float | None:
    values = [getattr(q, field) for q in window]
    return None if any(v is None for v in values) else float(sum(values))


def _span(window: Sequence[FundamentalQuarter]) -> str:
    return f"quarters ended {window[-1].quarter_end.isoformat()}..{window[0].quarter_end.isoformat()}"


def _big(value: float) -> str:
    return f"{value:,.0f}"


def valuation(price: float, price_date: date, quarters: Sequence[FundamentalQuarter]) -> Valuation:
    window, ttm_problem = _ttm_window(quarters)
    latest = window[0] if window else None
    notes: list[str] = []
    ttm = {f: (None if ttm_problem else _sum(window, f)) for f in ("total_revenue", "ebitda", "diluted_eps")}
    cap = None
    if latest is not None and latest.shares_outstanding:
        cap = price * latest.shares_outstanding
    ev = None
    if cap is not None and latest is not None and latest.total_debt is not None and latest.cash is not None:
        ev = cap + latest.total_debt - latest.cash
    at = f"price {price:,.2f} on {price_date.isoformat()}"

    def ratio(name: str, top: float | None, top_text: str, bottom_field: str, bottom_text: str) -> Ratio:
        bottom = ttm[bottom_field]
        if ttm_problem:
            return Ratio(name=name, reason=f"not available: {ttm_problem}")
        if top is None:
            return Ratio(name=name, reason=f"not available: {top_text} could not be computed (missing input)")
        if bottom is None:
            return Ratio(name=name, reason=f"not available: {bottom_text} has a missing quarter")
        if bottom <= 0:
            return Ratio(name=name, reason=f"not meaningful: {bottom_text} is {bottom:,.2f} (not positive)")
        shown = f"{bottom:,.2f}" if bottom_field == "diluted_eps" else _big(bottom)
        return Ratio(
            name=name,
            value=top / bottom,
            method=f"{top_text} / {bottom_text} {shown} ({_span(window)})",
        )

    cap_text = "market cap"
    if cap is not None and latest is not None and latest.shares_outstanding:
        cap_text = (
            f"market cap {_big(cap)} ({at} x {_big(latest.shares_outstanding)} shares at "
            f"{latest.quarter_end.isoformat()})"
        )
    ev_text = "enterprise value"
    if ev is not None and latest is not None:
        ev_text = (
            f"enterprise value {_big(ev)} (market cap + debt {_big(latest.total_debt or 0)} - cash "
            f"{_big(latest.cash or 0)} at {latest.quarter_end.isoformat()})"
        )
    ratios = [
        ratio("P/E", price, at, "diluted_eps", "TTM diluted EPS"),
        ratio("EV/EBITDA", ev, ev_text, "ebitda", "TTM EBITDA"),
        ratio("P/S", cap, cap_text, "total_revenue", "TTM revenue"),
    ]
    if latest is not None and price_date < latest.quarter_end:
        notes.append(
            f"the price ({price_date.isoformat()}) is older than the latest quarter "
            f"({latest.quarter_end.isoformat()})"
        )
    return Valuation(
        price=price,
        price_date=price_date,
        quarters_used=[q.quarter_end for q in window],
        market_cap=cap,
        enterprise_value=ev,
        ttm_revenue=ttm["total_revenue"],
        ttm_ebitda=ttm["ebitda"],
        ttm_eps=ttm["diluted_eps"],
        ratios=ratios,
        notes=notes,
    )
