"""get_xbrl_facts selects by period kind before any limit (issue 12, defect 5)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from findesk.tools.base import ToolOutcome

Call = Callable[..., ToolOutcome]


def test_the_fiscal_year_is_not_cut_off_behind_quarters(call: Call) -> None:
    out = call("get_xbrl_facts", symbol="AAPL", concept="EarningsPerShareDiluted", period="year", limit=1)
    assert out.ok, out.summary
    [fy] = out.payload
    assert (fy["value"], fy["period_end"], fy["form"], fy["filed"]) == (
        6.08,
        "2024-09-28",
        "10-K",
        "2024-11-01",
    )
    assert "- 6.08 USD/shares, 2023-10-01 to 2024-09-28 (~12 months)" in out.summary


def test_without_a_limit_every_period_filed_by_the_as_of_date_is_returned(call: Call) -> None:
    out = call("get_xbrl_facts", symbol="AAPL", concept="RevenueFromContractWithCustomerExcludingAssessedTax")
    assert out.ok, out.summary
    assert any(f["value"] == 391_035_000_000 and f["form"] == "10-K" for f in out.payload)
    assert all(f["filed"] <= "2025-08-29" for f in out.payload)
    ends = [f["period_end"] for f in out.payload]
    assert ends == sorted(ends, reverse=True)  # newest period first


def test_quarters_only(call: Call) -> None:
    out = call(
        "get_xbrl_facts",
        at=date(2024, 11, 15),
        symbol="GOOGL",
        concept="EarningsPerShareDiluted",
        period="quarter",
    )
    assert out.ok, out.summary
    assert out.payload[0]["value"] == 2.12 and out.payload[0]["period_end"] == "2024-09-30"
