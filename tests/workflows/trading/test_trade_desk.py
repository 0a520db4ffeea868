"""The trading desk as a trader uses it: NVDA on 2024-05-10 and three more tickers on the snapshot give
the company's identity, all four analyst reports, both debates turn by turn and a decision, with every
number traced to a tool result, reproducible byte for byte."""

from __future__ import annotations

from typing import get_args

import pytest
from trade_kit import CASES, TradeRun, run_trade

from findesk.agents.roles.trading.models import Rating
from findesk.core.config import Settings
from findesk.tools.base import ToolContext

CIKS = {"NVDA": 1045810, "AAPL": 320193, "MSFT": 789019, "JPM": 19617}


@pytest.mark.parametrize(("ticker", "day"), CASES, ids=[c[0] for c in CASES])
def test_every_report_both_debates_and_a_decision(
    desk_runs: dict[str, TradeRun], ticker: str, day: str
) -> None:
    report = desk_runs[ticker].ok
    assert report.identity.ticker == ticker
    assert report.identity.cik == CIKS[ticker]
    assert report.as_of.isoformat() == day
    for analyst in (report.market, report.fundamentals, report.news, report.social):
        assert analyst.summary, analyst.analyst
        assert analyst.status in ("ok", "partial", "no_data")
    # the market analyst always has prices on these dates
    assert report.market.technicals is not None
    assert report.market.technicals.session.isoformat() <= day
    sides = [t.side for t in report.investment_debate]
    assert sides == ["bull", "bear", "bull", "bear"]
    assert [t.side for t in report.risk_debate] == ["aggressive", "conservative", "neutral"] * 2
    assert report.final_decision.rating in get_args(Rating)
    assert 0.0 <= report.final_decision.position_pct <= report.params.plan.max_position_pct
    assert report.investment_decision.rating in get_args(Rating)
    # every number every role wrote is traced to a tool result of the run
    assert report.guard.untraced_numbers == [], report.guard.untraced_numbers
    assert report.mode == "deterministic"


def test_debaters_cite_existing_signals_and_rebut(desk_runs: dict[str, TradeRun]) -> None:
    report = desk_runs["NVDA"].ok
    ids = {s.id for r in (report.market, report.fundamentals, report.news, report.social) for s in r.signals}
    for turn in report.investment_debate:
        assert set(turn.cites) <= ids, turn
    # from the second turn on, each turn answers a point the other side made in its last turn
    for before, turn in zip(report.investment_debate, report.investment_debate[1:], strict=False):
        if turn.rebuts is not None:
            assert turn.rebuts in before.cites, (before, turn)
    assert any(t.rebuts for t in report.investment_debate[1:])


def test_trader_levels_come_from_atr(desk_runs: dict[str, TradeRun]) -> None:
    report = desk_runs["NVDA"].ok
    plan, tech = report.trader_plan, report.market.technicals
    assert tech is not None and tech.atr_14 is not None
    # levels as they traded that day (the snapshot's as-traded close), not the split-adjusted 89.83
    assert tech.levels == "as_traded"
    assert tech.close == pytest.approx(898.78)
    assert plan.entry == pytest.approx(tech.close, abs=0.01)
    if plan.direction == "long":
        assert plan.stop is not None and plan.target is not None
        assert plan.stop == pytest.approx(tech.close - report.params.plan.stop_atr * tech.atr_14, abs=0.02)
        assert plan.target == pytest.approx(
            tech.close + report.params.plan.target_atr * tech.atr_14, abs=0.02
        )


def test_the_same_run_gives_the_same_decision_byte_for_byte(
    trade_settings: Settings, trade_tools: ToolContext, desk_runs: dict[str, TradeRun]
) -> None:
    again = run_trade(trade_settings, trade_tools, {"ticker": "NVDA", "date": "2024-05-10"}, user="u-repeat")
    first, second = desk_runs["NVDA"].ok, again.ok
    keep = {
        "identity", "market", "fundamentals", "news", "social", "investment_debate",
        "investment_decision", "trader_plan", "risk_debate", "final_decision",
    }  # fmt: skip
    assert first.model_dump_json(include=keep) == second.model_dump_json(include=keep)


def test_analysts_run_in_parallel(desk_runs: dict[str, TradeRun]) -> None:
    events = desk_runs["NVDA"].events
    starts = {e.data.agent: e.seq for e in events if e.type == "agent_start" and e.data.agent in ANALYSTS}
    ends = {e.data.agent: e.seq for e in events if e.type == "agent_end" and e.data.agent in ANALYSTS}
    assert set(starts) == set(ends) == set(ANALYSTS)
    # every analyst started before any of them finished: their runs overlap in time
    assert max(starts.values()) < min(ends.values())


ANALYSTS = ("trade_market", "trade_fundamentals", "trade_news", "trade_social")


def test_levels_without_an_as_traded_close_say_they_are_adjusted(
    trade_settings: Settings, trade_tools: ToolContext
) -> None:
    # the snapshot's as-traded closes start in 2024: in 2023 NVDA's levels are the split-adjusted ones
    # (about a tenth of what traded before its 10-for-1 split of June 2024), and the desk says so
    report = run_trade(trade_settings, trade_tools, {"ticker": "NVDA", "date": "2023-06-01"}).ok
    tech = report.market.technicals
    assert tech is not None and tech.levels == "adjusted" and tech.close < 50
    assert any("split- and dividend-adjusted" in w for w in report.market.warnings)
    assert "split-adjusted level" in report.trader_plan.entry_basis
