"""The briefing as Markdown.

Rules:
- Presentation only: pure, never raises on odd input (None fields, empty lists, NaN, stray markup).
- Sections in the fixed order of ``SECTION_TITLES``; a section with a ``message`` shows it.
- The words and figures are the shared plain-text lines of ``findesk.workflows.brief.lines`` (the HTML
  page and the terminal print the same ones); this module only lays them out as Markdown.
- Data text (filings, posts, news, model prose, tool arguments) is escaped so it can never become
  Markdown structure or raw HTML (``core.formatting.md``: ``< > [ ] * ` | ~ \\`` are backslash-escaped
  and line breaks are collapsed). Only ``http(s)://`` URLs become links.
- Official content carries footnotes ``[n]`` (``Briefing.source_number``); every social claim line
  starts with ``[UNVERIFIED]``.
"""

from __future__ import annotations

from findesk.core.formatting import exact, md, md_url, one_line, plural
from findesk.workflows.brief.lines import (
    UNVERIFIED,
    age_stamp,
    agents_mode_lines,
    claim_head,
    company_line,
    coverage_line,
    data_mode,
    excluded_posts,
    fact_text,
    filing_head,
    key_figure_lines,
    other_groups,
    post_head,
    pump_line,
    question_lines,
    quote_lines,
    quote_source,
    shown_posts,
    subreddits_line,
    tool_errors,
    usage_line,
    verdict_line,
    verdict_text,
    volume_line,
    who,
    window_line,
)
from findesk.workflows.brief.models import SECTION_TITLES, Briefing
from findesk.workflows.report_parts import TOOL_COLUMNS, tool_row

# exact, filing_head, key_figure_lines, quote_lines and window_line are re-exported: question.py
# imports them from here, until it imports them from their homes (core.formatting, brief.lines).
__all__ = ["exact", "filing_head", "key_figure_lines", "md_cite", "quote_lines", "to_markdown", "window_line"]


def md_cite(b: Briefing, key: str) -> str:
    n = b.source_number(key)
    return f"[{n}]" if n is not None else f"(source: {md_url(key)})"


def _md_snapshot(b: Briefing) -> list[str]:
    out = [md(company_line(b)), ""]
    if b.snapshot.message:
        out += [md(b.snapshot.message), ""]
    out += [f"- {md(line)}" for line in quote_lines(b)]
    source = quote_source(b)
    out += [f"- {md(source)}"] if source else []
    out.append(f"- data: {md(data_mode(b))}")
    return out


def _md_business(b: Briefing) -> list[str]:
    s = b.business
    out = [md(s.message), ""] if s.message else []
    stamp = age_stamp(b, s.findings, "Business description")
    out += [f"*{md(stamp)}:*", ""] if stamp else []
    out += [f"{md(f.claim)} {md_cite(b, f.citation)}" for f in s.findings]
    if s.key_figures is not None:
        out += ["", "Key figures (XBRL as filed; growth, P/E and yield computed by the desk):"]
        out += [
            f"- {md(text)} {' '.join(md_cite(b, c) for c in cites)}".rstrip()
            for text, cites in key_figure_lines(s.key_figures)
        ]
    elif s.facts:
        out += ["", "Latest reported figures:"]
        out += [f"- {md(fact_text(f))} {md_cite(b, f.citation)}" for f in s.facts]
    return out


def _md_events(b: Briefing) -> list[str]:
    s = b.events
    out = [md(s.message), ""] if s.message else []
    for f in s.filings:
        out.append(f"- {md(filing_head(f))} {md_cite(b, f.citation)}")
        for item in f.items:
            if item.excerpt:
                out.append(f"  - Item {md(item.item)}: {md(item.excerpt)}")
        if f.content_note:
            out.append(f"  - {md(f.content_note)}")
    if s.findings:
        out += ["", "What the filings say:"]
        for e in s.findings:
            title = f"**{md(e.title)}**: " if e.title else ""
            out.append(f"- {title}{md(e.claim)} {md_cite(b, e.citation)}")
    return out


def _md_risks(b: Briefing) -> list[str]:
    s = b.risks
    out = [md(s.message), ""] if s.message else []
    stamp = age_stamp(b, s.risks, "Risk factors")
    out += [f"*{md(stamp)}:*", ""] if stamp else []
    for n, f in enumerate(s.risks, 1):
        title = f"**{md(f.title)}** — " if f.title else ""
        out.append(f"{n}. {title}{md(f.claim)} {md_cite(b, f.citation)}")
    return out


def _md_social(b: Briefing) -> list[str]:
    r = b.social.report
    out = [f"*{md(r.disclaimer)}*", ""]
    if b.social.message:
        out += [md(b.social.message), ""]
    out.append(f"{md(window_line(r))}.")
    out += [f"- {md(coverage_line(c))}" for c in r.coverage]
    subs = subreddits_line(r)
    out += ["", md(subs)] if subs else []
    if r.themes:
        out += ["", "Themes (what posters say):"]
        for t in r.themes:
            ids = ", ".join(t.post_ids)
            out.append(f"- **{md(t.theme)}**: {md(t.summary)} (posts: {md(ids)})")
    out += ["", f"Claims ({len(r.claims):,}):"]
    out += [f"- {UNVERIFIED} {md(claim_head(c))} — {md_url(c.url)}" for c in r.claims] or ["- none"]
    out += ["", md(pump_line(r))]
    for p in r.pump_flags:
        reasons = "; ".join(one_line(x) for x in p.reasons) or "no reason recorded"
        out.append(
            f"- {UNVERIFIED} {md(who(p.platform, p.author))} post {md(p.post_id)}, score {p.score:.2f}: "
            f"{md(reasons)} — {md_url(p.url)}"
        )
    if r.volume is not None:
        out += ["", f"{md(volume_line(r.volume.anomaly))} (source: {md_url(r.volume.source)})"]
    else:
        out += ["", "Volume anomaly: not computed (too little history)."]
    for shown, heading in (shown_posts(r), excluded_posts(r)):
        out += ["", f"{md(heading)}:"] if shown else []
        for post in shown:
            out.append(f"- {UNVERIFIED} {md(post_head(post))}: “{md(post.text)}” — {md_url(post.url)}")
    return out


def _md_divergences(b: Briefing) -> list[str]:
    s = b.divergences
    out = [md(verdict_line(s)), ""]
    for n, d in enumerate(s.divergences, 1):
        cites = " ".join(md_cite(b, k) for k in d.official.citations) or "no citation"
        out += [
            f"{n}. {UNVERIFIED} {md(claim_head(d.claim))} — {md_url(d.claim.url)}",
            f"   - verdict: **{verdict_text(d)}**",
            f"   - official: {md(d.official.statement)} {cites}",
        ]
    for label, checks in other_groups(s):
        out += [*([""] if out[-1] else []), f"{md(label)}:"]
        for d in checks:
            cites = " ".join(md_cite(b, k) for k in d.official.citations)
            out += [
                f"- {UNVERIFIED} {md(claim_head(d.claim))} — {md_url(d.claim.url)}",
                f"  - official: {md(d.official.statement)}" + (f" {cites}" if cites else ""),
            ]
    return out


def _md_audit(b: Briefing) -> list[str]:
    a = b.audit
    out = [md(a.message), ""] if a.message else []
    out += [f"- data: {md(data_mode(b))}", f"- mode: {a.mode}", f"- run: {md(a.run_id)}"]
    out += [f"  - {md(line)}" for line in agents_mode_lines(b)]
    out.append(f"- model round trips: {a.model_round_trips:,}")
    usage = usage_line(b)
    out += [f"- {md(usage)}"] if usage else []
    out += ["", f"Warnings ({len(a.warnings):,}):"]
    out += [f"- {md(w)}" for w in a.warnings] or ["- none"]
    out += ["", f"Tool calls ({len(a.tool_calls):,}, {plural(tool_errors(b), 'error')}):", ""]
    if a.tool_calls:
        out += ["| " + " | ".join(TOOL_COLUMNS) + " |", "|" + "---|" * len(TOOL_COLUMNS)]
        out += ["| " + " | ".join(md(cell) for cell in tool_row(t)) + " |" for t in a.tool_calls]
    else:
        out.append("none")
    if a.untraced_numbers:
        out += ["", "Numbers not found in this run's data:"]
        out += [f"- {md(u.text)} in “{md(u.sentence)}”" for u in a.untraced_numbers]
    if a.advice_removed:
        out += ["", "Advice removed:"]
        out += [f"- {md(x.kind)}: “{md(x.sentence)}”" for x in a.advice_removed]
    out += ["", "Sources:"]
    out += [f"- [{n}] {md(s.label)} — {md_url(s.key)}" for n, s in enumerate(b.sources, 1)] or ["- none"]
    return out


def _md_question(b: Briefing) -> list[str]:
    q = b.question
    if q is None:
        return []
    lines = ["", "## Client question", "", f"> {md(q.question)}", ""]
    for title, text, keys in question_lines(b):
        cites = "".join(f" {md_cite(b, k)}" for k in keys)
        lines.append(f"- {md(title)}: {md(text)}{cites}")
    return [*lines, *([""] if q.points else []), f"*{md(q.note)}*"]


def to_markdown(b: Briefing) -> str:
    """The whole briefing as one Markdown document. Never raises."""
    bodies = (_md_snapshot, _md_business, _md_events, _md_risks, _md_social, _md_divergences, _md_audit)
    lines = [f"# {md(b.data_line)}"]
    lines += ["", f"**{md(b.headline)}**"] if b.headline.strip() else []
    lines += ["", md(b.summary)] if b.summary.strip() else []
    lines += _md_question(b)
    for title, body in zip(SECTION_TITLES, bodies, strict=True):
        lines += ["", f"## {title}", "", *body(b)]
    lines += ["", "---", "", f"*{md(b.disclaimer)}*", ""]
    return "\n".join(lines)
