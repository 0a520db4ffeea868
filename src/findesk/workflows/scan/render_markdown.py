"""The market scan as Markdown and as terminal text, and the plain-text lines both share with the HTML page
(``render_html``) and the streamed sections (``stream``).

Rules:
- Presentation only: pure, never raises on odd input (a phase without a board, None figures).
- Order, in every format: the date and data mode, the STOCKS TO INVESTIGATE (ticker, sector, angle,
  conviction, rationale, catalysts, risks), the executive summary, macro context and key themes, then
  each phase (geopolitical, movers, sectors, industries) with its status, summary and board, then the
  warnings and the disclaimer; with ``details`` the per-agent tokens and cost and the tool trace.
- Every string from the report is data: on one printable line (``report_parts.printable``); Markdown
  through ``core.formatting.md``. Figures are the report's, formatted, never recomputed.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable

from findesk.agents.roles.scan.models import (
    Candidate,
    GeopoliticalReport,
    IndustryReport,
    MoversReport,
    SectorReport,
    SynthesisReport,
    Theme,
)
from findesk.analytics.scan.models import MoverRow
from findesk.core.formatting import NONE, compact, finite, md, usd
from findesk.workflows.report_parts import TOOL_COLUMNS, data_label, printable, tool_row
from findesk.workflows.scan.models import ScanReport

WIDTH = 100
ROWS = 5  # rows per movers list in the terminal view (all of them in Markdown and HTML)
PhaseReport = GeopoliticalReport | MoversReport | SectorReport | IndustryReport
PHASE_TITLES: tuple[tuple[str, str], ...] = (
    ("geopolitical", "Geopolitical and macro topics"),
    ("movers", "Market movers"),
    ("sectors", "Sector performance"),
    ("industries", "Industry deep dive"),
)


def pct(value: float | None) -> str:
    return f"{value:+.2f}%" if finite(value) else NONE


def title_line(r: ScanReport) -> str:
    return f"Market scan — {r.date.isoformat()}"


def run_line(r: ScanReport) -> str:
    return f"{data_label(r.data_mode, r.date)} · mode {printable(r.mode)} · run {printable(r.run_id)}"


def candidate_head(c: Candidate) -> str:
    return f"{printable(c.ticker)} — {printable(c.sector)} · {c.angle} · {c.conviction} conviction"


def candidate_lines(c: Candidate) -> list[str]:
    lines = [printable(c.rationale)]
    lines += [f"Catalyst: {printable(x)}" for x in c.catalysts]
    lines += [f"Risk: {printable(x)}" for x in c.risks]
    return lines


def theme_line(t: Theme) -> str:
    evidence = "; ".join(printable(x) for x in t.evidence)
    return f"{printable(t.title)} ({t.conviction})" + (f": {evidence}" if evidence else "")


def synthesis_message(s: SynthesisReport | None) -> str:
    if s is None:
        return "no synthesis: the boards hold too few candidates"
    return f"{len(s.stocks_to_investigate)} stocks to investigate"


def mover_line(row: MoverRow) -> str:
    cap = f"cap ${compact(row.market_cap_usd)}" if finite(row.market_cap_usd) else "cap unknown"
    return (
        f"{printable(row.symbol)} {pct(row.pct_change)} at ${row.close:,.2f} · {row.volume:,} shares "
        f"(${compact(row.dollar_volume)}) · {cap}"
    )


def phase_message(p: PhaseReport) -> str:
    return f"{p.status} · {printable(p.summary)}"


def board_lines(p: PhaseReport, rows: int | None = None) -> list[str]:
    """The board of a phase as plain lines (its figures as the tools gave them)."""
    lines: list[str] = []
    if isinstance(p, MoversReport) and p.board is not None:
        b = p.board
        lines.append(
            f"Session {b.session.isoformat()}: {b.kept:,} of {b.universe:,} listings pass the filters"
        )
        for label, table in (("Gainers", b.gainers), ("Losers", b.losers), ("Most active", b.most_active)):
            lines += [f"{label}: {mover_line(r)}" for r in table[:rows]]
    elif isinstance(p, SectorReport) and p.board is not None:
        for f in (*p.board.sectors, *p.board.indexes):
            rets = " · ".join(f"{w} {pct(f.returns.get(w))}" for w in ("1W", "1M", "3M", "YTD"))
            rank = f" (#{f.rank_1m})" if f.rank_1m is not None else ""
            lines.append(f"{printable(f.ticker)} {printable(f.name)}{rank}: {rets}")
        if p.board.leaders:
            lines.append("Leaders: " + ", ".join(printable(t) for t in p.board.leaders))
        if p.board.laggards:
            lines.append("Laggards: " + ", ".join(printable(t) for t in p.board.laggards))
    elif isinstance(p, GeopoliticalReport) and p.board is not None:
        for t in p.board.topics:
            tone = f"{t.tone:+.2f}" if t.tone is not None else NONE
            lines.append(f"{t.topic}: {t.articles:,} articles, tone {tone}")
            lines += [
                f"  {printable(h.title)} ({printable(h.source)}, {h.published.isoformat()})"
                for h in t.headlines[:rows]
            ]
    elif isinstance(p, IndustryReport) and p.board is not None:
        for d in p.board.sectors:
            lines.append(
                f"{printable(d.sector)} ({printable(d.etf)} 1M {pct(d.etf_return_1m)}), "
                f"{d.constituents} members"
            )
            for sub in d.sub_industries[:rows]:
                best = f", best {printable(sub.best.ticker)} {pct(sub.best.return_1m)}" if sub.best else ""
                lines.append(f"  {printable(sub.sub_industry)}: median 1M {pct(sub.median_return_1m)}{best}")
    for w in p.warnings:
        lines.append(f"Warning: {printable(w)}")
    return lines


def phases(r: ScanReport) -> Iterable[tuple[str, PhaseReport]]:
    reports: dict[str, PhaseReport] = {
        "geopolitical": r.geopolitical,
        "movers": r.movers,
        "sectors": r.sectors,
        "industries": r.industries,
    }
    for key, title in PHASE_TITLES:
        yield title, reports[key]


def to_markdown(r: ScanReport, details: bool = False) -> str:
    out = [f"# {md(title_line(r))}", "", f"_{md(run_line(r))}_", ""]
    s = r.synthesis
    out += ["## Stocks to investigate", ""]
    if s is None:
        out += [md(synthesis_message(s)), ""]
    else:
        for i, c in enumerate(s.stocks_to_investigate, 1):
            out.append(f"{i}. **{md(candidate_head(c))}**")
            out += [f"   - {md(line)}" for line in candidate_lines(c)]
        out += ["", "## Executive summary", "", md(printable(s.executive_summary)), ""]
        out += ["## Macro context", "", md(printable(s.macro_context)), ""]
        if s.key_themes:
            out += ["## Key themes", "", *(f"- {md(theme_line(t))}" for t in s.key_themes), ""]
    for title, p in phases(r):
        out += [f"## {md(title)}", "", f"**{p.status}** — {md(printable(p.summary))}", ""]
        out += [f"- {md(line)}" for line in board_lines(p)]
        out.append("")
    if r.warnings:
        out += ["## Warnings", "", *(f"- {md(printable(w))}" for w in r.warnings), ""]
    if details:
        out += [
            "## Agents",
            "",
            "| agent | mode | tool calls | tokens in | tokens out | cost |",
            "|---|---|---|---|---|---|",
        ]
        out += [
            f"| {md(a.name)} | {a.mode} | {a.tool_calls} | {a.input_tokens:,} | {a.output_tokens:,} "
            f"| {usd(a.cost_usd)} |"
            for a in r.agents
        ]
        out += [
            "",
            "## Tool trace",
            "",
            "| " + " | ".join(TOOL_COLUMNS) + " |",
            "|" + "---|" * len(TOOL_COLUMNS),
        ]
        out += ["| " + " | ".join(md(c) for c in tool_row(t)) + " |" for t in r.tool_calls]
        out.append("")
    out += [f"_{md(r.disclaimer)}_", ""]
    return "\n".join(out)


def _wrap(text: str, indent: str = "") -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent + "  ") or [indent]


def to_terminal(r: ScanReport, details: bool = False) -> str:
    out = [title_line(r), run_line(r), ""]
    s = r.synthesis
    out.append("STOCKS TO INVESTIGATE")
    if s is None:
        out.append(synthesis_message(s))
    else:
        for i, c in enumerate(s.stocks_to_investigate, 1):
            out += _wrap(f"{i:>2}. {candidate_head(c)}")
            for line in candidate_lines(c) if details else candidate_lines(c)[:1]:
                out += _wrap(line, "     ")
        out += ["", "Summary:", *_wrap(printable(s.executive_summary), "  ")]
        out += ["Macro:", *_wrap(printable(s.macro_context), "  ")]
        for t in s.key_themes:
            out += _wrap(f"Theme: {theme_line(t)}", "  ")
    for title, p in phases(r):
        out += ["", f"{title.upper()} [{p.status}]", *_wrap(printable(p.summary), "  ")]
        if details:
            for line in board_lines(p, ROWS):
                out += _wrap(line, "  ")
    if r.warnings:
        out += ["", "Warnings:"] + [w for x in r.warnings for w in _wrap(printable(x), "  ")]
    if details:
        out += ["", "Tool trace:"] + [
            w for t in r.tool_calls for w in _wrap(" · ".join(tool_row(t)[:3] + tool_row(t)[6:]), "  ")
        ]
    cost = f" · {usd(r.cost_usd)}" if r.mode == "model" else ""
    out += [
        "",
        f"{len(r.tool_calls)} tool calls{cost} · findesk runs show {printable(r.run_id)}",
        r.disclaimer,
    ]
    return "\n".join(out)
