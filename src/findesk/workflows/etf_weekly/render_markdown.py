"""The weekly ETF report as Markdown and as compact terminal text, and the plain-text lines both share
with the HTML dashboard (``render_html``).

Rules:
- Presentation only: pure, never raises on odd input (missing views, None figures, NaN, stray markup).
- Same sections, order and words as the dashboard: header, disclaimer, executive summary, market
  context, beta/alpha by sector, sector themes, candidates, send-back and revision, data quality,
  history, agents, tool trace (the trace only with ``details``).
- Every statement carries who made it (the ``by`` of the typed output it comes from: quant, news,
  senior, director); figures are the report's, formatted by ``core.formatting`` and never recomputed
  beyond the beta part (average return minus average alpha residual, ``charts.beta_alpha_parts``).
- Data text is inert: Markdown through ``core.formatting.md`` (structure and HTML characters escaped),
  links only for whole ``http(s)`` URLs (``md_url``); control characters (an ESC that would drive a
  terminal) are dropped from every data string before it is printed anywhere (``report_parts.printable``,
  which the tool-trace row uses too).
- A symbol's flag is the senior analyst's unless the managing director adjusted it; then both show.
"""

from __future__ import annotations

from collections.abc import Iterable

from findesk.agents.roles.etf_weekly.models import (
    FlagAdjustment,
    NewsSource,
    SectorGroup,
    SectorView,
    SymbolProfile,
)
from findesk.analytics.etf.params import PrepParams
from findesk.core.formatting import NONE, finite, md, md_url, number, plural, signed, usd
from findesk.workflows.etf_weekly.charts import beta_alpha_label, beta_alpha_parts
from findesk.workflows.etf_weekly.models import EtfWeeklyReport, HistoryEntry
from findesk.workflows.records import AgentRecord
from findesk.workflows.report_parts import TOOL_COLUMNS, data_label, printable, tool_row

TITLE = "Weekly ETF analyst"
AGENT_COLUMNS = (
    "agent",
    "mode",
    "why",
    "model turns",
    "tool calls",
    "tokens in",
    "tokens out",
    "cost",
    "time",
)
HISTORY_COLUMNS = (
    "week end",
    "run",
    "strategy hash",
    "candidates",
    "sectors",
    "evidence",
    "flags",
    "quality",
    "GREEN",
    "follow-up",
)

# ---- plain-text lines (shared with the dashboard) ----


def pct(value: float | None) -> str:
    return f"{signed(value)}%" if finite(value) else NONE


def pp(value: float | None) -> str:
    return f"{signed(value)} pp" if finite(value) else NONE


def title_line(r: EtfWeeklyReport) -> str:
    return f"{TITLE} — week ending {r.week_end.isoformat()}"


def header_items(r: EtfWeeklyReport) -> list[tuple[str, str]]:
    """(label, value) of the header: week, as-of, data and run mode, strategy with its hash, run."""
    return [
        ("week", f"{r.week_start.isoformat()} close to {r.week_end.isoformat()} close"),
        ("as of", r.as_of.isoformat()),
        ("data", printable(data_label(r.data_mode, r.as_of))),
        ("mode", printable(r.mode)),
        ("strategy", f"{printable(r.strategy.name)} (hash {printable(r.strategy_hash)})"),
        ("run", printable(r.run_id)),
    ]


def context_items(r: EtfWeeklyReport) -> list[tuple[str, str]]:
    """The market context panel: SPY's week, VIX, regime, yield curve, universe (the quant's)."""
    m = r.market_context
    spy = f"{pct(m.spy_weekly_return)} (close {number(m.spy_close)}"
    spy += f"; {pct(m.spy_vs_sma50_pct)} vs its 50-day average)" if finite(m.spy_vs_sma50_pct) else ")"
    vix = number(m.vix_level) + (f" ({m.vix_date.isoformat()})" if m.vix_date else "")
    curve = pp(m.yield_curve_10y2y)
    if finite(m.yield_curve_10y2y):
        curve += f" ({m.yield_curve_date.isoformat()})" if m.yield_curve_date else ""
        curve += f": {printable(m.yield_curve_state)}" if m.yield_curve_state else ""
    return [
        ("SPY weekly return", spy),
        ("VIX", vix if finite(m.vix_level) else f"{NONE} (not available)"),
        ("regime", printable(m.regime)),
        ("yield curve 10y-2y", curve if finite(m.yield_curve_10y2y) else f"{NONE} (not available)"),
        ("universe", plural(m.universe, "fund")),
    ]


def group_items(g: SectorGroup) -> list[tuple[str, str]]:
    parts = beta_alpha_parts(g)
    return [
        ("members", ", ".join(printable(s) for s in g.members) or NONE),
        ("average return", pct(g.avg_return)),
        ("average alpha residual", pp(g.avg_alpha_residual)),
        ("average beta", number(g.avg_beta)),
        ("split", beta_alpha_label(parts) if parts else NONE),
    ]


def profile_items(p: SymbolProfile, prep: PrepParams) -> list[tuple[str, str]]:
    """The quant profile panel of one candidate, in the design's units, labelled with the strategy's
    own periods (``rsi_14`` holds the RSI of ``prep.rsi_period`` sessions)."""
    ratio = f"{number(p.volume_ratio)}x" if finite(p.volume_ratio) else NONE
    return [
        ("alpha residual", pp(p.alpha_residual)),
        ("beta", number(p.beta)),
        ("weekly return", f"{pct(p.pct_return)} (SPY {pct(p.spy_weekly_return)})"),
        (f"RSI({prep.rsi_period})", number(p.rsi_14, 1)),
        ("Bollinger position", number(p.bollinger_position)),
        ("volume ratio", ratio),
        ("ATR", f"{number(p.atr_pct)}%" if finite(p.atr_pct) else NONE),
        ("sigma (daily)", f"{number(p.sigma)}%" if finite(p.sigma) else NONE),
        ("move in sigmas", number(p.move_sigmas)),
        ("vs SMA50 / SMA200", f"{pct(p.price_vs_sma50_pct)} / {pct(p.price_vs_sma200_pct)}"),
        ("close", number(p.close)),
        ("signal", printable(p.signal)),
    ]


def sector_order(r: EtfWeeklyReport) -> list[str]:
    """The quant's sector order, then sectors only a later agent named."""
    seen = dict.fromkeys(r.sector_groups)
    for name in (*r.senior.sectors, *r.news):
        seen.setdefault(name)
    return list(seen)


def symbol_order(r: EtfWeeklyReport) -> list[str]:
    """Candidates grouped by sector (in sector order), then any the senior reviewed that no group lists."""
    out: dict[str, None] = {}
    for sector in sector_order(r):
        group = r.sector_groups.get(sector)
        members = group.members if group else []
        others = [s for s, p in r.symbol_profiles.items() if p.sector == sector]
        for symbol in (*members, *others):
            if symbol in r.symbol_profiles or symbol in r.senior.symbols:
                out.setdefault(symbol)
    for symbol in (*r.symbol_profiles, *r.senior.symbols):
        out.setdefault(symbol)
    return list(out)


def adjustment(r: EtfWeeklyReport, symbol: str) -> FlagAdjustment | None:
    """The managing director's last flag change for ``symbol``, if any."""
    found = [a for a in r.director.flag_adjustments if a.symbol == symbol]
    return found[-1] if found else None


def final_flag(r: EtfWeeklyReport, symbol: str) -> str | None:
    """The flag that stands: the managing director's adjustment, else the senior analyst's, else None."""
    adj = adjustment(r, symbol)
    if adj is not None:
        return adj.to_flag
    view = r.senior.symbols.get(symbol)
    return view.flag if view else None


def revised_sectors(r: EtfWeeklyReport) -> list[str]:
    """Sectors the managing director sent back (or, without that review, whose first view differs)."""
    if r.director_first is not None and r.director_first.send_back:
        return list(r.director_first.send_back)
    if r.senior_first is None:
        return []
    return [s for s, v in r.senior.sectors.items() if r.senior_first.sectors.get(s) != v]


def flag_changes(r: EtfWeeklyReport) -> list[tuple[str, str, str]]:
    """(symbol, first flag, revised flag) for every candidate whose flag the senior's revision changed."""
    if r.senior_first is None:
        return []
    out: list[tuple[str, str, str]] = []
    for symbol, view in r.senior.symbols.items():
        before = r.senior_first.symbols.get(symbol)
        if before is not None and before.flag != view.flag:
            out.append((symbol, before.flag, view.flag))
    return out


def first_view(r: EtfWeeklyReport, sector: str) -> SectorView | None:
    return r.senior_first.sectors.get(sector) if r.senior_first else None


def source_byline(s: NewsSource) -> str:
    """What follows a source's title: its publisher and time (" — Reuters, 2025-05-20 14:03 UTC")."""
    who = f" — {printable(s.publisher)}" if s.publisher else ""
    return f"{who}, {s.published_at.strftime('%Y-%m-%d %H:%M')} UTC"


def source_line(s: NewsSource) -> str:
    """A source's title, publisher and time (its link is added by each rendering)."""
    return printable(s.title) + source_byline(s)


def follow_up_text(h: HistoryEntry) -> str:
    """Did the previous week's GREEN flags mean-revert: each one's return this week, and how many rose."""
    if not h.follow_up:
        return NONE
    rows = [f"{printable(s)} {pct(v)}" for s, v in h.follow_up.items()]
    up = sum(1 for v in h.follow_up.values() if finite(v) and v > 0)
    return f"{', '.join(rows)} ({up} of {len(h.follow_up)} reverted)"


def counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{printable(k)} {v:,}" for k, v in counts.items()) or NONE


def history_row(h: HistoryEntry) -> list[str]:
    return [
        h.week_end.isoformat(),
        printable(h.run_id),
        printable(h.strategy_hash),
        f"{h.candidates:,}",
        f"{h.sectors:,}",
        counts_text(h.evidence),
        counts_text(h.flags),
        number(h.quality_score, 1),
        ", ".join(printable(s) for s in h.green) or NONE,
        follow_up_text(h),
    ]


def agent_row(a: AgentRecord) -> list[str]:
    mode = printable(a.mode) + (" (fell back)" if a.fell_back else "")
    seconds = f"{a.latency_ms / 1000:,.1f} s" if finite(a.latency_ms) else NONE
    return [
        printable(a.name),
        mode,
        printable(a.mode_reason),
        f"{a.model_turns:,}",
        f"{a.tool_calls:,}",
        f"{a.input_tokens:,}",
        f"{a.output_tokens:,}",
        usd(a.cost_usd),
        seconds,
    ]


def usage_line(r: EtfWeeklyReport) -> str:
    return (
        f"{plural(r.model_calls, 'model call')} · tokens {r.input_tokens:,} in / {r.output_tokens:,} out · "
        f"cost {usd(r.cost_usd)}"
    )


def excluded_line(r: EtfWeeklyReport) -> str:
    total = sum(r.excluded.values())
    return f"{plural(total, 'fund')} not ranked: {counts_text(r.excluded)}" if r.excluded else "none excluded"


# ---- Markdown ----


def _md(text: object) -> str:
    return md(printable(text))


def _by(who: str) -> str:
    return f" _— {_md(who)}_"


def _table(columns: Iterable[str], rows: Iterable[list[str]]) -> list[str]:
    cols = list(columns)
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    out += ["| " + " | ".join(md(c) for c in row) + " |" for row in rows]
    return [*out, ""]


def _sources_md(sources: list[NewsSource]) -> list[str]:
    if not sources:
        return ["- Sources: none"]
    out = ["- Sources:"]
    for n, s in enumerate(sources, 1):
        where = md_url(s.url) if s.url else _md(s.cite)
        out.append(f"  {n}. \\[{_md(s.id)}\\] {md(source_line(s))} — {where}")
    return out


def _summary_md(r: EtfWeeklyReport) -> list[str]:
    d = r.director
    by = _by(d.by)
    out = ["## Executive summary", "", f"{_md(d.executive_summary)}{by}", ""]
    out.append(f"- Quality score: **{number(d.quality_score, 1)} / 10** — {_md(d.rationale)}{by}")
    if d.data_constrained_note:
        out.append(f"- Note: {_md(d.data_constrained_note)}{by}")
    for a in d.flag_adjustments:
        out.append(f"- Flag adjusted: {_md(a.symbol)} {a.from_flag} → {a.to_flag}: {_md(a.reason)}{by}")
    if not d.flag_adjustments:
        out.append(f"- Flag adjustments: none{by}")
    out.append(f"- Strongest: {', '.join(_md(s) for s in d.strongest) or NONE}{by}")
    out.append(f"- Weakest: {', '.join(_md(s) for s in d.weakest) or NONE}{by}")
    out += [f"- Blind spot: {_md(b)}{by}" for b in d.blind_spots]
    if d.sector_concentration:
        out.append(f"- Sector concentration: {_md(d.sector_concentration)}{by}")
    return [*out, ""]


def _context_md(r: EtfWeeklyReport) -> list[str]:
    out = ["## Market context", ""]
    out += [f"- {label}: {md(value)}{_by('quant')}" for label, value in context_items(r)]
    out += [f"- warning: {_md(w)}{_by('quant')}" for w in r.market_context.warnings]
    if r.overview is not None:
        out.append(f"- Market news: {_md(r.overview.narrative)}{_by(r.overview.by)}")
        out += ["  " + line for line in _sources_md(r.overview.sources)]
    return [*out, ""]


def _beta_alpha_md(r: EtfWeeklyReport) -> list[str]:
    rows = []
    for sector in sector_order(r):
        g = r.sector_groups.get(sector)
        parts = beta_alpha_parts(g) if g else None
        if g is None or parts is None:
            rows.append([printable(sector), NONE, NONE, NONE, NONE])
            continue
        rows.append(
            [printable(sector), pct(parts.total), pct(parts.beta), pp(parts.alpha), number(g.avg_beta)]
        )
    head = [
        "## Beta and alpha by sector",
        "",
        f"Average weekly return = beta part + alpha part{_by('quant')}",
        "",
    ]
    return head + _table(("sector", "average return", "beta part", "alpha part", "average beta"), rows)


def _sector_md(r: EtfWeeklyReport, sector: str) -> list[str]:
    view, group, news = r.senior.sectors.get(sector), r.sector_groups.get(sector), r.news.get(sector)
    flag = view.flag if view else "not reviewed"
    out = [f"### {_md(sector)} — {flag}", ""]
    if view is not None:
        out.append(f"- Flag {view.flag}: {_md(view.reason)}{_by(view.by)}")
    if sector in revised_sectors(r):
        out.append("- Revised after the managing director sent it back (first version under Send-back)")
    if group is not None:
        items = "; ".join(f"{label} {md(value)}" for label, value in group_items(group))
        out.append(f"- Group: {items}{_by(group.by)}")
        out.append(f"- Interpretation: {_md(group.interpretation)}{_by(group.by)}")
    if news is None:
        out.append("- News: not searched")
    else:
        searched = f"effort {news.effort}; searched: {_md(news.searched)}"
        out.append(f"- Evidence: **{news.evidence}** ({searched}){_by(news.by)}")
        for d in news.drivers:
            cites = f" (sources {', '.join(_md(s) for s in d.sources)})" if d.sources else ""
            out.append(f"- Driver \\[{d.type}\\]: {_md(d.text)}{cites}{_by(news.by)}")
        out.append(f"- News narrative: {_md(news.narrative)}{_by(news.by)}")
    if view is not None and (news is None or view.narrative != news.narrative):
        out.append(f"- Senior narrative: {_md(view.narrative)}{_by(view.by)}")
    if news is not None:
        out += _sources_md(news.sources)
    return [*out, ""]


def _symbol_md(r: EtfWeeklyReport, symbol: str) -> list[str]:
    p, v = r.symbol_profiles.get(symbol), r.senior.symbols.get(symbol)
    name = f" — {_md(p.name)}" if p and p.name else ""
    sector = p.sector if p else (v.sector if v else NONE)
    out = [f"### {_md(symbol)}{name} · {final_flag(r, symbol) or 'not reviewed'} ({_md(sector)})", ""]
    adj = adjustment(r, symbol)
    if adj is not None:
        out.append(f"- Flag adjusted {adj.from_flag} → {adj.to_flag}: {_md(adj.reason)}{_by(r.director.by)}")
    if v is not None:
        by = _by(v.by)
        out.append(f"- Flag {v.flag}: {_md(v.reason)}{by}")
        out += [f"- Bullish: {_md(b)}{by}" for b in v.bullish]
        out += [f"- Bearish: {_md(b)}{by}" for b in v.bearish]
        if v.key_concern:
            out.append(f"- Key concern: {_md(v.key_concern)}{by}")
    if p is not None:
        items = "; ".join(f"{label} {md(value)}" for label, value in profile_items(p, r.strategy.prep))
        out.append(f"- Profile: {items}{_by(p.by)}")
        out.append(f"- Note: {_md(p.note)}{_by(p.by)}")
    series = r.charts.get(symbol)
    if series is not None and series.dates:
        span = f"{series.dates[0].isoformat()} to {series.dates[-1].isoformat()}"
        out.append(f"- Price chart: {len(series.dates):,} sessions, {span} (in the HTML dashboard)")
    else:
        out.append("- Price chart: no price series")
    return [*out, ""]


def _revision_md(r: EtfWeeklyReport) -> list[str]:
    revised = revised_sectors(r)
    if r.director_first is None and r.senior_first is None:
        return []
    out = ["## Send-back and revision", ""]
    first = r.director_first
    if first is not None:
        by = _by(first.by)
        out += [f"### First review (managing director, revision {first.revision})", ""]
        out.append(f"- Quality score: {number(first.quality_score, 1)} / 10 — {_md(first.rationale)}{by}")
        out.append(f"- Sent back: {', '.join(_md(s) for s in first.send_back) or NONE}{by}")
        out += [f"- Objection: {_md(o)}{by}" for o in first.objections]
        out.append("")
    if r.senior_first is not None:
        out += [f"### First version (senior analyst, revision {r.senior_first.revision})", ""]
        for sector in revised:
            v = first_view(r, sector)
            if v is not None:
                out.append(f"- {_md(sector)}: {v.flag} — {_md(v.reason)}. {_md(v.narrative)}{_by(v.by)}")
        out.append("")
    out += [f"### Revision (senior analyst, revision {r.senior.revision})", ""]
    out += [f"- Answers: {_md(a)}{_by('senior')}" for a in r.senior.answered]
    for sector in revised:
        v = r.senior.sectors.get(sector)
        if v is not None:
            out.append(f"- {_md(sector)}: {v.flag} — {_md(v.reason)}. {_md(v.narrative)}{_by(v.by)}")
    for symbol, before, after in flag_changes(r):
        out.append(f"- {_md(symbol)}: flag {before} → {after}{_by('senior')}")
    return [*out, ""]


def _quality_md(r: EtfWeeklyReport) -> list[str]:
    out = ["## Data quality", ""]
    out.append(f"- Bad ticks and split artefacts caught: {len(r.data_flags):,}{_by('quant')}")
    out += [f"  - {_md(f.symbol)}: {_md(f.reason)}" for f in r.data_flags]
    out.append(f"- Exclusions: {md(excluded_line(r))}{_by('quant')}")
    if r.price_source:
        out.append(f"- Prices: {_md(r.price_source)}")
    out += [f"- Warning: {_md(w)}" for w in r.warnings]
    out += [f"- Output guard: {_md(w)}" for w in r.guard.warnings()]
    return [*out, ""]


def _history_md(r: EtfWeeklyReport) -> list[str]:
    out = ["## History", ""]
    if not r.history:
        return [*out, "No earlier week of this strategy.", ""]
    return out + _table(HISTORY_COLUMNS, (history_row(h) for h in r.history))


def _agents_md(r: EtfWeeklyReport) -> list[str]:
    out = ["## Agents", "", md(usage_line(r)), ""]
    return out + _table(AGENT_COLUMNS, (agent_row(a) for a in r.agents))


def _trace_md(r: EtfWeeklyReport) -> list[str]:
    out = ["## Tool trace", ""]
    if not r.tool_calls:
        return [*out, "No tool calls.", ""]
    return out + _table(TOOL_COLUMNS, (tool_row(t) for t in r.tool_calls))


def to_markdown(r: EtfWeeklyReport, details: bool = False) -> str:
    """The whole report as Markdown; the tool trace only with ``details``. Never raises."""
    out = [f"# {md(title_line(r))}", ""]
    out += [" · ".join(f"{label}: {md(value)}" for label, value in header_items(r)), ""]
    out += [f"> {_md(r.disclaimer)}", ""]
    out += _summary_md(r) + _context_md(r) + _beta_alpha_md(r)
    out += ["## Sector themes", ""]
    for sector in sector_order(r):
        out += _sector_md(r, sector)
    out += ["## Candidates", ""]
    for symbol in symbol_order(r):
        out += _symbol_md(r, symbol)
    out += _revision_md(r) + _quality_md(r) + _history_md(r) + _agents_md(r)
    if details:
        out += _trace_md(r)
    return "\n".join(out).rstrip() + "\n"


# ---- terminal ----


def to_terminal(r: EtfWeeklyReport, details: bool = False) -> str:
    """One screen: the header, the director's verdict, one line per sector and per candidate."""
    m, d = r.market_context, r.director
    out = [
        title_line(r),
        " · ".join(f"{label} {value}" for label, value in header_items(r)[1:]),
        printable(r.disclaimer),
    ]
    out.append(
        f"Quality {number(d.quality_score, 1)}/10 (director) · SPY {pct(m.spy_weekly_return)} · "
        f"VIX {number(m.vix_level)} · {printable(m.regime)}"
    )
    out.append(f"Summary (director): {printable(d.executive_summary)}")
    if d.data_constrained_note:
        out.append(f"Note (director): {printable(d.data_constrained_note)}")
    out.append("Sectors (flag senior · evidence news · split quant):")
    for sector in sector_order(r):
        view, group, news = r.senior.sectors.get(sector), r.sector_groups.get(sector), r.news.get(sector)
        parts = beta_alpha_parts(group) if group else None
        split = beta_alpha_label(parts) if parts else NONE
        flag: str = view.flag if view else NONE
        evidence = news.evidence if news else "not searched"
        out.append(f"  {flag:<6} {printable(sector)}: {split} · evidence {evidence}")
    out.append("Candidates (flag · return · alpha · RSI · signal):")
    for symbol in symbol_order(r):
        p, adj = r.symbol_profiles.get(symbol), adjustment(r, symbol)
        flag = final_flag(r, symbol) or "—"
        figures = (
            f"{pct(p.pct_return)} · alpha {pp(p.alpha_residual)} · RSI {number(p.rsi_14, 1)} · {p.signal}"
            if p
            else NONE
        )
        moved = f" (director: {adj.from_flag} → {adj.to_flag})" if adj else ""
        out.append(f"  {flag:<6} {printable(symbol):<6} {figures}{moved}")
    if revised_sectors(r):
        out.append(f"Sent back and revised: {', '.join(printable(s) for s in revised_sectors(r))}")
    out.append(f"Data quality (quant): {plural(len(r.data_flags), 'bad tick')} caught · {excluded_line(r)}")
    out += [f"Warning: {printable(w)}" for w in (*r.warnings, *r.guard.warnings())]
    out.append(f"Agents: {len(r.agents)} · {usage_line(r)}")
    if r.output_dir:
        out.append(f"Run folder: {printable(r.output_dir)}")
    if details:
        out.append("Tool trace:")
        out += ["  " + " · ".join(tool_row(t)) for t in r.tool_calls]
    return "\n".join(out) + "\n"
