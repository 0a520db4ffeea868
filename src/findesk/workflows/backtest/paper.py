"""The TradingAgents paper's Table 1 next to our five baselines: AAPL, GOOGL, AMZN, 2024-01-02 … 03-28.

Rules (our conventions, each stated next to the figures it explains):
- Window: the paper's 2024-01-01 … 2024-03-29 has two holidays at its ends, so 2024-01-02 … 2024-03-28
  (61 sessions), the bars issue #168 used. Prices: the snapshot's split- and dividend-adjusted daily
  bars (S&P 500 panel); the paper does not say which prices it used.
- Fills: a decision at a session's close fills at the next session's open; the paper does not say.
  So our buy & hold enters at the 2024-01-03 open. The close-to-close figure (first close → last
  close, no fills, no costs) is printed beside it and must equal the snapshot's own prices.
- Costs: none (0 bps commission and slippage), because the paper states none.
- Warm-up: each rule reads the bars before 2024-01-02 it needs (MACD 26+9, SMA 50 …), so it can act
  from the first session; the paper does not say how its indicators were seeded.
- Long only (the paper's issue #119 reading: long-or-flat daily decisions).
- Metrics: CR in %; ARR compounded over sessions / 252 (the paper's printed ARR is not the
  annualisation of its CR over 61 sessions: its pairs imply N ≈ 1 year, so ARR rows cannot agree);
  Sharpe from daily returns annualised by √252 over the window's risk-free rate (the paper's Sharpe
  frequency and annualisation are unstated); MDD as a positive percent, as the paper prints it.
- A cell "agrees" when it is within ``TOLERANCE`` of the paper's (CR, MDD: 1.0 point; Sharpe: 0.5);
  every other cell says which convention or which known inconsistency of the table explains it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from findesk.analytics.backtest.models import BacktestConfig, Costs, Metrics
from findesk.core.config import Settings
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.tools.base import ToolContext
from findesk.workflows.backtest.models import BacktestReport, BacktestRequest

TICKERS = ("AAPL", "GOOGL", "AMZN")
START, END = date(2024, 1, 2), date(2024, 3, 28)
ROWS = {"B&H": "buy_hold", "MACD": "macd", "KDJ&RSI": "kdj_rsi", "ZMR": "zmr", "SMA": "sma"}
COLUMNS = ("CR%", "ARR%", "SR", "MDD%")
TOLERANCE = {"CR%": 1.0, "ARR%": 1.0, "SR": 0.5, "MDD%": 1.0}
DEFAULT_TABLE = Path("../shared/bench/tradingagents_paper/table1.json")

WHY = {
    "CR%": "our fills are at the next open with warm-up history and no costs; the paper states no fill, "
    "price or seeding convention",
    "ARR%": "the paper's ARR is not CR annualised over 61 sessions (its pairs imply N ≈ 1 year); ours is "
    "compounded over sessions / 252",
    "SR": "ours: daily returns, annualised by √252, over the risk-free rate; the paper's frequency and "
    "annualisation are unstated (its agent Sharpes of 5.6–8.2 are implausible)",
    "MDD%": "peak-to-trough of our daily equity (positive %); it follows from our fills and positions",
}


@dataclass
class Cell:
    model: str
    ticker: str
    column: str
    ours: float | None
    paper: float | None
    note: str

    @property
    def diff(self) -> float | None:
        return None if self.ours is None or self.paper is None else round(self.ours - self.paper, 2)

    @property
    def agrees(self) -> bool:
        d = self.diff
        return d is not None and abs(d) <= TOLERANCE[self.column]


@dataclass
class Comparison:
    cells: list[Cell] = field(default_factory=list)
    close_to_close: dict[str, tuple[date, float, date, float, float]] = field(default_factory=dict)
    risk_free: str = ""
    warnings: list[str] = field(default_factory=list)

    def agreeing(self) -> list[Cell]:
        return [c for c in self.cells if c.agrees]


def load_table(path: Path) -> Result[dict[str, Any]]:
    try:
        data = json.loads(path.read_text())
        rows = data["rows"]
    except (OSError, ValueError, KeyError) as exc:
        return Err(ErrorCode.NOT_FOUND, f"cannot read the paper's Table 1 at {path}: {exc}")
    return Ok({"rows": rows, "known_inconsistencies": data.get("known_inconsistencies", [])})


def _ours(m: Metrics) -> dict[str, float | None]:
    return {
        "CR%": round(m.cumulative_return_pct, 2),
        "ARR%": round(m.annualized_return_pct, 2),
        "SR": None if m.sharpe is None else round(m.sharpe, 2),
        "MDD%": round(abs(m.max_drawdown_pct), 2),
    }


def _note(model: str, ticker: str, column: str, agrees: bool, paper: float | None) -> str:
    if paper is None:
        return "the paper prints '-' (the AMZN MACD row is empty)"
    if model == "ZMR" and ticker == "GOOGL":
        return "the paper's GOOGL ZMR row is inconsistent (CR/ARR sign flip, SR/MDD copied from SMA)"
    if agrees:
        return "agrees within tolerance"
    return WHY[column]


def compare(report: BacktestReport, table: dict[str, Any]) -> Comparison:
    """Every cell of the five baseline rows: ours, the paper's, the difference and why (pure)."""
    out = Comparison(risk_free=f"{report.risk_free.pct:.3f} % a year ({report.risk_free.source})")
    by = {(r.strategy, r.ticker): r for r in report.rows}
    for model, name in ROWS.items():
        for ticker in TICKERS:
            row = by.get((name, ticker))
            paper = table["rows"].get(model, {}).get(ticker) or [None] * 4
            ours = _ours(row.metrics) if row is not None else dict.fromkeys(COLUMNS)
            for k, column in enumerate(COLUMNS):
                cell = Cell(model, ticker, column, ours[column], paper[k], "")
                cell.note = _note(model, ticker, column, cell.agrees, paper[k])
                out.cells.append(cell)
    for ticker in TICKERS:
        row = by.get(("buy_hold", ticker))
        if row is not None and row.log:
            first, last = row.log[0], row.log[-1]
            out.close_to_close[ticker] = (
                first.session,
                first.close,
                last.session,
                last.close,
                round((last.close / first.close - 1.0) * 100.0, 4),
            )
    out.warnings = list(report.warnings)
    return out


def request() -> BacktestRequest:
    """The paper's setting in our terms (see the module rules)."""
    config = BacktestConfig(costs=Costs(commission_bps=0.0, slippage_bps=0.0), allow_short=False)
    return BacktestRequest(
        tickers=list(TICKERS),
        start=START,
        end=END,
        strategies=list(ROWS.values()),
        config=config,
        use_cache=False,
    )


async def paper_comparison(settings: Settings, tools: ToolContext, table_path: Path) -> Result[Comparison]:
    from findesk.workflows.backtest.run import run_backtest

    table = load_table(table_path)
    if isinstance(table, Err):
        return table
    report = await run_backtest(request(), settings=settings, tools=tools)
    if isinstance(report, Err):
        return report
    return Ok(compare(report.value, table.value))


def to_text(c: Comparison) -> str:
    lines = [
        f"Paper Table 1 vs ours, {START} … {END} (61 sessions), next-open fills, no costs, long only",
        f"risk-free: {c.risk_free}",
        "",
        f"{'model':8} {'ticker':6} {'metric':5} {'ours':>8} {'paper':>8} {'diff':>8}  why",
    ]
    for cell in c.cells:

        def f(v: float | None) -> str:
            return "—" if v is None else f"{v:.2f}"

        lines.append(
            f"{cell.model:8} {cell.ticker:6} {cell.column:5} {f(cell.ours):>8} {f(cell.paper):>8} "
            f"{f(cell.diff):>8}  {cell.note}"
        )
    lines += ["", "Buy & hold first close → last close (the snapshot's own adjusted prices, no fills):"]
    for ticker, (d0, c0, d1, c1, pct) in c.close_to_close.items():
        lines.append(f"  {ticker}: {d0} {c0:.4f} → {d1} {c1:.4f} = {pct:+.2f} %")
    agree = c.agreeing()
    lines += [
        "",
        f"{len(agree)} of {sum(x.paper is not None for x in c.cells)} printed cells agree: "
        + (", ".join(f"{x.model} {x.ticker} {x.column}" for x in agree) or "none"),
    ]
    lines += [f"warning: {w}" for w in c.warnings]
    return "\n".join(lines)
