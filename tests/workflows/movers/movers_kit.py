"""The movers analyzer's test kit: run it as a user would (a session in; the report, events and files
out), and an independent reading of the snapshot's raw files to check it against."""

from __future__ import annotations

import csv
import gzip
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from findesk.agents.runtime import ModelResolver
from findesk.core.config import Settings
from findesk.core.events.model import Event
from findesk.core.result import Err
from findesk.tools.base import ToolContext
from findesk.workflows.movers.models import MoversReport
from findesk.workflows.movers.spec import SPEC
from workflow_kit import run_spec

DAY = "2025-08-29"


@dataclass
class MoversRun:
    report: MoversReport | Err
    events: list[Event]

    @property
    def ok(self) -> MoversReport:
        assert not isinstance(self.report, Err), self.report
        return self.report

    def tool_results(self, name: str) -> list[dict[str, Any]]:
        return [e.data.model_dump() for e in self.events if e.type == "tool_result" and e.data.name == name]


def run_movers(
    settings: Settings,
    tools: ToolContext | None,
    inputs: dict[str, Any],
    *,
    as_of: str = DAY,
    mode: str = "deterministic",
    models: ModelResolver | None = None,
) -> MoversRun:
    report, events = run_spec(SPEC, settings, tools, inputs, as_of=as_of, mode=mode, models=models)
    return MoversRun(report, events)


def independent_top_gainer(snapshot: Path, day: str = DAY) -> str:
    """The session's top NASDAQ common-stock gainer read straight from the raw files: the screener
    parquet, the Nasdaq Trader directory of 2025-08-11 (tiers, ETF flags, test issues) and the month-end
    caps, with the documented floors (price >= 5, volume >= 100,000, cap >= $300M)."""
    listed: dict[str, tuple[str, bool]] = {}
    with (snapshot / "reference/nasdaqtrader/nasdaqlisted_2025-08-11.txt").open(encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="|"):
            if row["Symbol"].startswith("File Creation Time") or row["Test Issue"] == "Y":
                continue
            listed[row["Symbol"]] = (row["Security Name"], row["ETF"] == "Y")
    caps: dict[str, float] = {}
    with gzip.open(
        snapshot / "prices/market/us_listed_stocks_monthend_marketcap_2023-01_2025-12.csv.gz", "rt"
    ) as f:
        for row in csv.DictReader(f):
            if row["date"] == day and row["market_cap_usd"]:
                caps[row["symbol"]] = float(row["market_cap_usd"])
    rows = session_rows(snapshot, day)
    best: tuple[float, str] | None = None
    derivative = re.compile(r"\b(warrants?|rights?|units?|preferred|notes?|debentures?)\b", re.IGNORECASE)
    for sym, close, pct, vol in rows:
        if sym not in listed or listed[sym][1] or close is None or pct is None or vol is None:
            continue
        if len(sym) == 5 and sym[-1] in "WUR":
            continue
        if derivative.search(listed[sym][0].split(" - ")[-1]) and "Common" not in listed[sym][0]:
            continue
        if close < 5 or vol < 100_000 or caps.get(sym, 0.0) < 300e6 or pct <= 0:
            continue
        if best is None or ((pct, sym) > (best[0], best[1]) and pct > best[0]):
            best = (pct, sym)
    assert best is not None
    return best[1]


def session_rows(snapshot: Path, day: str) -> list[tuple[str, float | None, float | None, int | None]]:
    """(symbol, close, pct_change, volume) of every row of the screener parquet on ``day``."""
    import pyarrow.parquet as pq

    path = next((snapshot / "prices/market").glob("us_listed_stocks_daily_close_pctchange_volume_*.parquet"))
    t = pq.read_table(path).to_pydict()
    return [
        (s, c, p, v)
        for d, s, c, p, v in zip(
            t["date"], t["symbol"], t["close"], t["pct_change"], t["volume"], strict=True
        )
        if d == day
    ]


def symbol_history(snapshot: Path, symbol: str) -> dict[str, tuple[float, float]]:
    """Day -> (close, volume) of one symbol in the screener parquet."""
    import pyarrow.parquet as pq

    path = next((snapshot / "prices/market").glob("us_listed_stocks_daily_close_pctchange_volume_*.parquet"))
    t = pq.read_table(path, columns=["date", "symbol", "close", "volume"]).to_pydict()
    return {
        d: (c, float(v))
        for d, s, c, v in zip(t["date"], t["symbol"], t["close"], t["volume"], strict=True)
        if s == symbol
    }
