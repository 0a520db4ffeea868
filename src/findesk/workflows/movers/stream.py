"""The movers analyzer's streamed sections: the gainers, the history, the news, the analysis and the
delivery, each as it lands.

Rules:
- The graph's nodes send ``(name, value)`` chunks; a chunk of any other shape is ignored, never raised.
- Every string is escaped (``render.esc``); ``finish`` emits, from the report, any section no chunk
  produced or the assembler changed, so a finished run always shows all five.
"""

from __future__ import annotations

from typing import Any

from findesk.agents.roles.movers.models import GainersReport, HistoryReport, NewsReport
from findesk.tools.report_email import Delivery
from findesk.workflows.movers.models import MoversReport
from findesk.workflows.movers.render import esc, metric_rows
from findesk.workflows.spec import RunScope

SECTIONS: tuple[tuple[str, str], ...] = (
    ("gainers", "Top NASDAQ gainers"),
    ("history", "History vs SPY"),
    ("news", "News"),
    ("analysis", "Analysis in the sandbox"),
    ("delivery", "Chart and email"),
)


def _gainers(r: GainersReport) -> str:
    rows = ""
    if r.board is not None:
        rows = "".join(
            f"<li>{g.rank}. {esc(g.symbol)} ({esc(g.exchange_code or g.exchange)}) {g.pct_change:+g}% "
            f"${g.close:,.2f}</li>"
            for g in r.board.gainers
        )
    return f"<p>{esc(r.summary)}</p>" + (f"<ul>{rows}</ul>" if rows else "")


def _analysis(report: MoversReport) -> str:
    rows = "".join(f"<li>{esc(label)}: {esc(value)}</li>" for label, value in metric_rows(report.metrics))
    runs = "".join(
        f"<li>{esc(p.origin)} program: {esc(p.run.status if p.run else 'not run')}"
        f"{' (accepted)' if p.accepted else ''}</li>"
        for p in report.programs
    )
    if not rows and not runs:
        return "<p>No analysis: no history to analyze.</p>"
    return f"<ul>{runs}</ul><ul>{rows}</ul>"


def _delivery(d: Delivery | None, chart: bool) -> str:
    drawn = "Chart drawn." if chart else "No chart (no history)."
    if d is None:
        return f"<p>{drawn} No email step ran.</p>"
    where = f" ({esc(d.eml_path)})" if d.eml_path else ""
    return f"<p>{drawn} Email {esc(d.status)}{where}: {esc(d.reason)}</p>"


class MoversStream:
    def __init__(self, scope: RunScope) -> None:
        self._scope = scope
        self._shown: dict[str, str] = {}

    def _emit(self, name: str, html: str) -> None:
        if self._shown.get(name) == html:
            return
        self._shown[name] = html
        self._scope.section(name, html)

    def update(self, chunk: Any) -> None:
        if not isinstance(chunk, tuple) or len(chunk) != 2:
            return
        name, value = chunk
        if name == "gainers" and isinstance(value, GainersReport):
            self._emit(name, _gainers(value))
        elif (name == "history" and isinstance(value, HistoryReport)) or (
            name == "news" and isinstance(value, NewsReport)
        ):
            self._emit(name, f"<p>{esc(value.summary)}</p>")

    def finish(self, report: Any) -> None:
        if not isinstance(report, MoversReport):
            return
        r = report
        self._emit("gainers", _gainers(r.gainers))
        self._emit(
            "history",
            f"<p>{esc(r.history.summary if r.history else 'No history: no symbol to analyze.')}</p>",
        )
        self._emit("news", f"<p>{esc(r.news.summary if r.news else 'No news: no symbol to analyze.')}</p>")
        self._emit("analysis", _analysis(r))
        self._emit("delivery", _delivery(r.delivery, r.chart_png_base64 is not None))
