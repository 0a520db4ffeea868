"""The synthesis written by a model (scripted fakes, no network): a good answer is kept and traced; one
that names a ticker no board lists is refused, re-asked once, then replaced by the code's synthesis with
the reason in the warnings; one that states a figure no tool gave is replaced by the code-built one."""

from __future__ import annotations

import pytest
from scan_kit import ScanRun, run_scan

from findesk.core.config import Settings
from findesk.testing.fake_scan_models import INVENTED, SUMMARY, UNTRACED, scan_models
from findesk.tools.base import ToolContext


@pytest.fixture(scope="module")
def code(scan_run: ScanRun) -> list[str]:
    assert scan_run.ok.synthesis is not None
    return [c.ticker for c in scan_run.ok.synthesis.stocks_to_investigate]


def test_a_good_synthesis_is_the_models_and_traced(
    scan_settings: Settings, scan_tools: ToolContext, code: list[str]
) -> None:
    resolve, model = scan_models("good")
    r = run_scan(scan_settings, scan_tools, mode="model", models=resolve).ok
    assert r.mode == "model" and len(model.requests) == 1
    s = r.synthesis
    assert s is not None and s.executive_summary == SUMMARY
    assert [c.ticker for c in s.stocks_to_investigate] == list(reversed(code))
    assert s.macro_context.startswith("Market regime as of 2025-08-29")  # the regime tool's own line
    assert r.guard.untraced_numbers == [] and r.warnings == []
    modes = {a.name: a.mode for a in r.agents}
    assert modes["scan_synthesis"] == "model" and modes["scan_movers"] == "deterministic"
    assert r.model_calls == 1 and r.cost_usd > 0
    # the model read the boards and the code's picks, with the regime pre-fetched
    sent = model.requests[0].model_dump_json()
    assert "rules_picks" in sent and "get_market_regime" in sent


def test_an_invented_ticker_is_re_asked_then_replaced_by_code(
    scan_settings: Settings, scan_tools: ToolContext, code: list[str]
) -> None:
    resolve, model = scan_models("inventing")
    r = run_scan(scan_settings, scan_tools, mode="model", models=resolve).ok
    assert len(model.requests) == 2  # refused, re-asked once, refused again
    assert "which no phase 1-2 board lists" in model.requests[1].model_dump_json()
    s = r.synthesis
    assert s is not None and [c.ticker for c in s.stocks_to_investigate] == code
    assert INVENTED not in s.model_dump_json()
    assert any("invalid_output" in w and INVENTED in w for w in r.warnings), r.warnings
    fell = {a.name: a.fell_back for a in r.agents}
    assert fell["scan_synthesis"] is True


def test_an_untraced_figure_gives_way_to_the_code_built_synthesis(
    scan_settings: Settings, scan_tools: ToolContext, code: list[str]
) -> None:
    resolve, model = scan_models("untraced")
    r = run_scan(scan_settings, scan_tools, mode="model", models=resolve).ok
    assert len(model.requests) == 1  # valid on the schema and the boards: accepted, then guarded
    s = r.synthesis
    assert s is not None and [c.ticker for c in s.stocks_to_investigate] == code
    assert all(UNTRACED not in c.rationale for c in s.stocks_to_investigate)
    assert any(u.text.startswith("73.91") for u in r.guard.untraced_numbers)
    assert any(
        w.startswith("synthesis: the model stated numbers no tool gave (73.91%)") for w in r.warnings
    ), r.warnings
