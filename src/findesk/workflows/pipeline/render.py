"""The pipeline's summary as Markdown, terminal text and one HTML page, and the fragments its stream shows.

Rules:
- Presentation only: pure, never raises on odd input.
- One table, in every format: ticker, the scan's angle and conviction, the desk's rating and position
  % of capital, and each child run's id (``findesk runs show RUN_ID``); a refused or failed desk run is a
  row with its reason, never left out. Then the scan's line, the shared budget, warnings, disclaimer.
- Every string from the report is data (``report_parts.printable`` / ``e`` / ``core.formatting.md``).
"""

from __future__ import annotations

from findesk.core.formatting import NONE, md, usd
from findesk.workflows.pipeline.models import DeskRow, PipelineReport
from findesk.workflows.report_parts import data_label, e, html_page, printable

COLUMNS = ("ticker", "angle", "conviction", "desk rating", "position", "status", "run id")


def cells(row: DeskRow) -> list[str]:
    rating = row.rating or NONE
    size = f"{row.position_pct:g}%" if row.position_pct is not None else NONE
    return [printable(row.ticker), row.angle, row.conviction, rating, size, row.status, printable(row.run_id)]


def row_note(row: DeskRow) -> str:
    return f"{printable(row.ticker)}: {printable(row.headline)}"


def title_line(r: PipelineReport) -> str:
    return f"Scan to trade — {r.date.isoformat()} (top {r.top})"


def scan_line(r: PipelineReport) -> str:
    run = f" · run {printable(r.scan_run_id)}" if r.scan_run_id else ""
    return f"Scan {r.scan_status}: {printable(r.scan_headline)}{run}"


def budget_line(r: PipelineReport) -> str:
    return (
        f"Shared model budget {usd(r.budget_usd)}: spent {usd(r.spent_usd)} (reported cost {usd(r.cost_usd)})"
    )


def desks_message(rows: list[DeskRow]) -> str:
    done = sum(r.status == "ok" for r in rows)
    return f"{done} rated, {len(rows) - done} not rated"


def to_markdown(r: PipelineReport, _details: bool = False) -> str:
    out = [
        f"# {md(title_line(r))}",
        "",
        f"_{md(data_label(r.data_mode, r.date))} · mode {md(r.mode)} · run {md(r.run_id)}_",
        "",
    ]
    out += [md(scan_line(r)), ""]
    out += ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    out += ["| " + " | ".join(md(c) for c in cells(row)) + " |" for row in r.rows]
    out += ["", *(f"- {md(row_note(row))}" for row in r.rows), "", md(budget_line(r)), ""]
    if r.warnings:
        out += ["## Warnings", "", *(f"- {md(printable(w))}" for w in r.warnings), ""]
    out += [f"_{md(r.disclaimer)}_", ""]
    return "\n".join(out)


def to_terminal(r: PipelineReport, _details: bool = False) -> str:
    widths = [
        max(len(c), *(len(cells(row)[i]) for row in r.rows)) if r.rows else len(c)
        for i, c in enumerate(COLUMNS)
    ]

    def line(values: list[str]) -> str:
        return "  ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)).rstrip()

    out = [title_line(r), scan_line(r), "", line(list(COLUMNS)), *(line(cells(row)) for row in r.rows), ""]
    out += [row_note(row) for row in r.rows]
    out += ["", budget_line(r)]
    out += [f"Warning: {printable(w)}" for w in r.warnings]
    out += [r.disclaimer]
    return "\n".join(out)


def table_html(rows: list[DeskRow]) -> str:
    head = "".join(f"<th>{e(c)}</th>" for c in COLUMNS)
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in cells(row)) + "</tr>" for row in rows)
    notes = "".join(f"<li>{e(row_note(row))}</li>" for row in rows)
    return f'<table id="desk-runs"><tr>{head}</tr>{body}</table>' + (f"<ul>{notes}</ul>" if notes else "")


_CSS = """
body{font:15px/1.5 system-ui,sans-serif;color:#1d232b;margin:0}
main{max-width:1000px;margin:0 auto;padding:20px}
table{border-collapse:collapse;width:100%}th,td{border:1px solid #d8dde3;padding:3px 6px;text-align:left}
.disclaimer{background:#fdf2f2;border-left:4px solid #c0392b;padding:6px 10px}.muted{color:#5b6675}
"""


def to_html(r: PipelineReport) -> str:
    parts = [
        f"<h1>{e(title_line(r))}</h1>",
        f'<p class="muted">{e(data_label(r.data_mode, r.date))} · run {e(r.run_id)}</p>',
        f"<p>{e(scan_line(r))}</p>",
        table_html(r.rows),
        f"<p>{e(budget_line(r))}</p>",
    ]
    if r.warnings:
        parts.append("<ul>" + "".join(f"<li>{e(w)}</li>" for w in r.warnings) + "</ul>")
    parts.append(f'<p class="disclaimer" id="disclaimer">{e(r.disclaimer)}</p>')
    return html_page(title_line(r), _CSS, "\n".join(parts))
