"""Two desks reporting different figures for the same quantity: the answer shows both and says how it
resolved them (newest data, then the more reliable source, else "sources disagree")."""

from __future__ import annotations

from datetime import date

from findesk.agents.roles.research.conflicts import find_conflicts
from findesk.agents.roles.research.findings import Citation, Finding, SpecialistReport
from findesk.agents.roles.research.synthesize import SynthesisInput, compose


def _finding(agent: str, value: float, tool: str, source: str, observed: date | None = None) -> Finding:
    return Finding(
        text=f"SPY closed at {value} on 2025-08-29.",
        citations=[Citation(agent=agent, tool=tool, source=source)],
        quantity="SPY close 2025-08-29",
        value=value,
        unit="USD",
        observed=observed,
    )


def _reports(equity: Finding, macro: Finding) -> dict[str, SpecialistReport]:
    return {
        "equity": SpecialistReport(agent="equity", findings=[equity]),
        "macro": SpecialistReport(agent="macro", findings=[macro]),
    }


def test_different_figures_for_one_quantity_are_a_conflict_shown_with_both_figures() -> None:
    reports = _reports(
        _finding("equity", 645.05, "get_price_history", "prices/equities/SPY.csv"),
        _finding("macro", 643.44, "get_price_history", "prices/etfs/etf_panel.parquet"),
    )
    conflicts = find_conflicts(reports)
    assert len(conflicts) == 1
    assert {v.agent for v in conflicts[0].values} == {"equity", "macro"}
    assert conflicts[0].resolution.startswith("sources disagree")
    answer = compose(
        SynthesisInput(
            question="SPY?", as_of=date(2025, 8, 29), plan="p", reports=reports, conflicts=conflicts
        ),
        {},
    ).answer
    assert "Conflicts between desks" in answer
    assert "645.05" in answer and "643.44" in answer and "Sources disagree" in answer


def test_newer_data_wins_and_the_older_figure_is_still_shown() -> None:
    reports = _reports(
        _finding("equity", 640.0, "get_price_history", "a", observed=date(2025, 8, 28)),
        _finding("macro", 645.05, "get_price_history", "b", observed=date(2025, 8, 29)),
    )
    (conflict,) = find_conflicts(reports)
    assert conflict.preferred == "macro" and "newest data" in conflict.resolution
    assert sorted(v.value for v in conflict.values) == [640.0, 645.05]


def test_a_filing_outranks_a_data_vendor_when_the_dates_agree() -> None:
    reports = _reports(
        _finding("equity", 46.7e9, "get_xbrl_facts", "SEC companyfacts CIK0001045810 10-Q 2025-08-27"),
        _finding("macro", 46.0e9, "get_fundamentals", "yfinance quarterly fundamentals"),
    )
    (conflict,) = find_conflicts(reports)
    assert conflict.preferred == "equity" and "SEC filing" in conflict.resolution


def test_rounding_and_a_single_desk_are_not_conflicts() -> None:
    same = _reports(
        _finding("equity", 645.05, "get_price_history", "a"),
        _finding("macro", 645.06, "get_price_history", "b"),
    )
    assert find_conflicts(same) == []
    one = {
        "equity": SpecialistReport(
            agent="equity", findings=[_finding("equity", 1.0, "t", "s"), _finding("equity", 2.0, "t", "s")]
        )
    }
    assert find_conflicts(one) == []
