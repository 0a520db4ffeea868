"""The paper's Table 1 next to our baselines: real prices, every cell with its difference and reason,
and buy & hold AAPL first close → last close equal to the snapshot's own CSV."""

from __future__ import annotations

import asyncio
import csv
import gzip
import io
from pathlib import Path

import pytest

from findesk.core.config import Settings
from findesk.core.result import Err
from findesk.tools.base import ToolContext
from findesk.workflows.backtest.paper import END, START, TICKERS, paper_comparison, to_text

TABLE = Path(__file__).resolve().parents[4] / "shared" / "bench" / "tradingagents_paper" / "table1.json"
SP500 = "prices/equities/sp500_daily_ohlcv_adj_2021-01-04_2025-12-30.csv.gz"


def _raw_closes(snapshot: Path, ticker: str) -> dict[str, float]:
    text = gzip.decompress((snapshot / SP500).read_bytes()).decode()
    return {
        r["date"]: float(r["close"])
        for r in csv.DictReader(io.StringIO(text))
        if r["ticker"] == ticker and START.isoformat() <= r["date"] <= END.isoformat()
    }


def test_table1_rows_next_to_ours_with_reasons(
    snapshot_dir: Path, bt_settings: Settings, bt_tools: ToolContext
) -> None:
    if not TABLE.is_file():
        pytest.skip(f"the paper's table is not at {TABLE}")
    got = asyncio.run(paper_comparison(bt_settings, bt_tools, TABLE))
    assert not isinstance(got, Err), got
    c = got.value
    assert len(c.cells) == 5 * 3 * 4
    assert all(cell.note for cell in c.cells)
    amzn_macd = [x for x in c.cells if x.model == "MACD" and x.ticker == "AMZN"]
    assert all(x.paper is None and "'-'" in x.note for x in amzn_macd)
    raw = _raw_closes(snapshot_dir, "AAPL")
    first, last = min(raw), max(raw)
    d0, c0, d1, c1, pct = c.close_to_close["AAPL"]
    assert (d0.isoformat(), d1.isoformat()) == (first, last) == ("2024-01-02", "2024-03-28")
    assert c0 == pytest.approx(raw[first], abs=1e-6) and c1 == pytest.approx(raw[last], abs=1e-6)
    assert pct == pytest.approx((raw[last] / raw[first] - 1) * 100, abs=1e-3)
    assert len(raw) == 61 and set(c.close_to_close) == set(TICKERS)
    text = to_text(c)
    assert "B&H" in text and "AAPL" in text and "cells agree" in text
