"""Valuation ratios from a price and four reported quarters: values, stated methods, refusals."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from findesk.analytics.valuation import valuation
from findesk.data.models.fundamentals import FundamentalQuarter

ENDS = [date(2024, 9, 30), date(2024, 12, 31), date(2025, 3, 31), date(2025, 6, 30)]


def quarter(end: date, **over: float | None) -> FundamentalQuarter:
    fields: dict[str, float | None] = {
        "total_revenue": 100.0,
        "ebitda": 30.0,
        "diluted_eps": 0.5,
        "shares_outstanding": 10.0,
        "total_debt": 50.0,
        "cash": 20.0,
    }
    fields.update(over)
    return FundamentalQuarter(quarter_end=end, visible_from=end + timedelta(days=60), **fields)


def ratios(v: object) -> dict[str, object]:
    return {r.name: r for r in v.ratios}  # type: ignore[attr-defined]


def test_ratios_from_four_quarters_with_their_methods() -> None:
    v = valuation(40.0, date(2025, 8, 29), [quarter(e) for e in ENDS])
    r = ratios(v)
    # TTM EPS 2.0 -> P/E 20; market cap 400, EV 430, TTM EBITDA 120, TTM revenue 400
    assert r["P/E"].value == pytest.approx(20.0)  # type: ignore[attr-defined]
    assert r["EV/EBITDA"].value == pytest.approx(430 / 120)  # type: ignore[attr-defined]
    assert r["P/S"].value == pytest.approx(1.0)  # type: ignore[attr-defined]
    assert v.quarters_used == ENDS[::-1]
    assert "2025-08-29" in r["P/E"].method and "2024-09-30..2025-06-30" in r["P/E"].method  # type: ignore[attr-defined]


def test_three_quarters_are_not_a_trailing_year() -> None:
    v = valuation(40.0, date(2025, 8, 29), [quarter(e) for e in ENDS[1:]])
    assert all(r.value is None and "only 3" in (r.reason or "") for r in v.ratios)


def test_a_gap_between_quarters_is_refused() -> None:
    ends = [date(2024, 6, 30), *ENDS[1:]]
    v = valuation(40.0, date(2025, 8, 29), [quarter(e) for e in ends])
    assert all(r.value is None and "not consecutive" in (r.reason or "") for r in v.ratios)


def test_a_loss_gives_no_pe_and_a_missing_line_gives_no_ev() -> None:
    qs = [quarter(e, diluted_eps=-1.0) for e in ENDS[:3]] + [quarter(ENDS[3], diluted_eps=0.5, cash=None)]
    r = ratios(valuation(40.0, date(2025, 8, 29), qs))
    assert r["P/E"].value is None and "not meaningful" in r["P/E"].reason  # type: ignore[attr-defined]
    assert r["EV/EBITDA"].value is None and "missing input" in r["EV/EBITDA"].reason  # type: ignore[attr-defined]
    assert r["P/S"].value == pytest.approx(1.0)  # type: ignore[attr-defined]
