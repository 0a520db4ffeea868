"""The decision log and reflection memory through the desk: a decision is logged, scored once its
horizon has passed (as of the later run's date), and its lessons reach the next run of the same user
only from the day after the outcome was known; another user never sees them."""

from __future__ import annotations

from trade_kit import run_trade

from findesk.core.config import Settings
from findesk.tools.base import ToolContext

USER = "memory-user"


def test_lessons_appear_only_after_the_outcome_was_known(
    trade_settings: Settings, trade_tools: ToolContext
) -> None:
    first = run_trade(trade_settings, trade_tools, {"ticker": "NVDA", "date": "2024-05-10"}, user=USER).ok
    assert first.lessons == {} or not any(first.lessons.values())
    assert any("logged" in n.lower() or "recorded" in n.lower() for n in first.memory_notes), (
        first.memory_notes
    )
    # 20 sessions after 2024-05-10 is 2024-06-10: scored that day, but not yet a lesson on that day
    on_exit = run_trade(trade_settings, trade_tools, {"ticker": "NVDA", "date": "2024-06-10"}, user=USER).ok
    assert any("NVDA" in n and "2024-05-10" in n for n in on_exit.memory_notes), on_exit.memory_notes
    assert not any(on_exit.lessons.values()), on_exit.lessons
    later = run_trade(trade_settings, trade_tools, {"ticker": "NVDA", "date": "2024-06-11"}, user=USER).ok
    for role in ("bull", "bear", "trader", "research_manager", "risk_manager"):
        assert later.lessons.get(role), (role, later.lessons)
        assert "2024-05-10" in later.lessons[role][0]
    # the managers report the lessons they were given, and every figure in them still traces
    assert later.investment_decision.lessons_used or later.final_decision.lessons_used
    assert later.guard.untraced_numbers == []
    stranger = run_trade(
        trade_settings, trade_tools, {"ticker": "NVDA", "date": "2024-06-11"}, user="other"
    ).ok
    assert not any(stranger.lessons.values())
