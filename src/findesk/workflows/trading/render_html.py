"""The trading desk's report as one self-contained HTML page, and the section fragments the live stream
(``stream``) shows while the run is going.

Rules:
- Presentation only: pure, never raises on odd input; same report, same bytes.
- Self-contained (``report_parts.html_page``): inline CSS, no script, nothing fetched; its
  Content-Security-Policy forbids anything else should data ever slip through.
- Every string from the report is data: ``report_parts.e`` (one printable line, html-escaped, quotes
  included). Links only for whole ``http(s)://`` URLs (``report_parts.link``); a ``javascript:`` or any
  other URL is shown as text. Ids built from data are slugs (``[a-z0-9-]``), made unique.
- The final decision comes first, under the company line; a REVIEW rating is a red banner
  (``#review``: "REVIEW — the model's decision could not be validated: <reason>").
- Debates are shown turn by turn in their recorded order, alternating sides: bull and aggressive on
  the left, bear and conservative on the right, neutral in the middle (``li.turn.turn-<side>``).
- The fragments (``identity_html`` … ``final_html``) use only tags the web page's section allow-list
  keeps (p, ul, ol, li, strong, span, h4, table, a), so a streamed section reads like the page's.
- Same words and figures as the Markdown (``render_markdown``, whose plain-text lines both use).
- Stable hooks: ``#report-header``, ``#final-decision``, ``#review`` (REVIEW only), ``#disclaimer``,
  ``#analysts`` (``article.analyst#analyst-<name>``), ``#investment-debate``, ``#research-manager``,
  ``#trader-plan``, ``#risk-debate``, ``#risk-manager``, ``#lessons``, ``#warnings``, ``#agents``,
  ``#tool-trace``; ratings ``span.rating.rating-<RATING>``; signals ``li.signal#signal-<slug>``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import date

from findesk.agents.roles.trading.models import (
    AnalystReport,
    DebateTurn,
    FinalDecision,
    Identity,
    InvestmentDecision,
    NewsReport,
    TradePlan,
)
from findesk.workflows.report_parts import TOOL_COLUMNS, e, html_page, link, printable, tool_row
from findesk.workflows.trading.models import TradeReport
from findesk.workflows.trading.render_markdown import (
    AGENT_COLUMNS,
    HEADLINES,
    agent_row,
    analyst_facts,
    analyst_head,
    analyst_order,
    analyst_title,
    company_extra,
    company_line,
    decision_line,
    final_items,
    header_items,
    headline_line,
    is_review,
    lesson_lines,
    plan_items,
    review_line,
    signal_line,
    title_line,
    top_signals,
    turn_head,
    usage_line,
    warning_lines,
)

_CSS = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d232b;background:#f6f7f9;
margin:0}
main{max-width:1100px;margin:0 auto;padding:20px 28px;background:#fff}
h1{font-size:1.45em;margin:.2em 0}h4{margin:.3em 0;font-size:1.02em}
h2{font-size:1.2em;border-bottom:2px solid #d8dde3;padding-bottom:4px;margin-top:1.8em}
.muted,.meta{color:#5b6675}.facts{margin:.3em 0}.label{color:#5b6675}
.final{border:2px solid #1d232b;border-radius:8px;padding:10px 14px;margin:12px 0;font-size:1.1em}
.review{background:#fde2e1;border:3px solid #b00020;color:#7a0010;font-weight:700;padding:10px 14px;
border-radius:6px;font-size:1.1em}
.rating{display:inline-block;border-radius:4px;padding:0 8px;font-weight:800;letter-spacing:.03em}
.rating-BUY,.rating-OVERWEIGHT{background:#dff3e4;color:#17602d}.rating-HOLD{background:#eceff3;color:#3d4652}
.rating-UNDERWEIGHT,.rating-SELL{background:#fde2e1;color:#9b1c1c}.rating-REVIEW{background:#b00020;color:#fff}
.disclaimer{background:#fdf2f2;border-left:4px solid #c0392b;padding:6px 10px}
article{border:1px solid #d8dde3;border-radius:6px;padding:8px 14px;margin:10px 0}
.stance{font-weight:700}.stance-bullish{color:#17602d}.stance-bearish{color:#9b1c1c}.stance-neutral{color:#3d4652}
ol.debate{list-style:none;padding:0}
li.turn{border:1px solid #d8dde3;border-radius:6px;padding:6px 12px;margin:8px 0;max-width:78%}
li.turn-bull,li.turn-aggressive{margin-right:auto;border-left:5px solid #17602d}
li.turn-bear,li.turn-conservative{margin-left:auto;border-right:5px solid #9b1c1c}
li.turn-neutral{margin-left:auto;margin-right:auto;border-left:5px solid #8ea4bd}
.turn-head{font-weight:700;margin:0}.refs{font-size:.85em;color:#5b6675}
code{font-size:.9em;background:#eceff3;padding:0 3px;border-radius:3px}
.table-wrap{max-width:100%;overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.85em}
th,td{border:1px solid #d8dde3;padding:3px 6px;text-align:left;vertical-align:top}
td,a{overflow-wrap:anywhere}
footer{margin-top:2em;border-top:1px solid #d8dde3;padding-top:8px}
"""
_RATINGS = ("BUY", "OVERWEIGHT", "HOLD", "UNDERWEIGHT", "SELL", "REVIEW")
_SIDES = ("bull", "bear", "aggressive", "conservative", "neutral")
_STANCES = ("bullish", "bearish", "neutral")


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", printable(text).lower()).strip("-")[:60] or "x"


def signal_anchors(reports: Iterable[AnalystReport]) -> dict[str, str]:
    """A unique ``signal-<slug>`` id per signal id of the reports, numbered when two share a slug."""
    out: dict[str, str] = {}
    for a in reports:
        for s in a.signals:
            if s.id in out:
                continue
            base = anchor = f"signal-{slug(s.id)}"
            n = 1
            while anchor in out.values():
                n += 1
                anchor = f"{base}-{n}"
            out[s.id] = anchor
    return out


def rating(value: str) -> str:
    kind = value if value in _RATINGS else "HOLD"
    return f'<span class="rating rating-{kind}">{e(value)}</span>'


def _spans(items: Iterable[tuple[str, str]]) -> str:
    return " · ".join(
        f'<span class="label">{e(label)}</span> <strong>{e(value)}</strong>' for label, value in items
    )


def _facts(items: Iterable[tuple[str, str]]) -> str:
    return f'<p class="facts">{_spans(items)}</p>'


def _ul(items: Iterable[str], cls: str, empty: str = "none") -> str:
    rows = "".join(items)
    return f'<ul class="{cls}">{rows}</ul>' if rows else f'<p class="muted">{e(empty)}</p>'


def _table(columns: Iterable[str], rows: Iterable[list[str]]) -> str:
    head = "".join(f"<th>{e(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def _cite(signal_id: str, anchors: Mapping[str, str]) -> str:
    anchor = anchors.get(signal_id)
    return (
        f'<a href="#{anchor}"><code>{e(signal_id)}</code></a>' if anchor else f"<code>{e(signal_id)}</code>"
    )


# ---- fragments (the page's sections and the streamed sections) ----


def identity_html(i: Identity, day: date | None = None) -> str:
    when = f" · decision date {day.isoformat()}" if day else ""
    return f'<p><strong>{e(company_line(i))}</strong>{e(when)}</p><p class="meta">{e(company_extra(i))}</p>'


def analyst_html(a: AnalystReport, anchors: Mapping[str, str] | None = None) -> str:
    """One analyst: stance, score and status, the summary, the typed figures, every signal (strongest
    first), headlines with their links, warnings and sources."""
    ids = anchors or {}
    stance = a.stance if a.stance in _STANCES else "neutral"
    out = [
        f'<article class="analyst" id="analyst-{slug(a.analyst)}">',
        f"<h4>{e(analyst_title(a.analyst))} — "
        f'<span class="stance stance-{stance}">{e(analyst_head(a))}</span></h4>',
        f'<p class="summary">{e(a.summary)}</p>',
    ]
    out.append(_ul((f"<li>{e(x)}</li>" for x in analyst_facts(a)), "figures", "no figures"))
    signals = []
    for s in top_signals(a, len(a.signals)):
        anchor = ids.get(s.id)
        hook = f' id="{anchor}"' if anchor else ""
        signals.append(f'<li class="signal"{hook}>{e(signal_line(s))}</li>')
    out.append(_ul(signals, "signals", "no signals"))
    if isinstance(a, NewsReport) and a.company:
        heads = (
            f'<li class="headline">{e(headline_line(h))} — {link(h.url)}</li>' for h in a.company[:HEADLINES]
        )
        out.append(_ul(heads, "headlines"))
    if a.warnings:
        out.append(_ul((f'<li class="warning">{e(w)}</li>' for w in a.warnings), "warnings"))
    if a.sources:
        out.append(f'<p class="refs">sources: {e(", ".join(a.sources))}</p>')
    return "".join(out) + "</article>"


def analysts_html(reports: Sequence[AnalystReport], anchors: Mapping[str, str] | None = None) -> str:
    return "".join(analyst_html(a, anchors) for a in reports)


def turn_html(t: DebateTurn, anchors: Mapping[str, str] | None = None) -> str:
    ids = anchors or {}
    side = t.side if t.side in _SIDES else "neutral"
    cites = ", ".join(_cite(c, ids) for c in t.cites) or "none"
    rebuts = f" · rebuts {_cite(t.rebuts, ids)}" if t.rebuts else ""
    return (
        f'<li class="turn turn-{side}"><p class="turn-head">{e(turn_head(t))}</p>'
        f'<p class="argument">{e(t.argument)}</p><p class="refs">cites {cites}{rebuts}</p></li>'
    )


def debate_html(turns: Sequence[DebateTurn], anchors: Mapping[str, str] | None = None) -> str:
    """The turns in their recorded order, alternating sides."""
    if not turns:
        return '<p class="muted">no turns</p>'
    return '<ol class="debate">' + "".join(turn_html(t, anchors) for t in turns) + "</ol>"


def decision_html(d: InvestmentDecision) -> str:
    bulls = ", ".join(f"<code>{e(x)}</code>" for x in d.bull_points) or "none"
    bears = ", ".join(f"<code>{e(x)}</code>" for x in d.bear_points) or "none"
    out = [
        f"<p>{rating(d.rating)} <strong>{e(decision_line(d))}</strong></p>",
        f'<p class="rationale">{e(d.rationale)}</p>',
        f'<p class="refs">bull points {bulls} · bear points {bears}</p>',
    ]
    if d.lessons_used:
        out.append(_ul((f"<li>{e(x)}</li>" for x in d.lessons_used), "lessons"))
    return "".join(out)


def plan_html(p: TradePlan) -> str:
    return _facts(plan_items(p)) + f'<p class="rationale">{e(p.rationale)}</p>'


def review_html(f: FinalDecision) -> str:
    return f'<p class="review" id="review">{e(review_line(f))}</p>' if is_review(f) else ""


def final_html(f: FinalDecision, with_rationale: bool = True) -> str:
    """The final decision's figures (the rating as a badge), the REVIEW banner, and its rationale."""
    out = [review_html(f), f'<p class="final-line">{rating(f.rating)} · {_spans(final_items(f)[1:])}</p>']
    if with_rationale:
        out.append(f'<p class="rationale">{e(f.rationale)}</p>')
        if f.lessons_used:
            out.append(_ul((f"<li>{e(x)}</li>" for x in f.lessons_used), "lessons"))
    return "".join(out)


# ---- the page ----


def _section(anchor: str, title: str, body: str) -> str:
    return f'<section id="{anchor}"><h2>{e(title)}</h2>{body}</section>'


def to_html(r: TradeReport) -> str:
    """The whole report as one self-contained page. Never raises."""
    anchors = signal_anchors(analyst_order(r))
    f = r.final_decision
    meta = " · ".join(f"{label} {value}" for label, value in header_items(r))
    parts = [
        f'<header id="report-header"><h1>{e(title_line(r))}</h1>'
        f'<p class="meta">{e(company_extra(r.identity))}</p><p class="meta">{e(meta)}</p></header>',
        f'<section id="final-decision" class="final"><h2>Final decision — risk manager</h2>'
        f"{final_html(f, with_rationale=False)}</section>",
        f'<p class="disclaimer" id="disclaimer">{e(r.disclaimer)}</p>',
        _section("analysts", "Analyst reports", analysts_html(analyst_order(r), anchors)),
        _section(
            "investment-debate", "Investment debate — bull vs bear", debate_html(r.investment_debate, anchors)
        ),
        _section("research-manager", "Research manager", decision_html(r.investment_decision)),
        _section("trader-plan", "Trader's plan", plan_html(r.trader_plan)),
        _section("risk-debate", "Risk debate", debate_html(r.risk_debate, anchors)),
        _section(
            "risk-manager",
            "Risk manager",
            f'<p class="rationale">{e(f.rationale)}</p>'
            + (_ul((f"<li>{e(x)}</li>" for x in f.lessons_used), "lessons") if f.lessons_used else ""),
        ),
        _section(
            "lessons",
            "Past lessons used",
            _ul((f"<li>{e(x)}</li>" for x in lesson_lines(r)), "lessons", "none")
            + (_ul((f"<li>{e(x)}</li>" for x in r.memory_notes), "memory-notes") if r.memory_notes else ""),
        ),
        _section("warnings", "Warnings", _ul((f"<li>{e(w)}</li>" for w in warning_lines(r)), "warnings")),
        _section(
            "agents",
            "Agents",
            f"<p>{e(usage_line(r))}</p>" + _table(AGENT_COLUMNS, (agent_row(a) for a in r.agents)),
        ),
        _section(
            "tool-trace",
            "Tool trace",
            _table(TOOL_COLUMNS, (tool_row(t) for t in r.tool_calls))
            if r.tool_calls
            else '<p class="muted">No tool calls.</p>',
        ),
        f"<footer><p>{e(r.disclaimer)}</p></footer>",
    ]
    return html_page(title_line(r), _CSS, "\n".join(parts))
