"""The trading desk with models (scripted fakes, no network): every role writes its turn, figures still
come from code and pass the number trace, the run stays under the context budget, and a decision a model
gets wrong is REVIEW with the reason, never a silent HOLD."""

from __future__ import annotations

from trade_kit import NVDA_DAY, run_trade

from findesk.core.config import Settings
from findesk.core.llm.types import ModelRequest
from findesk.testing.fake_models import Reply, submit
from findesk.testing.fake_trade_models import (
    FABRICATED,
    fabricating_bull,
    garbage_risk_manager,
    oversized_risk_manager,
    trade_models,
)
from findesk.tools.base import ToolContext

INPUTS = {"ticker": "NVDA", "date": NVDA_DAY}
BUDGET = 35_000  # input tokens per run with the default rounds (issue 19)


def test_every_role_writes_with_a_model_under_the_token_budget(
    trade_settings: Settings, trade_tools: ToolContext
) -> None:
    resolve, models = trade_models()
    report = run_trade(trade_settings, trade_tools, INPUTS, mode="model", models=resolve).ok
    assert report.mode == "model"
    modes = {a.name: a.mode for a in report.agents}
    assert modes["trade_bull"] == modes["trade_risk_manager"] == modes["trade_market"] == "model"
    assert modes["trade_identity"] == "deterministic"  # identity is read from the SEC tables, never a model
    # 4 analysts + 2×2 debaters + manager + trader + 3×2 risk analysts + risk manager
    assert report.model_calls == 17
    assert 0 < report.input_tokens <= BUDGET, report.input_tokens
    # the models wrote the prose; figures stayed code's and every one of them traces
    assert report.market.summary.startswith("The market analyst read:")
    assert report.guard.untraced_numbers == []
    assert report.final_decision.rating in {"BUY", "OVERWEIGHT", "HOLD", "UNDERWEIGHT", "SELL"}
    # debaters and managers saw compact digests: no payload carries a whole report's prose
    for request in models["manager"].requests:
        assert "The market analyst read:" not in request.messages[0].model_dump_json()


def test_a_fabricated_figure_is_replaced_by_the_code_built_turn(
    trade_settings: Settings, trade_tools: ToolContext
) -> None:
    resolve, _ = trade_models({"bull": [fabricating_bull] * 10})
    report = run_trade(trade_settings, trade_tools, INPUTS, mode="model", models=resolve).ok
    assert all(FABRICATED not in t.argument for t in report.investment_debate)
    assert any("83.17" in w and "code-built version is shown" in w for w in report.warnings), report.warnings


def test_an_unparseable_decision_is_review_with_the_reason(
    trade_settings: Settings, trade_tools: ToolContext
) -> None:
    resolve, _ = trade_models({"risk_manager": [garbage_risk_manager] * 10})
    report = run_trade(trade_settings, trade_tools, INPUTS, mode="model", models=resolve).ok
    final = report.final_decision
    assert final.rating == "REVIEW"
    assert final.review_reason and "rating" in final.review_reason.lower()
    assert final.position_pct == 0.0


def test_an_invalid_size_is_review_not_a_silent_hold(
    trade_settings: Settings, trade_tools: ToolContext
) -> None:
    resolve, _ = trade_models({"risk_manager": [oversized_risk_manager] * 10})
    report = run_trade(trade_settings, trade_tools, INPUTS, mode="model", models=resolve).ok
    assert report.final_decision.rating == "REVIEW"
    assert report.final_decision.review_reason
    assert "risk cap" in report.final_decision.review_reason


def _asks_review(_request: ModelRequest) -> Reply:
    return submit(
        {
            "rating": "REVIEW",
            "position_pct": 0.0,
            "direction": "flat",
            "horizon_days": 20,
            "rationale": "Too uncertain to sign off.",
            "review_reason": "implied volatility of 97.31% is too high",  # a figure no tool gave
        }
    )


def test_a_model_asking_for_review_stays_review_even_with_an_untraced_figure(
    trade_settings: Settings, trade_tools: ToolContext
) -> None:
    resolve, _ = trade_models({"risk_manager": [_asks_review] * 10})
    report = run_trade(trade_settings, trade_tools, INPUTS, mode="model", models=resolve).ok
    assert report.final_decision.rating == "REVIEW"
    assert any(u.text.startswith("97.31") for u in report.guard.untraced_numbers)


def test_the_run_token_cap_stops_the_models_and_code_finishes_the_desk(
    trade_settings: Settings, trade_tools: ToolContext
) -> None:
    capped = trade_settings.model_copy(
        update={"llm": trade_settings.llm.model_copy(update={"run_token_limit": 5_000})}
    )
    resolve, _ = trade_models()
    report = run_trade(capped, trade_tools, INPUTS, mode="model", models=resolve).ok
    # the analysts' first calls (about 3k tokens each) took the ledger over its cap; every role after
    # that stopped before calling its model and fell back to code, with a warning
    assert 1 <= report.model_calls <= 4
    fell_back = {a.name for a in report.agents if a.fell_back}
    assert {"trade_bull", "trade_bear", "trade_research_manager", "trade_risk_manager"} <= fell_back
    assert report.input_tokens + report.output_tokens > 5_000
    assert any("token budget reached" in w for w in report.warnings), report.warnings
    assert report.final_decision.rating in {"BUY", "OVERWEIGHT", "HOLD", "UNDERWEIGHT", "SELL"}
