"""The briefing as one self-contained HTML page.

Rules:
- Presentation only: pure, never raises on odd input.
- Self-contained: inline CSS, no scripts, nothing fetched (no CDN, fonts, images or CSS ``url()``); the
  Content-Security-Policy meta tag of ``report_parts.html_page`` forbids anything else should data ever
  slip through.
- Every piece of data text goes through ``report_parts.e`` (one printable line: bidi, control and
  format characters dropped, then ``html.escape``) or, for prose that may carry Markdown (finding
  claims, filing excerpts, theme summaries, post bodies), through ``guardrails.safe_markdown`` (raw
  HTML escaped, output allow-listed); nothing from data is inserted raw. Links only for ``http(s)://``
  URLs (``report_parts.link``: escaped, ``rel="noopener noreferrer nofollow"``); any other URL is
  shown as text.
- ``section_html`` renders one section alone: the API streams each section as it is final. The page
  lists warnings and tool calls in panels of its own, so its audit section only counts them.
- The first line (and the title) is ``Briefing.data_line``: the data mode and date, then the ticker.
- Every ``[n]`` marker is a link to entry ``n`` of the source list (id ``source-n``), and every entry with
  an ``http(s)`` URL links to its source. Wide tables scroll inside their box, never widen the page.
- Same content and order as the Markdown rendering (see ``render_markdown``), from the same plain-text
  lines (``brief.lines``, escaped here) and primitives (``core.formatting``, ``report_parts``): the
  seven sections of ``SECTION_TITLES``, footnotes ``[n]`` on official content, ``[UNVERIFIED]`` on
  every social claim line, figures as the model holds them, ``b.disclaimer`` last.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable

from findesk.core.formatting import plural
from findesk.guardrails.safe_markdown import block_html, inline_html
from findesk.workflows.brief import lines as txt
from findesk.workflows.brief.models import SECTION_NAMES, SECTION_TITLES, Briefing, SectionName
from findesk.workflows.report_parts import TOOL_COLUMNS, e, html_page, link, tool_row

_CSS = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d232b;background:#f6f7f9;
margin:0}
main{max-width:980px;margin:0 auto;padding:24px 28px;background:#fff}
h1{font-size:1.45em;margin:.2em 0}
h2{font-size:1.15em;border-bottom:2px solid #d8dde3;padding-bottom:4px;margin-top:1.8em}
.meta,.muted{color:#5b6675}.summary{font-size:1.05em}
.message{background:#fff7e0;border-left:4px solid #e0a800;padding:6px 10px}
.unverified{color:#9a3412;font-weight:600}.cite{color:#2457a6;font-size:.85em}
.disclaimer{background:#fdf2f2;border-left:4px solid #c0392b;padding:6px 10px}
.verdict{font-weight:600;color:#9a3412}
.table-wrap{max-width:100%;overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.85em}
th,td{border:1px solid #d8dde3;padding:3px 6px;text-align:left;vertical-align:top}
.table-wrap td:nth-child(-n+5){white-space:nowrap}.table-wrap td{overflow-wrap:anywhere}
a{overflow-wrap:anywhere}a.cite{text-decoration:none}
.sources li:target{background:#fff3c4}
td.num{text-align:right;white-space:nowrap}
.err{color:#b00020;font-weight:600}
blockquote{margin:.3em 0 .3em 1em;color:#3d4652;border-left:3px solid #d8dde3;padding-left:8px}
footer{margin-top:2em;border-top:1px solid #d8dde3;padding-top:8px}
"""
UNVERIFIED = f'<span class="unverified">{html.escape(txt.UNVERIFIED)}</span>'


def source_id(n: int) -> str:
    """The id of source ``n``'s entry in the source list: every ``[n]`` marker links to it."""
    return f"source-{n}"


def cite(b: Briefing, key: str) -> str:
    n = b.source_number(key)
    if n is None:
        return f'<span class="cite">({link(key)})</span>'
    return f'<a class="cite" href="#{source_id(n)}">[{n}]</a>'


def sources_html(b: Briefing) -> str:
    """The numbered source list; entry ``n`` carries the id ``[n]`` links to, and links to the source."""
    rows = (
        f'<li id="{source_id(n)}">[{n}] {e(s.label)} — {link(s.key)}</li>' for n, s in enumerate(b.sources, 1)
    )
    return f'<ul class="sources">{"".join(rows)}</ul>' if b.sources else '<p class="muted">none</p>'


def _ul(items: Iterable[str], empty: str = "none") -> str:
    rows = [f"<li>{item}</li>" for item in items]
    return f"<ul>{''.join(rows)}</ul>" if rows else f'<p class="muted">{e(empty)}</p>'


def _message(text: str | None) -> str:
    return f'<p class="message">{e(text)}</p>' if text else ""


def _snapshot(b: Briefing) -> str:
    parts = [f"<p><strong>{e(txt.company_line(b))}</strong></p>", _message(b.snapshot.message)]
    items = [e(line) for line in txt.quote_lines(b)]
    source = txt.quote_source(b)
    items += [e(source)] if source else []
    items.append(f"data: {e(txt.data_mode(b))}")
    return "".join(parts) + _ul(items)


def _stamp(text: str | None) -> str:
    return f'<p class="muted">{e(text)}:</p>' if text else ""


def _business(b: Briefing) -> str:
    s = b.business
    out = [_message(s.message), _stamp(txt.age_stamp(b, s.findings, "Business description"))]
    out += [f"<p>{inline_html(f.claim)} {cite(b, f.citation)}</p>" for f in s.findings]
    if s.key_figures is not None:
        out.append("<p>Key figures (XBRL as filed; growth, P/E and yield computed by the desk):</p>")
        lines = txt.key_figure_lines(s.key_figures)
        out.append(_ul(f"{e(text)} {' '.join(cite(b, c) for c in cites)}".rstrip() for text, cites in lines))
    elif s.facts:
        out.append("<p>Latest reported figures:</p>")
        out.append(_ul(f"{e(txt.fact_text(f))} {cite(b, f.citation)}" for f in s.facts))
    return "".join(out)


def _events(b: Briefing) -> str:
    s = b.events
    out = [_message(s.message)]
    rows = []
    for f in s.filings:
        inner = [f"Item {e(i.item)}: {inline_html(i.excerpt)}" for i in f.items if i.excerpt]
        inner += [f'<span class="muted">{e(f.content_note)}</span>'] if f.content_note else []
        sub = _ul(inner) if inner else ""
        rows.append(f"{e(txt.filing_head(f))} {cite(b, f.citation)}{sub}")
    out.append(_ul(rows, "no filings") if s.filings else "")
    if s.findings:
        out.append("<p>What the filings say:</p>")
        titled = ((f"<strong>{e(x.title)}</strong>: " if x.title else "", x) for x in s.findings)
        out.append(_ul(f"{title}{inline_html(x.claim)} {cite(b, x.citation)}" for title, x in titled))
    return "".join(out)


def _risks(b: Briefing) -> str:
    s = b.risks
    rows = [
        (f"<strong>{e(f.title)}</strong> — " if f.title else "")
        + f"{inline_html(f.claim)} {cite(b, f.citation)}"
        for f in s.risks
    ]
    listed = f"<ol>{''.join(f'<li>{r}</li>' for r in rows)}</ol>" if rows else ""
    return _message(s.message) + _stamp(txt.age_stamp(b, s.risks, "Risk factors")) + listed


def _social(b: Briefing) -> str:
    r = b.social.report
    out = [f'<p class="disclaimer">{e(r.disclaimer)}</p>', _message(b.social.message)]
    out.append(f"<p>{e(txt.window_line(r))}.</p>")
    out.append(_ul(e(txt.coverage_line(c)) for c in r.coverage) if r.coverage else "")
    subs = txt.subreddits_line(r)
    out += [f'<p class="muted">{e(subs)}</p>'] if subs else []
    if r.themes:
        out.append("<p>Themes (what posters say):</p>")
        out.append(
            _ul(
                f"<strong>{e(t.theme)}</strong>: {inline_html(t.summary)} "
                f'<span class="muted">(posts: {e(", ".join(t.post_ids))})</span>'
                for t in r.themes
            )
        )
    out.append(f"<p>Claims ({len(r.claims):,}):</p>")
    out.append(_ul(f"{UNVERIFIED} {e(txt.claim_head(c))} — {link(c.url)}" for c in r.claims))
    out.append(f"<p>{e(txt.pump_line(r))}</p>")
    flags = []
    for p in r.pump_flags:
        reasons = _ul((e(x) for x in p.reasons), "no reason recorded")
        head = f"{UNVERIFIED} {e(txt.who(p.platform, p.author))} post {e(p.post_id)}, score {p.score:.2f}"
        flags.append(f"{head} — {link(p.url)}{reasons}")
    out.append(_ul(flags) if flags else "")
    if r.volume is not None:
        out.append(f"<p>{e(txt.volume_line(r.volume.anomaly))} (source: {link(r.volume.source)})</p>")
    else:
        out.append("<p>Volume anomaly: not computed (too little history).</p>")
    for shown, heading in (txt.shown_posts(r), txt.excluded_posts(r)):
        rows = (
            f"{UNVERIFIED} {e(txt.post_head(p))} — {link(p.url)}<blockquote>{block_html(p.text)}</blockquote>"
            for p in shown
        )
        out.append(f"<details><summary>{e(heading)}</summary>{_ul(rows)}</details>" if shown else "")
    return "".join(out)


def _divergences(b: Briefing) -> str:
    s = b.divergences
    out = [f"<p>{e(txt.verdict_line(s))}</p>"]
    rows = []
    for d in s.divergences:
        cites = " ".join(cite(b, k) for k in d.official.citations) or '<span class="muted">no citation</span>'
        rows.append(
            f"{UNVERIFIED} {e(txt.claim_head(d.claim))} — {link(d.claim.url)}"
            f'<br><span class="verdict">{e(txt.verdict_text(d))}</span>'
            f"<br>official: {e(d.official.statement)} {cites}"
        )
    out.append(f"<ol>{''.join(f'<li>{r}</li>' for r in rows)}</ol>" if rows else "")
    for label, checks in txt.other_groups(s):
        items = [
            f"{UNVERIFIED} {e(txt.claim_head(d.claim))} — {link(d.claim.url)}"
            f"<br>official: {e(d.official.statement)} {' '.join(cite(b, k) for k in d.official.citations)}"
            for d in checks
        ]
        out.append(f"<details><summary>{e(label)}</summary>{_ul(items)}</details>")
    return "".join(out)


def _tool_table(b: Briefing) -> str:
    calls = b.audit.tool_calls
    if not calls:
        return '<p class="muted">no tool calls</p>'
    head = "".join(f"<th>{e(c)}</th>" for c in TOOL_COLUMNS)
    rows = []
    for t in calls:
        cells = tool_row(t)
        status = f'<td class="err">{e(cells[2])}</td>' if t.status != "ok" else f"<td>{e(cells[2])}</td>"
        rows.append(
            f"<tr><td>{e(cells[0])}</td><td>{e(cells[1])}</td>{status}"
            f'<td class="num">{e(cells[3])}</td><td>{e(cells[4])}</td><td>{e(cells[5])}</td>'
            f"<td>{e(cells[6])}</td></tr>"
        )
    # the wrapper scrolls a table wider than the page instead of widening the page
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    return f'<div class="table-wrap">{table}</div>'


def _audit(b: Briefing, *, lists: bool = True) -> str:
    a = b.audit
    items = [f"data: {e(txt.data_mode(b))}", f"mode: {e(a.mode)}", f"run: {e(a.run_id)}"]
    items.append("agents:" + _ul(e(line) for line in txt.agents_mode_lines(b)))
    items.append(f"model round trips: {a.model_round_trips:,}")
    usage = txt.usage_line(b)
    items += [e(usage)] if usage else []
    out = [_message(a.message), _ul(items)]
    calls = f"Tool calls ({len(a.tool_calls):,}, {plural(txt.tool_errors(b), 'error')})"
    if lists:
        out += [f"<p>Warnings ({len(a.warnings):,}):</p>", _ul(e(w) for w in a.warnings)]
        out += [f"<p>{calls}:</p>", _tool_table(b)]
    else:
        # the page lists both in panels of its own, filled as the run streams: said once, not twice
        where = "listed in the Warnings and Tool trace panels below"
        out.append(f"<p>Warnings ({len(a.warnings):,}) and {e(calls.lower())}: {where}.</p>")
    if a.untraced_numbers:
        out.append("<p>Numbers not found in this run's data:</p>")
        out.append(_ul(f"{e(u.text)} in “{e(u.sentence)}”" for u in a.untraced_numbers))
    if a.advice_removed:
        out.append("<p>Advice removed:</p>")
        out.append(_ul(f"{e(x.kind)}: “{e(x.sentence)}”" for x in a.advice_removed))
    out += ["<p>Sources:</p>", sources_html(b)]
    return "".join(out)


_BODIES: tuple[Callable[[Briefing], str], ...] = (
    _snapshot,
    _business,
    _events,
    _risks,
    _social,
    _divergences,
    _audit,
)


_BY_NAME: dict[str, Callable[[Briefing], str]] = dict(zip(SECTION_NAMES, _BODIES, strict=True))


def question_html(b: Briefing) -> str:
    """The client's question and where the briefing answers it; empty without a question."""
    q = b.question
    if q is None:
        return ""
    rows = [
        f"<strong>{e(title)}</strong>: {e(text)}{''.join(' ' + cite(b, k) for k in keys)}"
        for title, text, keys in txt.question_lines(b)
    ]
    return (
        '<section id="client-question"><h2>Client question</h2>'
        f"<blockquote>{e(q.question)}</blockquote>"
        + (_ul(rows) if rows else "")
        + f'<p class="{"muted" if q.addressed else "message"}">{e(q.note)}</p></section>'
    )


def section_html(b: Briefing, name: SectionName) -> str:
    """One section's body (without its heading), as the page inserts it: the audit without its warnings
    list and tool table, which the page shows in panels of its own."""
    return _audit(b, lists=False) if name == "audit" else _BY_NAME[name](b)


def to_html(b: Briefing) -> str:
    """The whole briefing as one self-contained HTML page. Never raises."""
    title = b.data_line
    sections = "\n".join(
        f'<section id="section-{n}"><h2>{e(name)}</h2>{body(b)}</section>'
        for n, (name, body) in enumerate(zip(SECTION_TITLES, _BODIES, strict=True), 1)
    )
    body = (
        f'<header><p class="meta">{e(title)}</p><h1>{e(b.headline)}</h1>'
        f'<p class="summary">{inline_html(b.summary)}</p></header>\n'
        f"{question_html(b)}\n"
        f"{sections}\n"
        f'<footer><p class="disclaimer">{e(b.disclaimer)}</p></footer>'
    )
    return html_page(title, _CSS, body)
