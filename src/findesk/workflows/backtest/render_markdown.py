"""The backtest report as Markdown and as terminal text.

Rules:
- Presentation only: every figure is the report's own, rounded for display; a missing Sharpe (returns
  that do not vary) prints as "—", never 0.
- Buy & hold over the same window (the same fills and costs) is shown once per ticker, first, unless
  it was asked for as a strategy; then each strategy with its time per session. The risk-free source
  and every warning are printed, nothing is dropped.
- The per-session decision log is printed for at most ``LOG_ROWS`` sessions per row in Markdown (the
  JSON report has all of them).
"""

from __future__ import annotations

from findesk.analytics.backtest.models import Metrics
from findesk.core.formatting import md
from findesk.workflows.backtest.models import BacktestReport, BacktestRow, OverfitReport

LOG_ROWS = 30
NONE = "—"


def _f(value: float | None, digits: int = 2) -> str:
    return NONE if value is None else f"{value:.{digits}f}"


def _cells(m: Metrics) -> list[str]:
    return [
        _f(m.cumulative_return_pct),
        _f(m.annualized_return_pct),
        _f(m.sharpe),
        _f(m.max_drawdown_pct),
        str(m.trades),
        _f(m.turnover),
        _f(m.exposure_pct, 1),
    ]


HEAD = [
    "ticker",
    "strategy",
    "CR %",
    "ARR %",
    "Sharpe",
    "MDD %",
    "trades",
    "turnover",
    "exposure %",
    "ms/session",
]


def _windows(report: BacktestReport) -> list[tuple[object, object]]:
    return list(dict.fromkeys((r.start, r.end) for r in report.rows))


def table_rows(report: BacktestReport) -> list[list[str]]:
    out: list[list[str]] = []
    multi = len(_windows(report)) > 1  # then each row names its window
    shown: set[tuple[str, object, object]] = set()  # (ticker, start, end) whose buy & hold is printed
    for row in report.rows:
        label = f"{row.ticker} {row.start}…{row.end}" if multi else row.ticker
        window = (row.ticker, row.start, row.end)
        if window not in shown:
            shown.add(window)
            # the benchmark once per ticker and window, first: buy & hold with the same fills and costs
            if not any(
                r.strategy == "buy_hold" and (r.ticker, r.start, r.end) == window for r in report.rows
            ):
                out.append([label, "buy & hold (benchmark)", *_cells(row.buy_hold), ""])
        ms = row.timing.seconds_per_session * 1000
        per = f"{ms:.2f}" + (" (cached)" if row.timing.cached else "")
        params = ",".join(f"{k}={v:g}" for k, v in row.params.items())
        name = row.strategy + (f" ({params})" if params else "")
        out.append([label, name, *_cells(row.metrics), per])
    return out


def overfit_line(o: OverfitReport) -> str:
    """The overfitting check in one line: the winner in sample, walk-forward out of sample, PBO."""
    best = o.best_in_sample
    wf = o.walk_forward
    walk = (
        f"walk-forward out of sample {wf['out_of_sample_return_pct']:.2f} % (Sharpe "
        f"{_f(wf['out_of_sample_sharpe'])}) over {len(wf['splits'])} steps"
        if wf
        else f"walk-forward: {o.detail.get('walk_forward', 'not run')}"
    )
    pbo = f"PBO {o.pbo:.3f}" if o.pbo is not None else f"PBO: {o.detail.get('pbo', 'not computed')}"
    return (
        f"best in sample {best.get('config')}: CR {_f(best.get('cumulative_return_pct'))} %, Sharpe "
        f"{_f(best.get('sharpe'))}; {walk}; {pbo}"
    )


def _log_lines(row: BacktestRow) -> list[str]:
    if not row.log:
        return []
    lines = [
        f"#### {md(row.ticker)} {md(row.strategy)}: decisions"
        + (f" (first {LOG_ROWS} of {len(row.log)} sessions)" if len(row.log) > LOG_ROWS else ""),
        "",
        "| session | close | target | position | equity | fill | reason |",
        "|---|---|---|---|---|---|---|",
    ]
    for s in row.log[:LOG_ROWS]:
        fill = f"{s.fill.side} {s.fill.shares:g} @ {s.fill.price:.2f}" if s.fill else ""
        target = "keep" if s.target is None else f"{s.target:g}"
        lines.append(
            f"| {s.session} | {s.close:.2f} | {target} | {s.position:g} | {s.equity:.2f} | {fill} "
            f"| {md(s.reason)} |"
        )
    return [*lines, ""]


def _header(report: BacktestReport) -> list[str]:
    c = report.config
    windows = _windows(report)
    more = (
        f" and {len(windows) - 1} more window(s), each row's Sharpe over its own window's rate"
        if len(windows) > 1
        else ""
    )
    return [
        f"Window {report.start} … {report.end}{more}, as of {report.as_of} ({report.data_mode}); "
        f"cash {c.initial_cash:g}, commission {c.costs.commission_bps:g} bps, slippage "
        f"{c.costs.slippage_bps:g} bps, {'long/short' if c.allow_short else 'long only'}; "
        "orders at a close fill at the next open.",
        f"Risk-free rate: {report.risk_free.pct:.3f} % a year ({report.risk_free.source}).",
        f"Time: {report.seconds:.2f} s, {report.cache_hits} cached row(s).",
    ]


def to_markdown(report: BacktestReport) -> str:
    lines = [f"# Backtest: {', '.join(report.tickers)} — {', '.join(report.strategies)}", ""]
    lines += [*(f"{h}  " for h in _header(report)), ""]
    lines += ["| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    lines += ["| " + " | ".join(md(c) for c in r) + " |" for r in table_rows(report)]
    lines.append("")
    for o in report.overfit:
        lines += [
            f"## Overfitting check: {md(o.ticker)} {md(o.strategy)} ({o.grid_size} parameter sets)",
            "",
            f"- {md(overfit_line(o))}",
            "",
        ]
    for row in report.rows:
        lines += _log_lines(row)
    if report.warnings:
        lines += ["## Warnings", "", *(f"- {md(w)}" for w in report.warnings), ""]
    return "\n".join(lines)


def to_terminal(report: BacktestReport) -> str:
    rows = [HEAD, *table_rows(report)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEAD))]
    out = [f"Backtest {', '.join(report.tickers)}: {', '.join(report.strategies)}", *_header(report), ""]
    for r in rows:
        out.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    for o in report.overfit:
        out += [
            "",
            f"Overfitting check {o.ticker} {o.strategy} ({o.grid_size} parameter sets): {overfit_line(o)}",
        ]
    if report.warnings:
        out += ["", *(f"warning: {w}" for w in report.warnings)]
    return "\n".join(out)
