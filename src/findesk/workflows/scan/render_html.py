"""The market scan as one self-contained HTML page, and the section fragments the live stream (``stream``)
shows while the run is going.

Rules:
- Presentation only: pure, never raises on odd input; same report, same bytes.
- Self-contained (``report_parts.html_page``): inline CSS, no script, nothing fetched.
- Every string from the report is data: ``report_parts.e`` (one printable line, html-escaped).
- The fragments (``phase_html``, ``synthesis_html``) use only tags the web page's section allow-list
  keeps (p, ul, ol, li, strong, span, h4, table, a), and the same lines as the Markdown.
- Stable hooks: ``#stocks-to-investigate`` (``li.candidate#candidate-<TICKER>``), ``#themes``,
  ``#phase-<name>``, ``#warnings``, ``#tool-trace``, ``#disclaimer``.
"""

from __future__ import annotations

import re

from findesk.agents.roles.scan.models import SynthesisReport
from findesk.workflows.report_parts import TOOL_COLUMNS, e, html_page, tool_row
from findesk.workflows.scan.models import ScanReport
from findesk.workflows.scan.render_markdown import (
    PhaseReport,
    board_lines,
    candidate_head,
    candidate_lines,
    phases,
    run_line,
    synthesis_message,
    theme_line,
    title_line,
)

_CSS = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d232b;
background:#f6f7f9;margin:0}
main{max-width:1100px;margin:0 auto;padding:20px 28px;background:#fff}
h1{font-size:1.45em;margin:.2em 0}h2{font-size:1.2em;border-bottom:2px solid #d8dde3;padding-bottom:4px}
.muted{color:#5b6675}.conviction-high{color:#17602d;font-weight:700}.conviction-low{color:#5b6675}
li.candidate{margin:.5em 0}.disclaimer{background:#fdf2f2;border-left:4px solid #c0392b;padding:6px 10px}
table{border-collapse:collapse;width:100%;font-size:.85em}
th,td{border:1px solid #d8dde3;padding:3px 6px;text-align:left;vertical-align:top}
"""


def _anchor(ticker: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", ticker)[:20] or "x"


def synthesis_html(s: SynthesisReport | None) -> str:
    if s is None:
        return f'<p class="muted">{e(synthesis_message(s))}</p>'
    items = []
    for c in s.stocks_to_investigate:
        lines = "".join(f"<li>{e(line)}</li>" for line in candidate_lines(c))
        items.append(
            f'<li class="candidate" id="candidate-{_anchor(c.ticker)}">'
            f"<strong>{e(candidate_head(c))}</strong>"
            f"<ul>{lines}</ul></li>"
        )
    themes = "".join(f"<li>{e(theme_line(t))}</li>" for t in s.key_themes)
    return (
        f'<ol id="stocks-to-investigate">{"".join(items)}</ol>'
        f"<h4>Executive summary</h4><p>{e(s.executive_summary)}</p>"
        f"<h4>Macro context</h4><p>{e(s.macro_context)}</p>"
        + (f'<h4>Key themes</h4><ul id="themes">{themes}</ul>' if themes else "")
    )


def phase_html(p: PhaseReport) -> str:
    lines = "".join(f"<li>{e(line)}</li>" for line in board_lines(p))
    return f"<p><strong>{e(p.status)}</strong> — {e(p.summary)}</p>" + (f"<ul>{lines}</ul>" if lines else "")


def to_html(r: ScanReport) -> str:
    parts = [
        f"<h1>{e(title_line(r))}</h1>",
        f'<p class="muted">{e(run_line(r))}</p>',
        "<h2>Stocks to investigate</h2>",
        synthesis_html(r.synthesis),
    ]
    for title, p in phases(r):
        parts.append(f'<section id="phase-{p.phase}"><h2>{e(title)}</h2>{phase_html(p)}</section>')
    if r.warnings:
        parts.append(
            '<h2>Warnings</h2><ul id="warnings">' + "".join(f"<li>{e(w)}</li>" for w in r.warnings) + "</ul>"
        )
    head = "".join(f"<th>{e(c)}</th>" for c in TOOL_COLUMNS)
    rows = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in tool_row(t)) + "</tr>" for t in r.tool_calls)
    parts.append(f'<h2>Tool trace</h2><table id="tool-trace"><tr>{head}</tr>{rows}</table>')
    parts.append(f'<p class="disclaimer" id="disclaimer">{e(r.disclaimer)}</p>')
    return html_page(title_line(r), _CSS, "\n".join(parts))
