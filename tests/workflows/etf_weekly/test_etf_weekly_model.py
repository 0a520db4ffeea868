"""The weekly ETF analyst with a model (scripted fakes, no network): one call per agent run, every
flag the protocol decides still the code's, a figure no tool gave caught and replaced, and the
evidence a model claims never counted."""

from __future__ import annotations

import json

from etf_kit import WEEK, growth_strategy, run_weekly

from findesk.analytics.etf.protocol import NO_NEWS
from findesk.core.config import Settings
from findesk.testing.fake_etf_models import FABRICATED, director_reply, etf_models, fabricating_senior
from findesk.tools.base import ToolContext


def test_one_model_call_per_agent_run(etf_settings: Settings, etf_tools: ToolContext, tmp_path) -> None:  # type: ignore[no-untyped-def]
    resolve, models = etf_models()
    strategy = growth_strategy().model_dump(mode="json")
    run = run_weekly(
        etf_settings,
        etf_tools,
        {"week_ending": WEEK, "strategy": strategy, "out": str(tmp_path)},
        mode="model",
        models=resolve,
    )
    report = run.ok
    sectors = len(report.news)
    # the overview, one search per sector, the senior analyst, the managing director; the quant never
    assert report.model_calls == 1 + sectors + 2
    assert len(models["sector"].requests) == sectors and len(models["overview"].requests) == 1
    assert report.input_tokens > 0 and report.mode == "model"
    quant = next(a for a in report.agents if a.name == "etf_quant")
    assert quant.mode == "deterministic" and quant.model_turns == 0
    assert report.guard.untraced_numbers == []


def test_the_protocol_holds_against_a_model(etf_settings: Settings, etf_tools: ToolContext, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # the default strategy's week: most sectors have no news; the fake news analyst claims "strong"
    # evidence everywhere and the fake senior flags every fund GREEN
    resolve, _models = etf_models({"director": [director_reply(8.0)] * 20})
    run = run_weekly(
        etf_settings, etf_tools, {"week_ending": WEEK, "out": str(tmp_path)}, mode="model", models=resolve
    )
    report = run.ok
    for sector, news in report.news.items():
        if not news.sources:
            assert news.evidence == "none" and news.narrative == NO_NEWS and not news.drivers, sector
    for symbol, view in report.senior.symbols.items():
        news = report.news.get(view.sector)
        alpha = report.symbol_profiles[symbol].alpha_residual or 0.0
        if news is not None and news.evidence == "none" and abs(alpha) > 1.5:
            assert view.flag == "RED", symbol  # the model's GREEN never survives unexplained alpha
        if news is None or news.evidence != "strong":
            assert view.flag != "GREEN", symbol


def test_a_figure_no_tool_gave_is_caught_and_the_code_review_shown(
    etf_settings: Settings,
    etf_tools: ToolContext,
    tmp_path,  # type: ignore[no-untyped-def]
) -> None:
    resolve, _models = etf_models({"senior": [fabricating_senior] * 20})
    strategy = growth_strategy().model_dump(mode="json")
    run = run_weekly(
        etf_settings,
        etf_tools,
        {"week_ending": WEEK, "strategy": strategy, "out": str(tmp_path)},
        mode="model",
        models=resolve,
    )
    report = run.ok
    assert FABRICATED not in json.dumps(report.model_dump(mode="json", exclude={"guard", "warnings"}))
    assert any(w.startswith("senior: the model stated numbers no tool gave") for w in report.warnings)
    assert any(u.text.startswith("47.31") for u in report.guard.untraced_numbers)
