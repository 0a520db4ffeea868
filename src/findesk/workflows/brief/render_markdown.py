"""The briefing as Markdown, and the plain-text parts all three renderers share.

Rules:
- Presentation only: pure, never raises on odd input (None fields, empty lists, NaN, stray markup).
- Sections in the fixed order of ``SECTION_TITLES``; a section with a ``message`` shows it.
- Figures are printed as the model holds them: prices and changes with 2 decimals, volumes with
  thousands separators, percents and z-scores signed with 2 decimals; reported filing figures are never
  rounded. The one compaction is the market cap ("3.45T").
- Data text (filings, posts, news, model prose, tool arguments) is escaped so it can never become
  Markdown structure or raw HTML: ``< > [ ] * ` | ~ \\`` are backslash-escaped and line breaks are
  collapsed. Only ``http(s)://`` URLs become links.
- Official content carries footnotes ``[n]`` (``Briefing.source_number``); every social claim line
  starts with ``[UNVERIFIED]``.
"""

from __future__ import annotations

import json
import math
import re

from findesk.agents.roles.brief.reports import FactView, FilingView, PostView, SocialReport
from findesk.analytics.divergence import Divergence
from findesk.analytics.social_claims import SocialClaim
from findesk.analytics.social_themes import ToneCounts
from findesk.analytics.volume import VolumeAnomaly
from findesk.workflows.brief.models import SECTION_TITLES, Briefing, ToolCallRecord

NONE = "—"
UNVERIFIED = "[UNVERIFIED]"
_HTTP = re.compile(r"https?://[^\s<>\"'`]+", re.IGNORECASE)

# ---- plain-text parts (unescaped; each renderer escapes them for its own format) ----


def one_line(text: object) -> str:
    """Any value as one line of text: whitespace collapsed, None as a dash."""
    return NONE if text is None else " ".join(str(text).split())


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def is_http(url: str | None) -> bool:
    """True only for a whole ``http(s)://`` URL without spaces or quotes: the only thing made a link."""
    return bool(url) and _HTTP.fullmatch(url.strip()) is not None  # type: ignore[union-attr]


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def price(value: float | None) -> str:
    return f"{value:,.2f}" if _finite(value) else NONE


def signed(value: float | None, digits: int = 2) -> str:
    return f"{value:+,.{digits}f}" if _finite(value) else NONE


def count(value: int | None) -> str:
    return f"{value:,}" if value is not None else NONE


def compact(value: float | None) -> str:
    """Market cap in short form: 3.45T, 812.30B, 95.10M."""
    if value is None or not math.isfinite(value):
        return NONE
    for unit, size in (("T", 1e12), ("B", 1e9), ("M", 1e6)):
        if abs(value) >= size:
            return f"{value / size:,.2f}{unit}"
    return f"{value:,.0f}"


def exact(value: float | None) -> str:
    """A reported figure as filed: thousands separators, never rounded (391,035,000,000; 6.08)."""
    if value is None or not math.isfinite(value):
        return NONE
    return f"{int(value):,}" if value.is_integer() else f"{value:,}"


def change(b: Briefing) -> str | None:
    q = b.snapshot.quote
    if q is None or (q.change is None and q.change_pct is None):
        return None
    pct = f" ({signed(q.change_pct)}%)" if q.change_pct is not None else ""
    return f"{signed(q.change)}{pct}" if q.change is not None else pct.strip(" ()")


def data_mode(b: Briefing) -> str:
    day = b.audit.as_of.isoformat()
    return b.audit.data_mode if day in b.audit.data_mode else f"{b.audit.data_mode}, as of {day}"


def company_line(b: Briefing) -> str:
    c = b.snapshot.company
    parts = [b.snapshot.symbol]
    if c is not None:
        parts[0] += f" {c.name}" if c.name else ""
        where = " / ".join(x for x in (c.sector, c.industry) if x)
        parts += [x for x in (where, c.exchange and f"exchange {c.exchange}") if x]
    return " · ".join(one_line(p) for p in parts)


def quote_lines(b: Briefing) -> list[str]:
    """Price line and details line; [] without a quote (the section's message says why)."""
    q = b.snapshot.quote
    if q is None:
        return []
    first = f"price {price(q.price)} {q.currency}"
    moved = change(b)
    first += f", change {moved}" if moved else ""
    first += f" · session {q.session_date.isoformat()}"
    rest = [f"day range {price(q.day_low)}–{price(q.day_high)}", f"volume {count(q.volume)}"]
    if q.market_cap is not None:
        cap = f"market cap {compact(q.market_cap)} {q.currency}"
        rest.append(cap + (f" (shares as of {q.market_cap_date.isoformat()})" if q.market_cap_date else ""))
    if q.previous_close is not None:
        rest.append(f"previous close {price(q.previous_close)}")
    return [first, " · ".join(rest)]


def quote_source(b: Briefing) -> str | None:
    q = b.snapshot.quote
    if q is None:
        return None
    notes = "; ".join(one_line(n) for n in q.notes)
    return f"source {one_line(q.source)}" + (f" (note: {notes})" if notes else "")


def fact_text(f: FactView) -> str:
    end = f.period_end.isoformat()
    period = f"{f.period_start.isoformat()}..{end}" if f.period_start else f"at {end}"
    form = f"{f.form} " if f.form else ""
    return f"{f.metric} {exact(f.value)} {f.unit} ({period}, {form}filed {f.filed.isoformat()}, {f.concept})"


def filing_head(f: FilingView) -> str:
    period = f" (period {f.report_date.isoformat()})" if f.report_date else ""
    items = ", ".join(f"Item {one_line(i.item)} {one_line(i.title)}" for i in f.items)
    return f"{one_line(f.form)} filed {f.filing_date.isoformat()}{period}" + (f": {items}" if items else "")


def tones(label: str, counts: ToneCounts | None) -> str | None:
    if counts is None:
        return None
    return (
        f"{label} {counts.total:,} ({counts.bullish:,} bullish / {counts.bearish:,} bearish / "
        f"{counts.neutral:,} neutral)"
    )


def tone_line(r: SocialReport) -> str:
    parts = [
        t for t in (tones("Reddit", r.reddit), tones("Stocktwits", r.stocktwits), tones("News", r.news)) if t
    ]
    return "; ".join(parts) if parts else "no tone counts"


def subreddits_line(r: SocialReport) -> str | None:
    if not r.subreddits:
        return None
    ranked = sorted(r.subreddits.items(), key=lambda kv: -kv[1])
    return "subreddits: " + ", ".join(f"{one_line(name)} ({n:,})" for name, n in ranked)


def themes_line(r: SocialReport, limit: int = 3) -> str | None:
    if not r.themes:
        return None
    # a theme's post_ids are a sample of its support, so no count is printed here
    shown = ", ".join(one_line(t.theme) for t in r.themes[:limit])
    more = f" +{len(r.themes) - limit} more" if len(r.themes) > limit else ""
    return f"top themes: {shown}{more}"


def volume_z(a: VolumeAnomaly) -> str:
    """The short form: 'volume z +2.11 (1.48x) — unusual'."""
    z = f"z {signed(a.z_score)}" if a.z_score is not None else "z n/a (flat baseline)"
    ratio = f" ({a.ratio:.2f}x)" if _finite(a.ratio) else ""
    return f"volume {z}{ratio} — {'unusual' if a.unusual else 'not unusual'}"


def volume_line(a: VolumeAnomaly) -> str:
    """'volume 243,257,900 on 2025-08-29 vs 30-session mean 164,127,077: z +2.11 (1.48x) — unusual'."""
    mean = f"{a.baseline_mean:,.0f}" if math.isfinite(a.baseline_mean) else NONE
    z = f"z {signed(a.z_score)}" if a.z_score is not None else "z n/a (flat baseline)"
    ratio = f" ({a.ratio:.2f}x)" if _finite(a.ratio) else ""
    verdict = "unusual" if a.unusual else f"not unusual (threshold z ±{a.threshold:g})"
    return (
        f"volume {a.volume:,} on {a.session_date.isoformat()} vs {a.baseline_sessions}-session mean "
        f"{mean}: {z}{ratio} — {verdict}"
    )


def who(platform: str, author: str | None, where: str | None = None) -> str:
    parts = [one_line(platform)]
    if where:
        parts.append(one_line(where))
    if author:
        parts.append(f"@{one_line(author).lstrip('@')}")
    return " ".join(parts)


def claim_head(c: SocialClaim) -> str:
    """The claim without its URL: platform, author, date, kind and the quoted sentence."""
    return (
        f"{who(c.platform, c.author)}, {c.published_at.date().isoformat()} ({c.kind}): “{one_line(c.text)}”"
    )


def verdict_text(d: Divergence) -> str:
    return "CONTRADICTED by the filings" if d.verdict == "contradicted" else "NOT SUPPORTED by the filings"


def agents_mode_lines(b: Briefing) -> list[str]:
    lines = []
    for a in b.audit.agents:
        line = f"{one_line(a.name)}: {one_line(a.mode)} — {one_line(a.mode_reason)}"
        line += " (fell back)" if a.fell_back else ""
        line += f"; {a.tool_calls} tool call(s), {a.model_turns} model turn(s), {a.latency_ms:,.0f} ms"
        if b.audit.mode == "model":
            line += f", tokens {a.input_tokens:,} in / {a.output_tokens:,} out, cost ${a.cost_usd:.4f}"
        lines.append(line)
    return lines


def usage_line(b: Briefing) -> str | None:
    if b.audit.mode != "model":
        return None
    tokens_in = sum(a.input_tokens for a in b.audit.agents)
    tokens_out = sum(a.output_tokens for a in b.audit.agents)
    cost = sum(a.cost_usd for a in b.audit.agents)
    return f"tokens {tokens_in:,} in / {tokens_out:,} out · cost ${cost:.4f}"


def tool_errors(b: Briefing) -> int:
    return sum(1 for t in b.audit.tool_calls if t.status != "ok")


def audit_line(b: Briefing) -> str:
    """One line: mode, data mode, tool calls, errors, round trips."""
    a = b.audit
    return (
        f"mode {a.mode} · {data_mode(b)} · {plural(len(a.tool_calls), 'tool call')} · "
        f"{plural(tool_errors(b), 'error')} · {plural(a.model_round_trips, 'model round trip')} · "
        f"{plural(len(a.warnings), 'warning')} · {plural(len(b.sources), 'source')}"
    )


def plural(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def arguments_text(t: ToolCallRecord, limit: int = 160) -> str:
    try:
        text = json.dumps(t.arguments, default=str, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        text = repr(t.arguments)
    return clip(one_line(text), limit)


def tool_row(t: ToolCallRecord) -> list[str]:
    """agent, tool, status, latency ms, cached, arguments, summary."""
    return [
        one_line(t.agent),
        one_line(t.name),
        one_line(t.status),
        f"{t.latency_ms:,.0f}" if math.isfinite(t.latency_ms) else NONE,
        "yes" if t.cached else "no",
        arguments_text(t),
        clip(one_line(t.summary), 160),
    ]


TOOL_COLUMNS = ("agent", "tool", "status", "latency ms", "cached", "arguments", "summary")


def post_head(p: PostView) -> str:
    return f"{who(p.platform, p.author, p.where)}, {p.published_at.date().isoformat()}, {p.tone}"


# ---- Markdown ----

# "_" is left alone: intraword underscores (get_quote, file names) never start emphasis in CommonMark
_MD_SPECIAL = re.compile(r"([\\`*\[\]<>|~])")


def md(text: object) -> str:
    """Data text as inert Markdown: one line, structure and HTML characters backslash-escaped."""
    return _MD_SPECIAL.sub(r"\\\1", one_line(text))


def md_url(url: str | None) -> str:
    if url is None or not url.strip():
        return "no URL"
    return f"<{url.strip()}>" if is_http(url) else md(url)


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
    out += [f"{md(f.claim)} {md_cite(b, f.citation)}" for f in s.findings]
    if s.facts:
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
    for n, f in enumerate(s.risks, 1):
        title = f"**{md(f.title)}** — " if f.title else ""
        out.append(f"{n}. {title}{md(f.claim)} {md_cite(b, f.citation)}")
    return out


def _md_social(b: Briefing) -> list[str]:
    r = b.social.report
    out = [f"*{md(r.disclaimer)}*", ""]
    if b.social.message:
        out += [md(b.social.message), ""]
    out.append(f"Window {r.window_start.isoformat()}..{r.as_of.isoformat()}: {md(tone_line(r))}.")
    subs = subreddits_line(r)
    out += ["", md(subs)] if subs else []
    if r.themes:
        out += ["", "Themes (what posters say):"]
        for t in r.themes:
            ids = ", ".join(t.post_ids)
            out.append(f"- **{md(t.theme)}**: {md(t.summary)} (posts: {md(ids)})")
    out += ["", f"Claims ({len(r.claims):,}):"]
    out += [f"- {UNVERIFIED} {md(claim_head(c))} — {md_url(c.url)}" for c in r.claims] or ["- none"]
    out += ["", f"Pump-bot flags: {len(r.pump_flags):,} of {r.posts_scored:,} posts scored"]
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
    if r.posts:
        out += ["", f"Posts and articles in the window ({len(r.posts):,}):"]
        for post in r.posts:
            out.append(f"- {UNVERIFIED} {md(post_head(post))}: “{md(post.text)}” — {md_url(post.url)}")
    return out


def _md_divergences(b: Briefing) -> list[str]:
    s = b.divergences
    out = [f"{len(s.divergences):,} divergence(s) among {s.claims_checked:,} claim(s) checked.", ""]
    out += [md(s.message), ""] if s.message else []
    for n, d in enumerate(s.divergences, 1):
        cites = " ".join(md_cite(b, k) for k in d.official.citations) or "no citation"
        out += [
            f"{n}. {UNVERIFIED} {md(claim_head(d.claim))} — {md_url(d.claim.url)}",
            f"   - verdict: **{verdict_text(d)}**",
            f"   - official: {md(d.official.statement)} {cites}",
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


def to_markdown(b: Briefing) -> str:
    """The whole briefing as one Markdown document. Never raises."""
    bodies = (_md_snapshot, _md_business, _md_events, _md_risks, _md_social, _md_divergences, _md_audit)
    lines = [f"# {md(b.symbol)} briefing — as of {b.as_of.isoformat()}"]
    lines += ["", f"**{md(b.headline)}**"] if b.headline.strip() else []
    lines += ["", md(b.summary)] if b.summary.strip() else []
    for title, body in zip(SECTION_TITLES, bodies, strict=True):
        lines += ["", f"## {title}", "", *body(b)]
    lines += ["", "---", "", f"*{md(b.disclaimer)}*", ""]
    return "\n".join(lines)
