"""The weekly ETF report as one self-contained HTML dashboard.

Rules:
- Presentation only: pure, never raises on odd input; same report, same bytes.
- Self-contained: inline CSS and inline SVG charts (``charts``), no script, nothing fetched (no CDN,
  font, image or CSS ``url()``); the Content-Security-Policy meta tag of ``report_parts.html_page``
  forbids anything else should data ever slip through. It opens offline from a ``file://`` URL.
- Every string from the report is data: ``html.escape`` on one printable line (``report_parts.e``:
  bidi, control and format characters dropped). Links only for whole ``http(s)://`` URLs
  (``report_parts.link``), escaped, with ``rel="noopener noreferrer nofollow"``; any other URL or
  citation is shown as text. Ids built from data are slugs (``[a-z0-9-]``), made unique.
- Same sections, order, words and figures as the Markdown (``render_markdown``, whose plain-text
  lines both use); every statement carries its agent (``<span class="by by-quant">— quant</span>``).
- Stable hooks for a browser: sections ``#report-header``, ``#disclaimer``, ``#executive-summary``,
  ``#market-context``, ``#beta-alpha``, ``#sector-themes`` (``article.sector``), ``#candidates``
  (``article.symbol``), ``#revision`` (when the managing director sent sectors back), ``#data-quality``,
  ``#history``, ``#agents``, ``#tool-trace``; flags ``span.flag.flag-GREEN|YELLOW|RED``; evidence
  ``span.evidence.evidence-strong|weak|none``; drivers ``span.driver.driver-transient|persistent``;
  charts ``svg.chart``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from findesk.agents.roles.etf_weekly.models import NewsSource, SectorView
from findesk.core.formatting import NONE, is_http, number, plural
from findesk.workflows.etf_weekly.charts import beta_alpha_svg, price_svg
from findesk.workflows.etf_weekly.models import EtfWeeklyReport
from findesk.workflows.etf_weekly.render_markdown import (
    AGENT_COLUMNS,
    HISTORY_COLUMNS,
    adjustment,
    agent_row,
    context_items,
    excluded_line,
    final_flag,
    first_view,
    flag_changes,
    group_items,
    header_items,
    history_row,
    profile_items,
    revised_sectors,
    sector_order,
    source_byline,
    symbol_order,
    title_line,
    usage_line,
)
from findesk.workflows.report_parts import TOOL_COLUMNS, e, html_page, link, printable, tool_row

_CSS = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d232b;background:#f6f7f9;
margin:0}
main{max-width:1180px;margin:0 auto;padding:20px 28px;background:#fff}
h1{font-size:1.5em;margin:.2em 0}h3{margin:.2em 0;font-size:1.08em}
h2{font-size:1.2em;border-bottom:2px solid #d8dde3;padding-bottom:4px;margin-top:1.8em}
.meta dl,dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:.4em 0}
dt{color:#5b6675}dd{margin:0}
.muted{color:#5b6675}.by{color:#6b7684;font-size:.8em;font-style:italic;white-space:nowrap}
.disclaimer{background:#fdf2f2;border-left:4px solid #c0392b;padding:6px 10px}
.note{background:#fff7e0;border-left:4px solid #e0a800;padding:6px 10px}
.summary{font-size:1.05em}
.flag,.evidence,.driver,.signal{display:inline-block;border-radius:4px;padding:0 6px;font-size:.8em;
font-weight:700;letter-spacing:.02em;vertical-align:middle}
.flag-GREEN{background:#dff3e4;color:#17602d}.flag-YELLOW{background:#fff1c2;color:#7a5b00}
.flag-RED{background:#fde2e1;color:#9b1c1c}.flag-unknown{background:#eceff3;color:#3d4652}
.evidence-strong{background:#dff3e4;color:#17602d}.evidence-weak{background:#fff1c2;color:#7a5b00}
.evidence-none{background:#eceff3;color:#3d4652}
.driver-transient{background:#e6eefb;color:#1f4e9c}.driver-persistent{background:#efe6fb;color:#5b2a9c}
.signal{background:#eceff3;color:#1d232b}
article{border:1px solid #d8dde3;border-radius:6px;padding:10px 14px;margin:12px 0}
article.sector>header,article.symbol>header{display:flex;flex-wrap:wrap;gap:8px;align-items:center}
.columns{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,560px);gap:16px}
@media (max-width:900px){.columns{grid-template-columns:minmax(0,1fr)}}
.version{border-left:4px solid #8ea4bd;padding-left:10px;margin:10px 0}
.version-first{border-left-color:#c0392b}.version-revision{border-left-color:#17602d}
figure{margin:8px 0}svg.chart{max-width:100%;height:auto;display:block}
figcaption{font-size:.85em;color:#5b6675}
.table-wrap{max-width:100%;overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.85em}
th,td{border:1px solid #d8dde3;padding:3px 6px;text-align:left;vertical-align:top}
td{overflow-wrap:anywhere}a{overflow-wrap:anywhere}
.err{color:#b00020;font-weight:600}
footer{margin-top:2em;border-top:1px solid #d8dde3;padding-top:8px}
"""
_FLAGS = ("GREEN", "YELLOW", "RED")
_EVIDENCE = ("strong", "weak", "none")
_DRIVERS = ("transient", "persistent")


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", printable(text).lower()).strip("-")[:60] or "x"


def anchors(names: Iterable[str], prefix: str) -> dict[str, str]:
    """A unique id per name: ``prefix-slug``, numbered when two names share a slug."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for name in names:
        base = f"{prefix}-{slug(name)}"
        anchor, n = base, 1
        while anchor in used:
            n += 1
            anchor = f"{base}-{n}"
        used.add(anchor)
        out[name] = anchor
    return out


def by(who: str) -> str:
    """The attribution of a statement: ``— quant``."""
    key = slug(who)
    return f' <span class="by by-{key}">— {e(who)}</span>'


def flag(value: str | None) -> str:
    kind = value if value in _FLAGS else "unknown"
    return f'<span class="flag flag-{kind}">{e(value or "not reviewed")}</span>'


def evidence(value: str) -> str:
    kind = value if value in _EVIDENCE else "none"
    return f'<span class="evidence evidence-{kind}">evidence: {e(value)}</span>'


def _ul(items: Iterable[str], empty: str = "none", cls: str = "") -> str:
    rows = [f"<li>{item}</li>" for item in items]
    klass = f' class="{cls}"' if cls else ""
    return f"<ul{klass}>{''.join(rows)}</ul>" if rows else f'<p class="muted">{e(empty)}</p>'


def _facts(items: Iterable[tuple[str, str]], who: str | None = None) -> str:
    rows = "".join(f"<dt>{e(label)}</dt><dd>{e(value)}</dd>" for label, value in items)
    return f'<dl class="facts">{rows}</dl>' + (f'<p class="muted">{by(who)}</p>' if who else "")


def _table(columns: Iterable[str], rows: Iterable[list[str]], cls: str = "") -> str:
    head = "".join(f"<th>{e(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in rows)
    klass = f' class="{cls}"' if cls else ""
    table = f"<table{klass}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return f'<div class="table-wrap">{table}</div>'


class _Page:
    """One rendering: the report and the ids its sections and entries link to."""

    def __init__(self, r: EtfWeeklyReport) -> None:
        self.r = r
        self.sectors = sector_order(r)
        self.symbols = symbol_order(r)
        self.sector_id = anchors(self.sectors, "sector")
        self.symbol_id = anchors(self.symbols, "symbol")

    def symbol_link(self, symbol: str) -> str:
        anchor = self.symbol_id.get(symbol)
        return f'<a href="#{anchor}">{e(symbol)}</a>' if anchor else e(symbol)

    def sector_link(self, sector: str) -> str:
        anchor = self.sector_id.get(sector)
        return f'<a href="#{anchor}">{e(sector)}</a>' if anchor else e(sector)

    # ---- sections ----

    def header(self) -> str:
        r = self.r
        items = "".join(f"<dt>{e(label)}</dt><dd>{e(value)}</dd>" for label, value in header_items(r))
        return (
            f'<header id="report-header"><h1>{e(title_line(r))}</h1>'
            f'<div class="meta"><dl>{items}</dl></div></header>\n'
            f'<p class="disclaimer" id="disclaimer">{e(r.disclaimer)}</p>'
        )

    def summary(self) -> str:
        d = self.r.director
        who = by(d.by)
        out = [f'<p class="summary">{e(d.executive_summary)}{who}</p>']
        out.append(
            f'<p class="quality">Quality score <strong class="score">{number(d.quality_score, 1)}</strong>'
            f" / 10 — {e(d.rationale)}{who}</p>"
        )
        if d.data_constrained_note:
            out.append(f'<p class="note data-constrained">{e(d.data_constrained_note)}{who}</p>')
        adjustments = [
            f"{self.symbol_link(a.symbol)} {flag(a.from_flag)} → {flag(a.to_flag)}: {e(a.reason)}{who}"
            for a in d.flag_adjustments
        ]
        out.append("<h3>Flag adjustments</h3>" + _ul(adjustments, "none", "flag-adjustments"))
        strongest = ", ".join(self.symbol_link(s) for s in d.strongest) or NONE
        weakest = ", ".join(self.symbol_link(s) for s in d.weakest) or NONE
        out.append(f'<p class="strongest">Strongest: {strongest}{who}</p>')
        out.append(f'<p class="weakest">Weakest: {weakest}{who}</p>')
        out.append(
            "<h3>Blind spots</h3>" + _ul((f"{e(b)}{who}" for b in d.blind_spots), "none", "blind-spots")
        )
        if d.sector_concentration:
            out.append(f'<p class="concentration">Sector concentration: {e(d.sector_concentration)}{who}</p>')
        return self._section("executive-summary", "Executive summary", "".join(out))

    def context(self) -> str:
        r = self.r
        out = [_facts(context_items(r), "quant")]
        out += [f'<p class="note">{e(w)}{by("quant")}</p>' for w in r.market_context.warnings]
        if r.overview is not None:
            out.append(f'<p class="overview">{e(r.overview.narrative)}{by(r.overview.by)}</p>')
            out.append(self._sources(r.overview.sources, "overview"))
        return self._section("market-context", "Market context", "".join(out))

    def beta_alpha(self) -> str:
        groups = {s: g for s in self.sectors if (g := self.r.sector_groups.get(s)) is not None}
        caption = (
            "Each sector's average weekly return split into its beta part (average return minus average "
            "alpha residual: what the market explains) and its alpha part (the average alpha residual); "
            f"the black mark is the total.{by('quant')}"
        )
        body = f"<figure>{beta_alpha_svg(groups)}<figcaption>{caption}</figcaption></figure>"
        return self._section("beta-alpha", "Beta and alpha by sector", body)

    def _sources(self, sources: list[NewsSource], where: str) -> str:
        if not sources:
            return '<p class="muted">Sources: none</p>'
        rows = []
        for n, s in enumerate(sources, 1):
            target = link(s.url, printable(s.title)) if is_http(s.url) else e(s.title)
            cite = "" if is_http(s.url) else f' <span class="muted">({e(s.cite)})</span>'
            rows.append(f'<li id="{where}-{n}">[{e(s.id)}] {target} {e(source_byline(s))}{cite}</li>')
        return f'<ol class="sources">{"".join(rows)}</ol>'

    def sector(self, sector: str) -> str:
        r = self.r
        view, group, news = r.senior.sectors.get(sector), r.sector_groups.get(sector), r.news.get(sector)
        anchor = self.sector_id[sector]
        head = [f"<h3>{e(sector)}</h3>", flag(view.flag if view else None)]
        head += [evidence(news.evidence)] if news else []
        out = [f'<article class="sector" id="{anchor}"><header>{" ".join(head)}</header>']
        if view is not None:
            out.append(f'<p class="senior-reason">{flag(view.flag)} {e(view.reason)}{by(view.by)}</p>')
        if sector in revised_sectors(r):
            out.append(
                '<p class="note revised">Revised after the managing director sent this sector back; the '
                'first version is under <a href="#revision">Send-back and revision</a>.</p>'
            )
        if group is not None:
            members = ", ".join(self.symbol_link(s) for s in group.members) or NONE
            items = [(label, value) for label, value in group_items(group) if label != "members"]
            out.append(f'<div class="quant-group"><p>Members: {members}</p>{_facts(items)}')
            out.append(f'<p class="interpretation">{e(group.interpretation)}{by(group.by)}</p></div>')
        if news is None:
            out.append('<p class="muted">News: not searched.</p>')
        else:
            who = by(news.by)
            out.append(
                f'<div class="news"><p>{evidence(news.evidence)} effort {e(news.effort)}; '
                f'searched: <span class="searched">{e(news.searched or NONE)}</span>{who}</p>'
            )
            drivers = []
            for d in news.drivers:
                kind = d.type if d.type in _DRIVERS else "transient"
                cites = (
                    f' <span class="muted">(sources {e(", ".join(d.sources))})</span>' if d.sources else ""
                )
                drivers.append(
                    f'<span class="driver driver-{kind}">{e(d.type)}</span> {e(d.text)}{cites}{who}'
                )
            out.append(_ul(drivers, "no drivers identified", "drivers"))
            out.append(f'<p class="narrative news-narrative">{e(news.narrative)}{who}</p></div>')
        if view is not None and (news is None or view.narrative != news.narrative):
            out.append(f'<p class="narrative senior-narrative">{e(view.narrative)}{by(view.by)}</p>')
        if news is not None:
            out.append(self._sources(news.sources, f"{anchor}-source"))
        return "".join(out) + "</article>"

    def themes(self) -> str:
        body = "".join(self.sector(s) for s in self.sectors) or '<p class="muted">No sector this week.</p>'
        return self._section("sector-themes", "Sector themes", body)

    def symbol(self, symbol: str) -> str:
        r = self.r
        p, v, adj = r.symbol_profiles.get(symbol), r.senior.symbols.get(symbol), adjustment(r, symbol)
        sector = p.sector if p else (v.sector if v else None)
        head = [f"<h3>{e(symbol)}</h3>", flag(final_flag(r, symbol))]
        head += [f'<span class="name">{e(p.name)}</span>'] if p and p.name else []
        head += [f'<span class="muted">{self.sector_link(sector)}</span>'] if sector else []
        left = []
        if adj is not None:
            left.append(
                f'<p class="adjusted">Flag adjusted {flag(adj.from_flag)} → {flag(adj.to_flag)}: '
                f"{e(adj.reason)}{by(r.director.by)}</p>"
            )
        if v is not None:
            who = by(v.by)
            left.append(f'<p class="senior-reason">{flag(v.flag)} {e(v.reason)}{who}</p>')
            left.append("<p>Bullish:</p>" + _ul((f"{e(b)}{who}" for b in v.bullish), "none", "bullish"))
            left.append("<p>Bearish:</p>" + _ul((f"{e(b)}{who}" for b in v.bearish), "none", "bearish"))
            if v.key_concern:
                left.append(f'<p class="key-concern">Key concern: {e(v.key_concern)}{who}</p>')
        else:
            left.append('<p class="muted">Not reviewed by the senior analyst.</p>')
        if p is not None:
            left.append(
                f'<div class="profile"><p><span class="signal">{e(p.signal)}</span>{by(p.by)}</p>'
                f"{_facts(profile_items(p, r.strategy.prep))}"
                f'<p class="quant-note">{e(p.note)}{by(p.by)}</p></div>'
            )
        series = r.charts.get(symbol)
        if series is not None:
            caption = f"Close, SMA50, SMA200 and Bollinger bands; the week shaded.{by('quant')}"
            svg = price_svg(series, r.week_start, r.week_end)
            chart = f"<figure>{svg}<figcaption>{caption}</figcaption></figure>"
        else:
            chart = '<p class="muted no-chart">No price series for a chart.</p>'
        return (
            f'<article class="symbol" id="{self.symbol_id[symbol]}"><header>{" ".join(head)}</header>'
            f'<div class="columns"><div>{"".join(left)}</div><div>{chart}</div></div></article>'
        )

    def candidates(self) -> str:
        body = "".join(self.symbol(s) for s in self.symbols) or '<p class="muted">No candidate this week.</p>'
        return self._section("candidates", "Candidates", body)

    def _view(self, sector: str, v: SectorView | None) -> str:
        if v is None:
            return f"<li>{self.sector_link(sector)}: no view</li>"
        return (
            f"<li>{self.sector_link(sector)}: {flag(v.flag)} {e(v.reason)}"
            f'<br><span class="narrative">{e(v.narrative)}</span>{by(v.by)}</li>'
        )

    def revision(self) -> str:
        r = self.r
        if r.director_first is None and r.senior_first is None:
            return ""
        revised = revised_sectors(r)
        out = []
        first = r.director_first
        if first is not None:
            who = by(first.by)
            sent = ", ".join(self.sector_link(s) for s in first.send_back) or NONE
            out.append(
                f'<div class="version version-first review-first"><h3>First review — managing director '
                f"(revision {first.revision})</h3>"
                f"<p>Quality score {number(first.quality_score, 1)} / 10 — {e(first.rationale)}{who}</p>"
                f"<p>Sent back: {sent}{who}</p>"
                + _ul((f"{e(o)}{who}" for o in first.objections), "no objections", "objections")
                + "</div>"
            )
        if r.senior_first is not None:
            views = "".join(self._view(s, first_view(r, s)) for s in revised)
            out.append(
                f'<div class="version version-first senior-first"><h3>First version — senior analyst '
                f"(revision {r.senior_first.revision})</h3><ul>{views}</ul></div>"
            )
        views = "".join(self._view(s, r.senior.sectors.get(s)) for s in revised)
        views += "".join(
            f"<li>{self.symbol_link(symbol)}: flag {flag(before)} → {flag(after)}{by('senior')}</li>"
            for symbol, before, after in flag_changes(r)
        )
        answered = _ul((f"{e(a)}{by('senior')}" for a in r.senior.answered), "none listed", "answered")
        out.append(
            f'<div class="version version-revision"><h3>Revision — senior analyst '
            f"(revision {r.senior.revision})</h3><p>Objections answered:</p>{answered}<ul>{views}</ul></div>"
        )
        return self._section("revision", "Send-back and revision", "".join(out))

    def quality(self) -> str:
        r = self.r
        flags = [f"{e(f.symbol)}: {e(f.reason)}" for f in r.data_flags]
        out = [
            f"<p>Bad ticks and split artefacts caught: {len(r.data_flags):,}{by('quant')}</p>",
            _ul(flags, "none caught", "data-flags"),
            f'<p class="excluded">Exclusions: {e(excluded_line(r))}{by("quant")}</p>',
        ]
        out += [f'<p class="muted">Prices: {e(r.price_source)}</p>'] if r.price_source else []
        warnings = [e(w) for w in r.warnings] + [f"output guard: {e(w)}" for w in r.guard.warnings()]
        out.append(f"<p>Warnings ({len(warnings):,}):</p>" + _ul(warnings, "none", "warnings"))
        return self._section("data-quality", "Data quality", "".join(out))

    def history(self) -> str:
        r = self.r
        if not r.history:
            return self._section(
                "history", "History", '<p class="muted">No earlier week of this strategy.</p>'
            )
        note = (
            "<p>Earlier weeks of this strategy (same parameters when the hash matches); follow-up: the "
            "previous week's GREEN candidates' return in that week (above zero: they reverted).</p>"
        )
        return self._section(
            "history", "History", note + _table(HISTORY_COLUMNS, map(history_row, r.history))
        )

    def agents(self) -> str:
        r = self.r
        body = f"<p>{e(usage_line(r))}</p>" + _table(AGENT_COLUMNS, map(agent_row, r.agents), "agents")
        return self._section("agents", "Agents", body)

    def trace(self) -> str:
        calls = self.r.tool_calls
        errors = sum(1 for t in calls if t.status != "ok")
        head = f"<p>{plural(len(calls), 'tool call')}, {plural(errors, 'error')}.</p>"
        body = _table(TOOL_COLUMNS, map(tool_row, calls), "trace") if calls else ""
        return self._section("tool-trace", "Tool trace", head + body)

    def footer(self) -> str:
        r = self.r
        where = f" · run folder {e(r.output_dir)}" if r.output_dir else ""
        run = f'<p class="muted">run {e(r.run_id)}{where}</p>'
        return f'<footer>{run}<p class="disclaimer">{e(r.disclaimer)}</p></footer>'

    @staticmethod
    def _section(anchor: str, heading: str, body: str) -> str:
        return f'<section id="{anchor}"><h2>{e(heading)}</h2>{body}</section>'


def to_html(r: EtfWeeklyReport) -> str:
    """The whole report as one self-contained HTML page. Never raises."""
    page = _Page(r)
    parts = (
        page.header(),
        page.summary(),
        page.context(),
        page.beta_alpha(),
        page.themes(),
        page.candidates(),
        page.revision(),
        page.quality(),
        page.history(),
        page.agents(),
        page.trace(),
        page.footer(),
    )
    return html_page(title_line(r), _CSS, "\n".join(p for p in parts if p))
