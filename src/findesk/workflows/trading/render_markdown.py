"""The trading desk's report as Markdown and as terminal text, and the plain-text lines both share with the
HTML page (``render_html``) and the streamed sections (``stream``).

Rules:
- Presentation only: pure, never raises on odd input (a missing analyst figure, None levels, NaN).
- Order, in every format: the company (ticker, name, CIK, exchange) and the date first, then the FINAL
  DECISION (rating, position % of capital, direction, entry/stop/target, horizon), then the four analysts
  (stance, score, top signals, summary), the investment debate turn by turn, the research manager, the
  trader's plan, the risk debate turn by turn with each proposed size, the risk manager's rationale, the
  past lessons used, memory notes, warnings and the disclaimer; with ``details`` the per-agent tokens and
  cost and the tool trace (``report_parts.tool_row`` / ``TOOL_COLUMNS``).
- A REVIEW rating cannot be missed: "REVIEW — the model's decision could not be validated: <reason>"
  stands right under the first line, in every format, never a silent HOLD.
- Every string from the report is data: on one printable line (``report_parts.printable``: control,
  bidi and format characters dropped, so an ESC in a headline never drives a terminal); Markdown through
  ``core.formatting.md`` (structure and HTML characters escaped), links only for whole ``http(s)`` URLs
  (``md_url``). Figures are the report's, formatted by ``core.formatting``, never recomputed.
- The terminal view is wrapped to ``WIDTH`` (100) columns; debate turns keep their order (round, then
  the order the graph recorded them).
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable

from findesk.agents.roles.trading.models import (
    AnalystReport,
    DebateTurn,
    FinalDecision,
    FundamentalsReport,
    Headline,
    Identity,
    InvestmentDecision,
    MarketReport,
    NewsReport,
    Signal,
    SocialReport,
    TradePlan,
)
from findesk.core.formatting import NONE, finite, md, md_url, number, plural, price, signed, usd
from findesk.workflows.records import AgentRecord
from findesk.workflows.report_parts import TOOL_COLUMNS, data_label, printable, tool_row
from findesk.workflows.trading.models import TradeReport

WIDTH = 100  # the terminal view's columns
TOP_SIGNALS = 3  # signals per analyst in the terminal view (all of them in Markdown and HTML)
ANALYST_TITLES: tuple[tuple[str, str], ...] = (
    ("market", "Market analyst"),
    ("fundamentals", "Fundamentals analyst"),
    ("news", "News analyst"),
    ("social", "Social analyst"),
)
AGENT_COLUMNS = ("agent", "mode", "model turns", "tool calls", "tokens in", "tokens out", "cost", "time")
HEADLINES = 5  # company headlines listed per news report (the report keeps them all)

# ---- plain-text lines (shared with the HTML page and the streamed sections) ----


def pct(value: float | None) -> str:
    return f"{number(value)}%" if finite(value) else NONE


def capital(value: float | None) -> str:
    """A size: "2.50% of capital"."""
    return f"{pct(value)} of capital"


def company_line(i: Identity) -> str:
    """ "NVDA — NVIDIA CORP · CIK 1045810 · Nasdaq": the one company the run is about."""
    exchange = printable(i.exchange) if i.exchange else "exchange unknown"
    return f"{printable(i.ticker)} — {printable(i.name)} · CIK {i.cik} · {exchange}"


def company_extra(i: Identity) -> str:
    """Sector and industry, and the tables the identity was read from."""
    parts = [printable(v) for v in (i.sector, i.industry) if v]
    where = f"identity from {printable(i.source)}"
    return " · ".join([*parts, where])


def title_line(r: TradeReport) -> str:
    return f"{company_line(r.identity)} · trading desk decision for {r.as_of.isoformat()}"


def header_items(r: TradeReport) -> list[tuple[str, str]]:
    return [
        ("date", r.as_of.isoformat()),
        ("data", printable(data_label(r.data_mode, r.as_of))),
        ("mode", printable(r.mode)),
        ("rounds", f"debate {r.debate_rounds}, risk {r.risk_rounds}"),
        ("run", printable(r.run_id)),
    ]


def is_review(f: FinalDecision) -> bool:
    return f.rating == "REVIEW"


def review_line(f: FinalDecision) -> str:
    """The REVIEW banner ("" for any other rating)."""
    if not is_review(f):
        return ""
    reason = printable(f.review_reason) if f.review_reason else "no reason was recorded"
    return f"REVIEW — the model's decision could not be validated: {reason}"


def level(value: float | None) -> str:
    return price(value) if finite(value) else "n/a"


def final_items(f: FinalDecision) -> list[tuple[str, str]]:
    """The final decision's figures: rating, size, direction, entry, stop, target, horizon."""
    return [
        ("rating", f.rating),
        ("position", capital(f.position_pct)),
        ("direction", f.direction),
        ("entry", level(f.entry)),
        ("stop", level(f.stop)),
        ("target", level(f.target)),
        ("horizon", plural(f.horizon_days, "session")),
    ]


def final_line(f: FinalDecision) -> str:
    """ "FINAL DECISION: BUY · 2.50% of capital · long · entry 898.78 · stop … · horizon 20 sessions"."""
    values = [v if k in ("rating", "position", "direction") else f"{k} {v}" for k, v in final_items(f)]
    return "FINAL DECISION: " + " · ".join(values)


def analyst_order(r: TradeReport) -> list[AnalystReport]:
    return [r.market, r.fundamentals, r.news, r.social]


def analyst_title(name: str) -> str:
    return dict(ANALYST_TITLES).get(name, f"{printable(name)} analyst")


def analyst_head(a: AnalystReport) -> str:
    """ "bullish · score +0.85 · data ok"."""
    return f"{a.stance} · score {signed(a.score)} · data {a.status}"


def top_signals(a: AnalystReport, n: int) -> list[Signal]:
    """The ``n`` strongest signals by |score × weight| (the desk view's ranking), ties by id."""
    return sorted(a.signals, key=lambda s: (-abs(s.score * s.weight), s.id))[:n]


def signal_line(s: Signal) -> str:
    """ "market.rsi (+1.00 × 1.00): RSI(14) 71.2: overbought"."""
    return f"{printable(s.id)} ({signed(s.score)} × {number(s.weight)}): {printable(s.text)}"


def _alpha(f: FundamentalsReport) -> str:
    rows = [f"{p.window} {signed(p.alpha_pp)} pp" for p in f.relative]
    etf = printable(f.sector_etf) if f.sector_etf else "the sector ETF"
    return f"alpha vs {etf}: {', '.join(rows)}" if rows else ""


def analyst_facts(a: AnalystReport) -> list[str]:
    """The typed figures behind an analyst's stance, one line each (regime, last close, peers, counts)."""
    out: list[str] = []
    if isinstance(a, MarketReport):
        g = a.regime
        out.append(f"regime {g.label} (score {signed(g.score)})")
        t = a.technicals
        if t is not None:
            atr = f" · ATR(14) {number(t.atr_14)} ({pct(t.atr_pct)})" if finite(t.atr_14) else ""
            rsi = f" · RSI(14) {number(t.rsi_14, 1)}" if finite(t.rsi_14) else ""
            out.append(f"close {price(t.close)} on {t.session.isoformat()}{rsi}{atr}")
    elif isinstance(a, FundamentalsReport):
        if a.ttm:
            q = a.ttm[0]
            out.append(
                f"TTM to {q.quarter_end.isoformat()}: revenue growth {pct(q.revenue_growth_yoy_pct)}, "
                f"net margin {pct(q.net_margin_pct)}, ROE {pct(q.roe_pct)}"
            )
        if a.peer_rank is not None:
            p = a.peer_rank
            ranks = ", ".join(f"{printable(k)} #{v}" for k, v in p.ranks.items()) or NONE
            out.append(f"peers: {plural(p.peers, 'member')} of {printable(p.sub_industry)}; ranks {ranks}")
        if alpha := _alpha(a):
            out.append(alpha)
    elif isinstance(a, NewsReport):
        out.append(f"{plural(len(a.company), 'company headline')}, {len(a.global_news):,} global")
        ins = a.insider
        if ins.status == "no_data":
            out.append(f"insider transactions: no data — {printable(ins.reason or 'no source')}")
        elif ins.buys is None or ins.sells is None:
            out.append(f"insider transactions: {printable(ins.reason or 'buys and sells unknown')}")
        else:
            shares = f", net {number(ins.net_shares, 0)} shares" if finite(ins.net_shares) else ""
            out.append(f"insider transactions: {ins.buys:,} buys, {ins.sells:,} sells{shares}")
    elif isinstance(a, SocialReport):
        where = ", ".join(printable(p) for p in a.platforms) or "no platform"
        out.append(
            f"{plural(a.posts, 'post')} ({a.bullish:,} bullish, {a.bearish:,} bearish; "
            f"{a.bot_flagged:,} bot-flagged left out) on {where} — UNVERIFIED"
        )
    return out


def headline_line(h: Headline) -> str:
    """A headline's title, source and time (its link is added by each rendering)."""
    return f"{printable(h.title)} — {printable(h.source)}, {h.published.strftime('%Y-%m-%d %H:%M')}"


def turn_head(t: DebateTurn) -> str:
    """ "Round 1 · Bull · score +0.90" (and "· proposes 3.75% of capital" in the risk debate)."""
    head = f"Round {t.round} · {t.side.capitalize()} · score {signed(t.score)}"
    return head + (f" · proposes {capital(t.proposed_pct)}" if t.proposed_pct is not None else "")


def turn_refs(t: DebateTurn) -> str:
    cites = ", ".join(printable(c) for c in t.cites) or "none"
    rebuts = f" · rebuts {printable(t.rebuts)}" if t.rebuts else ""
    return f"cites {cites}{rebuts}"


def decision_line(d: InvestmentDecision) -> str:
    return f"{d.rating} (net score {signed(d.score)})"


def plan_items(p: TradePlan) -> list[tuple[str, str]]:
    stop = level(p.stop) + (f" ({number(p.stop_atr)} ATR)" if finite(p.stop_atr) else "")
    target = level(p.target) + (f" ({number(p.target_atr)} ATR)" if finite(p.target_atr) else "")
    return [
        ("direction", p.direction),
        ("position", capital(p.position_pct)),
        ("entry", f"{level(p.entry)} ({printable(p.entry_basis)})"),
        ("stop", stop),
        ("target", target),
        ("risk/reward", number(p.risk_reward) if finite(p.risk_reward) else "n/a"),
        ("horizon", plural(p.horizon_days, "session")),
    ]


def lesson_lines(r: TradeReport) -> list[str]:
    """ "role: lesson" for every past lesson the run injected (the report's per-role record)."""
    return [f"{printable(role)}: {printable(x)}" for role, xs in r.lessons.items() for x in xs]


def warning_lines(r: TradeReport) -> list[str]:
    return [printable(w) for w in (*r.warnings, *r.guard.warnings())]


def usage_line(r: TradeReport) -> str:
    return (
        f"{plural(r.model_calls, 'model call')} · tokens {r.input_tokens:,} in / {r.output_tokens:,} out · "
        f"cost {usd(r.cost_usd)}"
    )


def agent_row(a: AgentRecord) -> list[str]:
    mode = printable(a.mode) + (" (fell back)" if a.fell_back else "")
    seconds = f"{a.latency_ms / 1000:,.1f} s" if finite(a.latency_ms) else NONE
    return [
        printable(a.name),
        mode,
        f"{a.model_turns:,}",
        f"{a.tool_calls:,}",
        f"{a.input_tokens:,}",
        f"{a.output_tokens:,}",
        usd(a.cost_usd),
        seconds,
    ]


# ---- Markdown ----


def _md(text: object) -> str:
    return md(printable(text))


def _items_md(items: Iterable[tuple[str, str]]) -> str:
    return " · ".join(f"{label} **{md(value)}**" for label, value in items)


def _table(columns: Iterable[str], rows: Iterable[list[str]]) -> list[str]:
    cols = list(columns)
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    out += ["| " + " | ".join(md(c) for c in row) + " |" for row in rows]
    return [*out, ""]


def _analyst_md(a: AnalystReport) -> list[str]:
    out = [f"### {analyst_title(a.analyst)} — {md(analyst_head(a))}", "", _md(a.summary), ""]
    out += [f"- {md(line)}" for line in analyst_facts(a)]
    out += [f"- Signal {md(signal_line(s))}" for s in top_signals(a, len(a.signals))]
    if not a.signals:
        out.append("- Signals: none")
    if isinstance(a, NewsReport):
        for h in a.company[:HEADLINES]:
            where = md_url(h.url) if h.url else "no URL"
            out.append(f"- Headline: {md(headline_line(h))} — {where}")
    out += [f"- Warning: {_md(w)}" for w in a.warnings]
    if a.sources:
        out.append(f"- Sources: {', '.join(_md(s) for s in a.sources)}")
    return [*out, ""]


def _turns_md(turns: list[DebateTurn]) -> list[str]:
    if not turns:
        return ["No turns.", ""]
    out: list[str] = []
    for t in turns:
        out += [f"### {md(turn_head(t))}", "", _md(t.argument), "", f"- {md(turn_refs(t))}", ""]
    return out


def _final_md(f: FinalDecision) -> list[str]:
    out = [f"## Final decision — risk manager: {f.rating}", ""]
    if is_review(f):
        out += [f"> **{_md(review_line(f))}**", ""]
    return [*out, _items_md(final_items(f)), ""]


def to_markdown(r: TradeReport, details: bool = False) -> str:
    """The whole report as Markdown; per-agent usage and the tool trace only with ``details``."""
    out = [f"# {md(title_line(r))}", "", md(company_extra(r.identity)), ""]
    out += [" · ".join(f"{label}: {md(value)}" for label, value in header_items(r)), ""]
    out += _final_md(r.final_decision)
    out += [f"> {_md(r.disclaimer)}", "", "## Analyst reports", ""]
    for a in analyst_order(r):
        out += _analyst_md(a)
    out += ["## Investment debate — bull vs bear", "", *_turns_md(r.investment_debate)]
    d = r.investment_decision
    out += ["## Research manager", "", f"**{md(decision_line(d))}**", "", _md(d.rationale), ""]
    out.append(f"- Bull points: {', '.join(_md(x) for x in d.bull_points) or NONE}")
    out.append(f"- Bear points: {', '.join(_md(x) for x in d.bear_points) or NONE}")
    out += [f"- Lesson used: {_md(x)}" for x in d.lessons_used]
    p = r.trader_plan
    out += ["", "## Trader's plan", "", _items_md(plan_items(p)), "", _md(p.rationale), ""]
    out += ["## Risk debate", "", *_turns_md(r.risk_debate)]
    f = r.final_decision
    out += ["## Risk manager", "", f"**{md(final_line(f))}**", "", _md(f.rationale), ""]
    out += [f"- Lesson used: {_md(x)}" for x in f.lessons_used]
    out += ["", "## Past lessons used", ""]
    out += [f"- {md(x)}" for x in lesson_lines(r)] or ["None: no scored decision was known before this date."]
    if r.memory_notes:
        out += ["", "## Decision log", ""] + [f"- {_md(x)}" for x in r.memory_notes]
    out += ["", "## Warnings", ""] + ([f"- {md(w)}" for w in warning_lines(r)] or ["None."])
    out += ["", "## Agents", "", md(usage_line(r)), ""]
    if details:
        out += _table(AGENT_COLUMNS, (agent_row(a) for a in r.agents))
        out += ["## Tool trace", ""]
        out += (
            _table(TOOL_COLUMNS, (tool_row(t) for t in r.tool_calls)) if r.tool_calls else ["No tool calls."]
        )
    out += ["", f"_{_md(r.disclaimer)}_"]
    return "\n".join(out).rstrip() + "\n"


# ---- terminal ----


def _wrap(text: str, indent: str = "", first: str | None = None) -> list[str]:
    """``text`` wrapped to ``WIDTH`` columns (long words cut, hyphens kept whole: "risk-on")."""
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=indent if first is None else first,
        subsequent_indent=indent,
        break_on_hyphens=False,
    ) or [(indent if first is None else first).rstrip()]


def _turns_terminal(turns: list[DebateTurn]) -> list[str]:
    out: list[str] = []
    for t in turns:
        out += _wrap(turn_head(t), "  ")
        out += _wrap(printable(t.argument), "      ")
        out += _wrap(turn_refs(t), "      ")
    return out or ["  no turns"]


def to_terminal(r: TradeReport, details: bool = False) -> str:
    """The CLI's default view, within ``WIDTH`` columns: the company and date, the final decision, then
    each role's output in the desk's order."""
    f = r.final_decision
    out = _wrap(title_line(r))
    out.append("=" * min(WIDTH, max(len(line) for line in out)))
    if is_review(f):
        bar = "!" * WIDTH
        out += [bar, *_wrap(review_line(f), "!! "), bar]
    out += _wrap(final_line(f))
    out.append("")
    out += _wrap(" · ".join(f"{label}: {value}" for label, value in header_items(r)[1:]))
    out += _wrap(company_extra(r.identity))
    out += ["", "Analysts (stance · score · top signals):"]
    for a in analyst_order(r):
        out += _wrap(f"{analyst_title(a.analyst)}: {analyst_head(a)}", "  ")
        out += [line for fact in analyst_facts(a) for line in _wrap(fact, "      ")]
        out += [
            line for s in top_signals(a, TOP_SIGNALS) for line in _wrap(signal_line(s), "        ", "    - ")
        ]
        out += _wrap(printable(a.summary), "      ")
        out += [line for w in a.warnings for line in _wrap(f"warning: {printable(w)}", "      ")]
    out += ["", f"Investment debate — bull vs bear ({plural(len(r.investment_debate), 'turn')}):"]
    out += _turns_terminal(r.investment_debate)
    d = r.investment_decision
    out += ["", f"Research manager: {decision_line(d)}"]
    out += _wrap(printable(d.rationale), "  ")
    p = r.trader_plan
    out += ["", "Trader's plan:"]
    out += _wrap(" · ".join(f"{label} {value}" for label, value in plan_items(p)), "  ")
    out += _wrap(printable(p.rationale), "  ")
    out += ["", f"Risk debate ({plural(len(r.risk_debate), 'turn')}):"]
    out += _turns_terminal(r.risk_debate)
    out += ["", f"Risk manager: {f.rating} · {capital(f.position_pct)}"]
    out += _wrap(printable(f.rationale), "  ")
    lessons = lesson_lines(r)
    out += ["", "Past lessons used:" if lessons else "Past lessons used: none"]
    out += [line for x in lessons for line in _wrap(x, "    ", "  - ")]
    out += [line for x in r.memory_notes for line in _wrap(f"Decision log: {printable(x)}")]
    warnings = warning_lines(r)
    out += ["", "Warnings:" if warnings else "Warnings: none"]
    out += [line for w in warnings for line in _wrap(w, "    ", "  - ")]
    out += ["", *_wrap(f"Agents: {len(r.agents)} · {usage_line(r)}")]
    if details:
        out += ["", "Agents (" + " · ".join(AGENT_COLUMNS) + "):"]
        out += [line for a in r.agents for line in _wrap(" · ".join(agent_row(a)), "      ", "  ")]
        out += ["Tool trace (" + " · ".join(TOOL_COLUMNS) + "):"]
        out += [line for t in r.tool_calls for line in _wrap(" · ".join(tool_row(t)), "      ", "  ")]
    out += _wrap(printable(r.disclaimer))
    return "\n".join(out) + "\n"
