"""The tool catalog as a model meets it: names, JSON-schema specs, argument errors it can correct."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from findesk.core.config import Settings
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.context import resolve_context
from findesk.tools.base import ToolOutcome
from findesk.tools.catalog import data_tools, default_registry, open_tool_context

Call = Callable[..., ToolOutcome]

EXPECTED = {
    "get_market_movers",
    "get_sector_performance",
    "get_topic_news",
    "get_industry_performance",
    "get_company",
    "get_quote",
    "get_price_history",
    "list_filings",
    "get_filing_section",
    "get_material_events",
    "get_8k_items",
    "search_filings",
    "get_business_overview",
    "get_risk_factors",
    "get_volume_anomaly",
    "get_xbrl_facts",
    "get_news",
    "get_reddit_posts",
    "get_stocktwits_posts",
    "get_transcripts",
    "get_earnings_calendar",
    "get_macro_series",
    "get_onchain_txs",
    "get_token",
    "get_protocol_tvl",
    "screen_sanctions",
    "get_return_stats",
    "get_correlation",
    "make_price_chart",
    "get_quarterly_fundamentals",
    "get_valuation_ratios",
    "get_peers",
    "trace_funds",
    "mixer_check",
    "address_risk",
    "get_token_prices",
    "get_eth_balance",
    "get_large_holders",
    "search_news",
    "screen_etf_week",
    "get_technicals",
    "get_market_regime",
    "get_fundamental_trends",
    "get_sector_alpha",
    "get_insider_transactions",
    "get_nasdaq_gainers",
    "get_history_vs_spy",
    "python_analyzer",
    "send_report_email",
}


def test_every_data_capability_is_registered_once_with_a_valid_name() -> None:
    names = [t.name for t in data_tools()]
    assert len(names) == len(set(names))
    assert set(names) == EXPECTED
    assert all(re.fullmatch(r"[a-z][a-z0-9_]{2,39}", n) for n in names)
    assert default_registry().names() == names


def test_every_spec_describes_exactly_the_arguments_the_tool_accepts() -> None:
    for tool in default_registry().subset(default_registry().names()):
        spec = tool.spec()
        params = spec.parameters
        assert spec.name == tool.name and len(spec.description) > 80, tool.name
        assert "estimate" in spec.description or "UNVERIFIED" in spec.description, tool.name
        assert params["type"] == "object" and params["additionalProperties"] is False, tool.name
        assert set(params["properties"]) == set(tool.args.model_fields), tool.name
        required = {n for n, f in tool.args.model_fields.items() if f.is_required()}
        assert set(params.get("required", [])) == required, tool.name
        assert "as_of" not in params["properties"], tool.name  # the run's date is never an argument
        for name, prop in params["properties"].items():
            assert prop.get("description"), f"{tool.name}.{name} has no description"


def test_unknown_argument_is_rejected_by_name(call: Call) -> None:
    out = call("get_quote", symbol="AAPL", as_of="2024-01-02")
    assert out.error_code == "invalid_input"
    assert "as_of" in out.summary and "Extra inputs are not permitted" in out.summary


def test_missing_required_argument(call: Call) -> None:
    out = call("get_filing_section", symbol="AAPL", form="10-K")
    assert out.error_code == "invalid_input"
    assert "item" in out.summary and "required" in out.summary.lower()


def test_out_of_range_and_wrong_choice_arguments(call: Call) -> None:
    assert call("list_filings", symbol="NVDA", limit=500).error_code == "invalid_input"
    wrong_form = call("get_filing_section", symbol="AAPL", form="S-1", item="1A")
    assert wrong_form.error_code == "invalid_input" and "form" in wrong_form.summary
    too_long = call("get_quote", symbol="ABCDEFGHIJKL")
    assert too_long.error_code == "invalid_input"


def test_dotted_symbol_is_out_of_scope_before_any_vendor(call: Call) -> None:
    for name in ("get_quote", "list_filings", "get_news"):
        out = call(name, symbol="BRK.B")
        assert out.error_code == "out_of_scope", name
        assert "BRK-B" in out.summary  # the model is told how to write a US share class


def test_unknown_tool_name(call: Call) -> None:
    out = call("get_everything", symbol="AAPL")
    assert out.error_code == "invalid_input" and "get_everything" in out.summary


def test_symbols_are_normalized_before_the_router(call: Call) -> None:
    out = call("get_company", symbol="  aapl ")
    assert out.ok and out.arguments == {"symbol": "  aapl "}  # the audit log keeps what the model sent
    assert out.summary.startswith("AAPL: Apple Inc.")


def test_open_tool_context_reports_a_bad_chain_as_data(snapshot_dir: Path, tmp_path: Path) -> None:
    settings = Settings(snapshot_dir=snapshot_dir, cache_dir=tmp_path, chains={"quote": ["nosuchvendor"]})
    context = resolve_context(settings, mode="snapshot")
    assert isinstance(context, Ok)
    opened = asyncio.run(open_tool_context(settings, context.value))
    assert isinstance(opened, Err) and opened.code is ErrorCode.INVALID_INPUT
    assert "nosuchvendor" in opened.reason


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("get_quote", {"symbol": "AAPL"}),
        ("list_filings", {"symbol": "NVDA"}),
        ("get_xbrl_facts", {"symbol": "NVDA", "concept": "Revenues"}),
        ("get_reddit_posts", {"symbol": "NVDA"}),
        ("screen_sanctions", {"query": "0x722122dF12D4e14e13Ac3b6895a86e84145b6967"}),
    ],
)
def test_summaries_are_compact_and_deterministic(call: Call, name: str, arguments: dict[str, str]) -> None:
    first, second = call(name, **arguments), call(name, **arguments)
    assert first.ok, first.summary
    assert first.summary == second.summary
    assert len(first.summary) < 2_500 and not first.truncated
