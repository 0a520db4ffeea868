"""The movers report as terminal text, Markdown, HTML and the email's parts.

Rules:
- Every string from data (names, headlines, URLs, program output) is escaped in HTML (``html.escape``);
  a link is kept only for an absolute http(s) URL with no quote, space or bracket (``safe_url``), in
  Markdown as in HTML. The HTML is self-contained: the chart is an inline
  image (``data:`` in the report, ``cid:chart`` in the email), no script, nothing fetched.
- What is missing is said, never hidden: a phase without data states why (its warning), and the email
  lists every warning, so a failed step still yields a report that says what failed.
- Figures are printed from the report's own fields; nothing is computed here.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import Any

from findesk.analytics.movers.models import MoverMetrics
from findesk.workflows.movers.models import MoversReport

METRIC_LABELS: tuple[tuple[str, str, str], ...] = (
    ("total_return_pct", "Total return over the window", "%"),
    ("annualized_volatility_pct", "Annualised volatility (σ·√252)", "% "),
    ("volume_spike_ratio", "Volume spike (last / mean of earlier sessions)", "×"),
    ("intraday_range_pct", "Intraday range of the session ((high − low) / close)", "%"),
    ("spy_return_pct", "SPY over the same sessions", "%"),
    ("relative_return_pct", "Relative to SPY", " pp"),
)


def _fmt(value: float | None, unit: str) -> str:
    """A return or a difference carries its sign; a level (volatility, a ratio) does not."""
    if value is None:
        return "n/a"
    if unit == "×":
        return f"{value:.2f}×"
    if unit == "% ":
        return f"{value:.2f}%"
    return f"{value:+.2f}{unit}"


def metric_rows(m: MoverMetrics | None) -> list[tuple[str, str]]:
    if m is None:
        return []
    values = m.model_dump()
    return [(label, _fmt(values[key], unit)) for key, label, unit in METRIC_LABELS]


def headline(r: MoversReport) -> str:
    if r.symbol is None:
        return f"Movers {r.date.isoformat()}: no NASDAQ gainer to analyze"
    top = r.gainers.board.gainers[0] if r.gainers.board and r.gainers.board.gainers else None
    move = f" {top.pct_change:+g}% to ${top.close:,.2f}" if top else ""
    return f"Movers {r.date.isoformat()}: {r.symbol}{' (' + r.name + ')' if r.name else ''}{move}"


def _missing(r: MoversReport) -> list[str]:
    return list(dict.fromkeys(r.warnings))


def to_markdown(r: MoversReport, details: bool = False) -> str:
    lines = [f"# {headline(r)}", "", f"_{r.data_mode} · mode {r.mode}_" if r.data_mode else "", ""]
    board = r.gainers.board
    lines += ["## Top NASDAQ gainers", "", r.gainers.summary, ""]
    if board is not None and board.gainers:
        lines += ["| # | Symbol | Name | Tier | Close | Change | Volume |", "|---|---|---|---|---|---|---|"]
        for g in board.gainers:
            lines.append(
                f"| {g.rank} | {g.symbol} | {g.name or ''} | {g.exchange_code or g.exchange} | "
                f"${g.close:,.2f} | "
                f"{g.pct_change:+g}% | {g.volume:,} |"
            )
        lines += ["", f"Source: {'; '.join(board.sources)}", ""]
        if details and board.notes:
            lines += [f"- note: {n}" for n in board.notes] + [""]
    if r.history is not None:
        lines += ["## History vs SPY", "", r.history.summary, ""]
    if r.metrics is not None:
        check = {
            "sandbox_matched": "computed by the analysis program in the sandbox and matched by numpy",
            "code_only": "numpy only (no program's figures were used)",
            "none": "",
        }[r.metrics_check]
        lines += ["## Metrics", "", f"_{check}_", "", "| Metric | Value |", "|---|---|"]
        lines += [f"| {label} | {value} |" for label, value in metric_rows(r.metrics)]
        lines.append("")
    for p in r.programs:
        status = p.run.status if p.run else "not run"
        lines.append(
            f"- {p.origin} program: {status}{' — accepted' if p.accepted else ''}"
            + (f" ({'; '.join(p.problems)[:300]})" if p.problems else "")
        )
    if r.programs:
        lines.append("")
    if r.news is not None:
        lines += ["## News", "", r.news.summary, ""]
        for n in r.news.items:
            lines.append(
                f"- {n.published_at.date().isoformat()} {n.publisher or ''}: {n.title}"
                + (f" <{safe_url(n.url)}>" if safe_url(n.url) else "")
            )
        lines.append("")
    if r.delivery is not None:
        lines += [
            "## Email",
            "",
            f"{r.delivery.status}: {r.delivery.reason}"
            + (f" ({r.delivery.eml_path})" if r.delivery.eml_path else ""),
            "",
        ]
    missing = _missing(r)
    if missing:
        lines += ["## What is missing or was stopped", ""] + [f"- {w}" for w in missing] + [""]
    lines.append(f"_{r.disclaimer}_")
    return "\n".join(lines).replace("\n\n\n", "\n\n")


def to_terminal(r: MoversReport, details: bool = False) -> str:
    return to_markdown(r, details)


def esc(text: object) -> str:
    """``text`` escaped for HTML text and attributes (every string from data goes through it)."""
    return html.escape(str(text), quote=True)


_SAFE_URL = re.compile(r"^https?://[^\s\"'<>`\\]+$", re.IGNORECASE)


def safe_url(url: str | None) -> str | None:
    """An absolute http(s) URL with nothing that could break out of an attribute or a Markdown link
    (quotes, spaces, angle brackets, backticks, backslashes), or None: such a link is not shown."""
    return url if url is not None and _SAFE_URL.match(url) else None


def _link(url: str | None, text: str) -> str:
    shown = safe_url(url)
    return f'<a href="{esc(shown)}">{esc(text)}</a>' if shown else esc(text)


CSS = (
    "body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#1d2733;max-width:760px;"
    "margin:0 auto;"
    "padding:16px}table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #d5dbe3;padding:4px 8px;"
    "font-size:13px;text-align:left}th{background:#f1f4f8}.muted{color:#5b6675;font-size:12px}.warn{color:#8a4b00}"
)


def body_html(r: MoversReport, chart_src: str | None) -> str:
    parts = [f"<h1>{esc(headline(r))}</h1>"]
    if r.data_mode:
        parts.append(f'<p class="muted">{esc(r.data_mode)} · mode {esc(r.mode)}</p>')
    if chart_src:
        parts.append(f'<p><img src="{esc(chart_src)}" alt="{esc(r.symbol or "")} vs SPY" width="760"></p>')
    parts.append(f"<h2>Top NASDAQ gainers</h2><p>{esc(r.gainers.summary)}</p>")
    board = r.gainers.board
    if board is not None and board.gainers:
        rows = "".join(
            f"<tr><td>{g.rank}</td><td>{esc(g.symbol)}</td><td>{esc(g.name or '')}</td>"
            f"<td>{esc(g.exchange_code or g.exchange)}</td><td>${g.close:,.2f}</td>"
            f"<td>{g.pct_change:+g}%</td>"
            f"<td>{g.volume:,}</td></tr>"
            for g in board.gainers
        )
        parts.append(
            "<table><tr><th>#</th><th>Symbol</th><th>Name</th><th>Tier</th><th>Close</th><th>Change</th>"
            f'<th>Volume</th></tr>{rows}</table><p class="muted">Source: {esc("; ".join(board.sources))}</p>'
        )
        if board.notes:
            notes = "".join(f"<li>{esc(n)}</li>" for n in board.notes)
            parts.append(f'<details class="muted"><summary>Source notes</summary><ul>{notes}</ul></details>')
    if r.history is not None:
        parts.append(f"<h2>History vs SPY</h2><p>{esc(r.history.summary)}</p>")
    if r.metrics is not None:
        rows = "".join(
            f"<tr><td>{esc(label)}</td><td>{esc(value)}</td></tr>" for label, value in metric_rows(r.metrics)
        )
        verdict = (
            "Computed by the analysis program in the sandbox; every figure matched numpy."
            if r.metrics_check == "sandbox_matched"
            else "numpy only: no program's figures were used."
        )
        parts.append(f'<h2>Metrics</h2><p class="muted">{esc(verdict)}</p><table>{rows}</table>')
    if r.programs:
        items = "".join(
            f"<li>{esc(p.origin)} program: {esc(p.run.status if p.run else 'not run')}"
            f"{' — accepted' if p.accepted else ''}"
            + (f' <span class="warn">({esc("; ".join(p.problems)[:300])})</span>' if p.problems else "")
            + "</li>"
            for p in r.programs
        )
        parts.append(f"<ul>{items}</ul>")
    if r.news is not None:
        items = "".join(
            f"<li>{esc(n.published_at.date().isoformat())} {esc(n.publisher or '')}: "
            f"{_link(n.url, n.title)}</li>"
            for n in r.news.items
        )
        parts.append(f"<h2>News</h2><p>{esc(r.news.summary)}</p>" + (f"<ul>{items}</ul>" if items else ""))
    missing = _missing(r)
    if missing:
        items = "".join(f"<li>{esc(w)}</li>" for w in missing)
        parts.append(f'<h2>What is missing or was stopped</h2><ul class="warn">{items}</ul>')
    parts.append(f'<p class="muted">{esc(r.disclaimer)}</p>')
    return "".join(parts)


def to_html(r: MoversReport, _details: bool = False) -> str:
    chart = f"data:image/png;base64,{r.chart_png_base64}" if r.chart_png_base64 else None
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{esc(headline(r))}</title>'
        f"<style>{CSS}</style></head><body>{body_html(r, chart)}</body></html>"
    )


def subject(r: MoversReport) -> str:
    """The email's subject: short enough (< 78 characters with its header name) never to be folded."""
    top = r.gainers.board.gainers[0] if r.gainers.board and r.gainers.board.gainers else None
    if r.symbol is None or top is None:
        return f"Movers {r.date.isoformat()}: no NASDAQ gainer to analyze"
    return f"Movers {r.date.isoformat()}: {r.symbol} {top.pct_change:+g}% to ${top.close:,.2f}"


def email_parts(state: Mapping[str, Any], draft: MoversReport) -> tuple[str, str, str]:
    """The email's subject, plain text and HTML (the chart as ``cid:chart``) for the run so far."""
    title = subject(draft)
    text = to_markdown(draft)
    chart = "cid:chart" if state.get("chart_png_base64") else None
    page = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><style>{CSS}</style></head>'
        f"<body>{body_html(draft, chart)}</body></html>"
    )
    return title, text, page
