"""Rounds and identity: ``--debate-rounds 3`` gives three turns a side; a ticker names one company at the
date or the run stops before any analyst runs."""

from __future__ import annotations

from trade_kit import run_trade

from findesk.core.config import Settings
from findesk.core.result import Err
from findesk.tools.base import ToolContext


def test_three_debate_rounds_give_three_turns_each(
    trade_settings: Settings, trade_tools: ToolContext
) -> None:
    run = run_trade(
        trade_settings,
        trade_tools,
        {"ticker": "NVDA", "date": "2024-05-10", "debate_rounds": 3, "risk_rounds": 1},
    )
    report = run.ok
    assert [t.side for t in report.investment_debate] == ["bull", "bear"] * 3
    assert [t.round for t in report.investment_debate] == [1, 1, 2, 2, 3, 3]
    assert [t.side for t in report.risk_debate] == ["aggressive", "conservative", "neutral"]


def _analysts_ran(run_events: list) -> bool:  # type: ignore[type-arg]
    return any(e.type == "agent_start" and str(e.data.agent).startswith("trade_") for e in run_events)


def test_a_reassigned_ticker_names_the_company_of_its_date(
    trade_settings: Settings, trade_tools: ToolContext
) -> None:
    # GOLD was Barrick Gold in the SEC's 2024 ticker table and Gold.com in its 2026 one
    run = run_trade(trade_settings, trade_tools, {"ticker": "GOLD", "date": "2024-05-10"})
    report = run.ok
    assert report.identity.cik == 756894
    assert "barrick" in report.identity.name.lower()


def test_an_ambiguous_ticker_stops_before_any_analyst(
    trade_settings: Settings, trade_tools: ToolContext
) -> None:
    run = run_trade(trade_settings, trade_tools, {"ticker": "GOLD", "date": "2025-08-29"})
    assert isinstance(run.report, Err)
    assert "gold" in run.report.reason.lower()
    assert not _analysts_ran(run.events)


def test_unknown_and_fund_tickers_stop_with_a_clear_error(
    trade_settings: Settings, trade_tools: ToolContext
) -> None:
    unknown = run_trade(trade_settings, trade_tools, {"ticker": "ZZZZQ", "date": "2024-05-10"})
    assert isinstance(unknown.report, Err)
    assert "ZZZZQ" in unknown.report.reason
    assert not _analysts_ran(unknown.events)
    fund = run_trade(trade_settings, trade_tools, {"ticker": "SPY", "date": "2024-05-10"})
    assert isinstance(fund.report, Err)
    assert not _analysts_ran(fund.events)


def test_a_date_after_the_as_of_date_is_refused(trade_settings: Settings, trade_tools: ToolContext) -> None:
    run = run_trade(trade_settings, trade_tools, {"ticker": "NVDA", "date": "2025-09-30"}, as_of="2025-08-29")
    assert isinstance(run.report, Err)
    assert "--as-of 2025-09-30" in run.report.reason
