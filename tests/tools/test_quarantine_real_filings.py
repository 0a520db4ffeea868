"""Screening every retrieved filing must not withhold real filing text: each 10-K and 10-Q Item, the
risk factors, business overviews and 8-K items of the snapshot's companies go through the tools as a
run calls them, and nothing is quarantined. (The filing genre treats any question or order to the
reader as out of place; statement rows such as "Change in fair value of …", labels such as "Search:"
and headings such as "Change in Accounting Estimate" once were.)"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from findesk.core.config import Settings
from findesk.tools.base import ToolContext, execute
from findesk.tools.catalog import default_registry
from snapshot_kit import snapshot_tools

SYMBOLS = ("AAPL", "NVDA", "MSFT", "AMZN", "GOOGL", "TSLA", "META", "WFC")  # JPM files nothing by 2025-08-29
TEN_K = ("1", "1A", "1B", "1C", "2", "3", "5", "7", "7A", "8", "9A", "10", "11", "12", "13", "14", "15")
TEN_Q = ("I-1", "I-2", "I-3", "I-4", "II-1", "II-1A", "II-2", "II-5", "II-6")


@pytest.fixture(scope="module")
def tools(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ToolContext]:
    cache = tmp_path_factory.mktemp("filings-cache")
    yield from snapshot_tools(Settings(snapshot_dir=snapshot_dir, cache_dir=cache, chains={}))


def _calls(symbol: str) -> list[tuple[str, dict[str, str]]]:
    calls = [("get_filing_section", {"symbol": symbol, "form": "10-K", "item": i}) for i in TEN_K]
    calls += [("get_filing_section", {"symbol": symbol, "form": "10-Q", "item": i}) for i in TEN_Q]
    calls += [
        (name, {"symbol": symbol}) for name in ("get_risk_factors", "get_business_overview", "get_8k_items")
    ]
    return calls


@pytest.mark.parametrize("symbol", SYMBOLS)
def test_no_real_filing_text_is_quarantined(tools: ToolContext, symbol: str) -> None:
    registry = default_registry()

    async def screen_all() -> list[str]:
        held: list[str] = []
        read = 0
        for name, args in _calls(symbol):
            out = await execute(registry.get(name), name, args, tools)
            read += out.ok
            held += [f"{name} {args}: {q.reasons} | {q.text[:160]}" for q in out.quarantined]
        assert read, f"no filing text of {symbol} was read, so the test proves nothing"
        return held

    assert asyncio.run(screen_all()) == []
