"""The briefing's plain-text lines: what the Markdown, HTML and terminal renderings all print.

Rules:
- Presentation only: pure, never raises on odd input (None fields, empty lists, NaN, stray markup).
- Lines are plain and unescaped: each renderer escapes them for its own format (``md``, ``html.escape``,
  ``rich.markup.escape``), so the three renderings say the same thing in the same words.
- Briefing-specific only: the generic primitives (numbers, counts, plurals, one-line, clipping, URLs)
  live in ``findesk.core.formatting`` and the pieces every workflow's renderers share (data label,
  tool-trace row) in ``findesk.workflows.report_parts``; this module decides which figures a line holds
  and in what order.
- Figures are printed as the model holds them: prices and changes with 2 decimals, volumes with
  thousands separators, percents and z-scores signed with 2 decimals; reported filing figures are never
  rounded. The one compaction is the market cap ("3.45T").
- An adjusted price is labelled as such, never shown as a close; a 52-week range that does not cover
  the full 52 weeks says so.
- Filing content is age-stamped against the as-of date: "Risk factors from the 10-K filed 2024-11-01
  (10 months ago)" (``age_stamp``) and each filing line ("10-Q filed 2025-08-01, 28 days ago").
- Every social claim line is marked ``UNVERIFIED`` by the renderer; counts of posts say what was read,
  what was counted and why the rest was not.
"""

from __future__ import annotations

import math

from findesk.agents.roles.brief.reports import (
    FactView,
    FilingView,
    Finding,
    PostView,
    SocialReport,
    SourceCoverage,
)
from findesk.analytics.divergence import REASON_TEXT, ClaimCheck, verdict_counts
from findesk.analytics.key_figures import Computed, Figure, KeyFigures
from findesk.analytics.social_claims import SocialClaim
from findesk.analytics.social_themes import ToneCounts
from findesk.analytics.volume import VolumeAnomaly
from findesk.core.formatting import NONE, compact, count, exact, finite, one_line, plural, price, signed
from findesk.workflows.brief.models import Briefing, DivergencesSection, section_title
from findesk.workflows.report_parts import data_label

UNVERIFIED = "[UNVERIFIED]"  # the mark every renderer puts before each social claim line


def change(b: Briefing) -> str | None:
    q = b.snapshot.quote
    if q is None or (q.change is None and q.change_pct is None):
        return None
    pct = f" ({signed(q.change_pct)}%)" if q.change_pct is not None else ""
    return f"{signed(q.change)}{pct}" if q.change is not None else pct.strip(" ()")


def data_mode(b: Briefing) -> str:
    return data_label(b.audit.data_mode, b.audit.as_of)


def company_line(b: Briefing) -> str:
    c = b.snapshot.company
    parts = [b.snapshot.symbol]
    if c is not None:
        parts[0] += f" {c.name}" if c.name else ""
        where = " / ".join(x for x in (c.sector, c.industry) if x)
        parts += [x for x in (where, c.exchange and f"exchange {c.exchange}") if x]
    return " · ".join(one_line(p) for p in parts)


def quote_lines(b: Briefing) -> list[str]:
    """Price line, details line and the 52-week range line when known; [] without a quote (the
    section's message says why). An adjusted level is labelled as such, never shown as a close."""
    q = b.snapshot.quote
    if q is None:
        return []
    first = f"price {price(q.price)} {q.currency}"
    if q.basis == "adjusted":
        # the start of the as-traded table is named only when it is not after the as-of date (point in time)
        known = q.as_traded_from is not None and q.as_traded_from <= b.as_of
        since = (
            f"; as-traded prices start {q.as_traded_from}" if known else "; no as-traded price for this date"
        )
        first = f"split/dividend-adjusted price {price(q.price)} {q.currency}"
        first += f" (not the as-traded close{since})"
    elif q.basis == "index":
        first = f"index level {price(q.price)}"
    moved = change(b)
    first += f", change {moved}" if moved else ""
    first += f" · session {q.session_date.isoformat()}"
    adjusted = " (adjusted)" if q.basis == "adjusted" else ""
    rest = [f"day range{adjusted} {price(q.day_low)}–{price(q.day_high)}", f"volume {count(q.volume)}"]
    if q.market_cap is not None:
        cap = f"market cap {compact(q.market_cap)} {q.currency}"
        rest.append(cap + (f" (shares as of {q.market_cap_date.isoformat()})" if q.market_cap_date else ""))
    if q.previous_close is not None:
        rest.append(f"previous close {price(q.previous_close)}")
    week52 = range_line(b)
    return [first, " · ".join(rest), *([week52] if week52 else [])]


def range_line(b: Briefing) -> str | None:
    """'52-week range (closes, as traded) $172.42 (2025-04-08) – $259.02 (2024-12-26), 246 sessions
    2024-09-03..2025-08-29'; says when the data does not cover the full 52 weeks."""
    q = b.snapshot.quote
    r = q.range_52w if q is not None else None
    if q is None or r is None:
        return None
    basis = {"as_traded": "as traded", "adjusted": "split/dividend-adjusted", "index": "index"}[q.basis]
    basis += ", split-adjusted" if r.split_adjusted else ""
    text = (
        f"52-week range (closes, {basis}) {price(r.low)} ({r.low_date.isoformat()}) – {price(r.high)} "
        f"({r.high_date.isoformat()}), {r.sessions} sessions {r.start.isoformat()}..{r.end.isoformat()}"
    )
    return text if r.complete else f"{text}; not the full 52 weeks: data starts {r.start.isoformat()}"


def quote_source(b: Briefing) -> str | None:
    q = b.snapshot.quote
    if q is None:
        return None
    notes = "; ".join(one_line(n) for n in q.notes)
    text = f"source {one_line(q.source)}" + (f" (note: {notes})" if notes else "")
    r = q.range_52w
    if r is not None:
        range_notes = "; ".join(one_line(n) for n in r.notes)
        text += f"; 52-week range from {one_line(r.source)}" + (f" ({range_notes})" if range_notes else "")
    return text


def fact_text(f: FactView) -> str:
    end = f.period_end.isoformat()
    period = f"{f.period_start.isoformat()}..{end}" if f.period_start else f"at {end}"
    form = f"{f.form} " if f.form else ""
    return f"{f.metric} {exact(f.value)} {f.unit} ({period}, {form}filed {f.filed.isoformat()}, {f.concept})"


_KF_LABELS = {
    ("revenue", "quarter"): "Revenue, latest reported quarter",
    ("revenue", "year"): "Revenue, latest fiscal year",
    ("eps", "quarter"): "Diluted EPS, latest reported quarter",
    ("eps", "year"): "Diluted EPS, latest fiscal year",
}


def _kf_when(f: Figure, filing: bool = True) -> str:
    span = f"{f.period_start.isoformat()}..{f.period_end.isoformat()}"
    return f"{span}, {f.form or 'filing'} filed {f.filed.isoformat()}" if filing else span


def _kf_computed(name: str, c: Computed | None, value: str, details: bool) -> tuple[str, list[str]] | None:
    if c is None:
        return None
    if c.value is None:
        return f"{name}: not available: {c.reason}", []
    how = f"computed: {c.method}" if details and c.method else "computed"
    return f"{name}: {value} ({how})", list(dict.fromkeys(f.citation for f in c.inputs))


def key_figure_short_lines(k: KeyFigures) -> list[tuple[str, list[str]]]:
    """The key figures for one line each (the terminal's one screen): value and growth first, so a
    narrow terminal clips the period and filing, never the figures."""
    lines: list[tuple[str, list[str]]] = [(k.missing, [])] if k.missing else []
    for c in k.comparisons:
        cur = c.current
        text = f"{_KF_LABELS[(c.metric, c.period)]}: {exact(cur.value)} {cur.unit}"
        if c.growth_pct is not None:
            text += f", {c.growth_pct:+.1f}% y/y (computed)"
        text += f" · {cur.period_start.isoformat()}..{cur.period_end.isoformat()}, {cur.form or 'filing'}"
        text += f" filed {cur.filed.isoformat()}"
        lines.append((text, [cur.citation]))
    return lines + key_figure_lines(k, details=False)[len(lines) :]


def key_figure_lines(k: KeyFigures, details: bool = True) -> list[tuple[str, list[str]]]:
    """The key figures as lines of text with the source keys each one cites (every renderer's text)."""
    if k.missing:
        lines: list[tuple[str, list[str]]] = [(k.missing, [])]
    else:
        lines = []
    for c in k.comparisons:
        cur, prior = c.current, c.year_earlier
        text = f"{_KF_LABELS[(c.metric, c.period)]}: {exact(cur.value)} {cur.unit} ({_kf_when(cur)})"
        cites = [cur.citation]
        if prior is not None:
            same = prior.citation == cur.citation
            text += f"; a year earlier {exact(prior.value)} ({_kf_when(prior, filing=not same)})"
            cites += [] if same else [prior.citation]
        if c.growth_pct is not None:
            text += f"; growth {c.growth_pct:+.1f}% (computed)"
        if c.note:
            text += f"; {c.note}"
        lines.append((text, cites))
    pe, dy = k.trailing_pe, k.dividend_yield
    for line in (
        _kf_computed("Trailing P/E", pe, f"{pe.value:.1f}" if pe and pe.value is not None else "", details),
        _kf_computed(
            "Dividend yield", dy, f"{dy.value:.2f}%" if dy and dy.value is not None else "", details
        ),
    ):
        if line is not None:
            lines.append(line)
    for name, note in (
        ("Next earnings date", k.next_earnings),
        ("Latest earnings release", k.earnings_release),
    ):
        if note is not None:
            lines.append((f"{name}: {note.text}", [note.citation] if note.citation else []))
    return lines


def filing_head(f: FilingView) -> str:
    period = f" (period {f.report_date.isoformat()})" if f.report_date else ""
    age = f", {one_line(f.age)}" if f.age else ""
    items = ", ".join(f"Item {one_line(i.item)} {one_line(i.title)}" for i in f.items)
    head = f"{one_line(f.form)} filed {f.filing_date.isoformat()}{age}{period}"
    return head + (f": {items}" if items else "")


def age_stamp(b: Briefing, findings: list[Finding], what: str) -> str | None:
    """The filing the findings quote, with its age: "Risk factors from the 10-K filed 2024-11-01
    (10 months ago)"; None when the findings cite no filing."""
    key = findings[0].citation if findings else None
    ref = next((s for s in b.sources if s.key == key and s.form and s.filed), None)
    if ref is None or ref.filed is None:
        return None
    age = f" ({one_line(ref.age)})" if ref.age else ""
    return f"{what} from the {one_line(ref.form or '')} filed {ref.filed.isoformat()}{age}"


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


SHOWN_PER_SOURCE = 15  # posts listed per platform; every post read is in the JSON and counted above


def window_line(r: SocialReport) -> str:
    """'Window 2025-07-30..2025-08-29 (both days included): Reddit 20 (…)'."""
    return f"Window {r.window_start.isoformat()}..{r.as_of.isoformat()} (both days included): {tone_line(r)}"


def coverage_line(c: SourceCoverage) -> str:
    """'Reddit: 94 posts published 2025-07-30..2025-08-27, all read; 41 counted in tone and themes, not
    counted: 2 bot or moderator account, 51 names the company only in passing'."""
    noun = "articles" if c.source == "News" else "posts"
    span = f"{c.first.isoformat()}..{c.last.isoformat()}" if c.first and c.last else "no dates"
    read = "all read" if c.complete else f"only the newest {c.read:,} read (the limit)"
    out = f"{c.source}: {c.read:,} {noun} published {span}, {read}"
    if c.excluded:
        left = ", ".join(f"{n:,} {one_line(why)}" for why, n in c.excluded.items())
        out += f"; {c.counted:,} counted in tone and themes, not counted: {left}"
    return out


def window_short(r: SocialReport) -> str:
    """The one-screen form: 'Window 2025-07-30..2025-08-29: Reddit 17 counted of 37 read (8 bullish /
    1 bearish / 8 neutral); News 2 counted of 2 read (…)'."""
    read = {c.source: c for c in r.coverage}
    parts = []
    for label, counts in (("Reddit", r.reddit), ("Stocktwits", r.stocktwits), ("News", r.news)):
        c = read.get(label)
        if counts is None or c is None:
            continue
        newest = "" if c.complete else " newest"
        parts.append(
            f"{label} {counts.total:,} counted of {c.read:,}{newest} read ({counts.bullish:,} bullish / "
            f"{counts.bearish:,} bearish / {counts.neutral:,} neutral)"
        )
    window = f"Window {r.window_start.isoformat()}..{r.as_of.isoformat()}"
    return f"{window}: {'; '.join(parts) or 'no tone counts'}"


def pump_line(r: SocialReport) -> str:
    """'Pump-bot check: 0 of 94 posts flagged; features available: …; not available in this data: …'."""
    out = f"Pump-bot check: {len(r.pump_flags):,} of {r.posts_scored:,} posts flagged"
    if r.pump_features:
        out += "; features available: " + ", ".join(one_line(f) for f in r.pump_features)
    if r.pump_features_missing and r.posts_scored:
        out += "; not available in this data: " + ", ".join(one_line(f) for f in r.pump_features_missing)
    return out


def shown_posts(r: SocialReport) -> tuple[list[PostView], str]:
    """The counted posts to list (the newest ``SHOWN_PER_SOURCE`` of each platform) and the heading."""
    counted = [p for p in r.posts if p.excluded is None]
    shown: list[PostView] = []
    seen: dict[str, int] = {}
    for p in counted:
        seen[p.platform] = seen.get(p.platform, 0) + 1
        if seen[p.platform] <= SHOWN_PER_SOURCE:
            shown.append(p)
    if len(shown) == len(counted):
        return shown, f"Posts and articles counted ({len(counted):,})"
    return shown, (
        f"Posts and articles counted: the newest {SHOWN_PER_SOURCE} of each source listed, "
        f"{len(shown):,} of {len(counted):,}"
    )


def excluded_posts(r: SocialReport, limit: int = SHOWN_PER_SOURCE) -> tuple[list[PostView], str]:
    """Posts read but not counted in tone and themes (the newest ``limit``), and the heading."""
    left = [p for p in r.posts if p.excluded is not None]
    shown = f", the newest {limit} listed" if len(left) > limit else ""
    return left[:limit], f"Read but not counted in tone and themes ({len(left):,}{shown})"


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
    ratio = f" ({a.ratio:.2f}x)" if finite(a.ratio) else ""
    return f"volume {z}{ratio} — {'unusual' if a.unusual else 'not unusual'}"


def volume_line(a: VolumeAnomaly) -> str:
    """'volume 243,257,900 on 2025-08-29 vs 30-session mean 164,127,077: z +2.11 (1.48x) — unusual'."""
    mean = f"{a.baseline_mean:,.0f}" if math.isfinite(a.baseline_mean) else NONE
    z = f"z {signed(a.z_score)}" if a.z_score is not None else "z n/a (flat baseline)"
    ratio = f" ({a.ratio:.2f}x)" if finite(a.ratio) else ""
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


def verdict_text(d: ClaimCheck) -> str:
    if d.verdict == "not_checkable":
        return f"not checkable: {REASON_TEXT[d.reason] if d.reason else 'unknown reason'}"
    return {"contradicted": "CONTRADICTED by the filings", "consistent": "consistent with the filings"}.get(
        d.verdict, "not a claim"
    )


def verdict_line(s: DivergencesSection) -> str:
    """'1 of 8 social claim(s) contradicted by the filings; 5 consistent, 2 not checkable (2 no data).'"""
    checks = [*s.divergences, *s.others]
    if not checks:
        return s.message or "No claims were found in the posts and articles of the window."
    counts = verdict_counts(checks)
    n = counts["contradicted"]
    head = (
        f"{n:,} of {len(checks):,} social claim(s) contradicted by the filings"
        if n
        else f"No social claim is contradicted by the filings ({len(checks):,} checked)"
    )
    reasons: dict[str, int] = {}
    for c in s.others:
        if c.verdict == "not_checkable":
            why = REASON_TEXT[c.reason] if c.reason else "unknown reason"
            reasons[why] = reasons.get(why, 0) + 1
    rest = [f"{counts['consistent']:,} consistent"] if counts["consistent"] else []
    if counts["not_checkable"]:
        why = ", ".join(f"{v:,} {k}" for k, v in reasons.items())
        rest.append(f"{counts['not_checkable']:,} not checkable ({why})")
    rest += [f"{counts['not_a_claim']:,} not a claim"] if counts["not_a_claim"] else []
    return head + ("; " + ", ".join(rest) if rest else "") + "."


def other_groups(s: DivergencesSection) -> list[tuple[str, list[ClaimCheck]]]:
    """The claims that are not divergences, grouped: consistent, not checkable by reason, not a claim."""
    groups: dict[str, list[ClaimCheck]] = {}
    for c in sorted(s.others, key=lambda c: ("consistent", "not_checkable", "not_a_claim").index(c.verdict)):
        label = {"consistent": "Consistent with the filings", "not_a_claim": "Not a claim"}.get(c.verdict)
        groups.setdefault(label or verdict_text(c).capitalize(), []).append(c)
    return [(f"{label} ({len(checks):,})", checks) for label, checks in groups.items()]


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


def post_head(p: PostView) -> str:
    counted = f"not counted ({one_line(p.excluded)})" if p.excluded else p.tone
    return f"{who(p.platform, p.author, p.where)}, {p.published_at.date().isoformat()}, {counted}"


def question_lines(b: Briefing) -> list[tuple[str, str, list[str]]]:
    """The client's question as (section title, text, citation keys) rows, unescaped; empty without one."""
    q = b.question
    if q is None:
        return []
    return [(section_title(p.section), p.text, p.citations) for p in q.points]
