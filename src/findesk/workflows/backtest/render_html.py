"""The backtest report as one self-contained HTML page: per row, the equity curve against buy & hold as
an inline SVG chart, the metrics table, warnings.

Rules:
- Presentation only, deterministic bytes; the SVG follows the ETF dashboard's chart rules
  (``workflows.etf_weekly.charts``: no script, no external reference, every text escaped).
- Both curves are drawn on one scale (equity in USD from the same starting cash), so a reader compares
  levels directly; NaN or missing values are gaps, never points.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from findesk.workflows.backtest.models import BacktestReport, BacktestRow
from findesk.workflows.backtest.render_markdown import HEAD, _header, overfit_line, table_rows
from findesk.workflows.report_parts import e, html_page
from findesk.workflows.svg import Frame, svg_line, svg_open, svg_path, svg_text

STRATEGY_COLOUR = "#1f5fa8"
HOLD_COLOUR = "#9aa3ad"
CSS = (
    "body{font-family:system-ui,sans-serif;margin:1.5rem;color:#1d232b}table{border-collapse:collapse;"
    "margin:.5rem 0}td,th{border:1px solid #d5dae0;padding:.2rem .5rem;text-align:right}"
    "td:first-child,td:nth-child(2),th{text-align:left}.warn{color:#8a4b00}.muted{color:#6b7580}"
)


def _finite(v: float | None) -> bool:
    return v is not None and math.isfinite(v)


def equity_svg(row: BacktestRow) -> str:
    """The strategy's equity and buy & hold's over the row's sessions."""
    width, height = 640, 260
    left, right, top, bottom = 70, 20, 28, 30
    n = min(len(row.dates), len(row.equity))
    label = (
        f"{row.ticker} {row.strategy}: equity vs buy & hold, {n} sessions "
        f"{row.start.isoformat()} to {row.end.isoformat()}"
    )
    out = [svg_open("equity", width, height, label)]
    hold: Sequence[float | None] = list(row.buy_hold_equity[:n]) + [None] * (n - len(row.buy_hold_equity[:n]))
    values = [v for v in (*row.equity[:n], *hold) if v is not None and _finite(v)]
    if n < 2 or not values:
        out.append(svg_text(width / 2, height / 2, "not enough sessions for a chart", anchor="middle"))
        return "".join(out) + "</svg>"
    frame = Frame.fit(width, height, (left, right, top, bottom), n, values)
    px, py = frame.x, frame.y
    for k in range(5):
        v = frame.gridline(k)
        out.append(svg_line(left, py(v), width - right, py(v), "#eceff3"))
        out.append(svg_text(left - 6, py(v) + 4, e(f"{v:,.0f}"), anchor="end", size=10))
    for cls, line, colour in (("buy-hold", hold, HOLD_COLOUR), ("strategy", row.equity[:n], STRATEGY_COLOUR)):
        pts = [(px(i), py(v)) if v is not None and _finite(v) else None for i, v in enumerate(line)]
        d = svg_path(pts)
        if d:
            out.append(f'<path class="{cls}" d="{d}" fill="none" stroke="{colour}" stroke-width="1.6"/>')
    out.append(svg_text(left, top - 10, e(f"{row.strategy}"), size=11, extra=f' fill="{STRATEGY_COLOUR}"'))
    out.append(svg_text(left + 160, top - 10, "buy &amp; hold", size=11, extra=f' fill="{HOLD_COLOUR}"'))
    out.append(svg_text(left, height - 8, e(row.dates[0].isoformat()), size=10))
    out.append(svg_text(width - right, height - 8, e(row.dates[n - 1].isoformat()), anchor="end", size=10))
    return "".join(out) + "</svg>"


def to_html(report: BacktestReport) -> str:
    parts = [f"<h1>Backtest: {e(', '.join(report.tickers))} — {e(', '.join(report.strategies))}</h1>"]
    parts += [f'<p class="muted">{e(h)}</p>' for h in _header(report)]
    head = "".join(f"<th>{e(h)}</th>" for h in HEAD)
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in table_rows(report))
    parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
    for row in report.rows:
        parts.append(f"<h2>{e(row.ticker)} · {e(row.strategy)}</h2>{equity_svg(row)}")
    for o in report.overfit:
        parts.append(
            f"<h2>Overfitting check: {e(o.ticker)} {e(o.strategy)} ({o.grid_size} parameter sets)</h2>"
            f"<p>{e(overfit_line(o))}</p>"
        )
    if report.warnings:
        parts.append(
            "<h2>Warnings</h2><ul>"
            + "".join(f'<li class="warn">{e(w)}</li>' for w in report.warnings)
            + "</ul>"
        )
    return html_page(f"Backtest {', '.join(report.tickers)}", CSS, "\n".join(parts))
