"""Trading desk fundamentals tools: TTM trends with valuation, and alpha vs the sector ETF with peer ranks.

Rules:
- Thin: I/O here (``ctx.router`` with ``ctx.as_of``), maths in ``analytics.trading.fundamentals``,
  ``analytics.trading.sector_etf`` and ``analytics.valuation``.
- Point in time: XBRL facts filed on or before the as-of date (the data layer filters by filing date),
  yfinance quarters only once counted as reported, prices up to the last session at the as-of date,
  the S&P 500 list dated on or before it.
- Source of the trends: the company's XBRL facts when they give at least one TTM point (AAPL, NVDA,
  GOOGL in the snapshot), else the yfinance quarterly statements; none → ``no_data`` with both reasons.
  Valuation: the yfinance quarters and the quote (``analytics.valuation``, the basis the peers are
  valued on), else a P/E from XBRL diluted EPS (``key_figures.trailing_pe``) and a P/S from the quote's
  market cap over XBRL TTM revenue.
- Every result value carries the figures its signals state (the number trace walks tool values), and
  every summary states each figure with its source and date; a missing figure says why.
"""

from __future__ import annotations

import asyncio
from datetime import date, timedelta
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from findesk.analytics import key_figures
from findesk.analytics.trading import fundamentals as fa
from findesk.analytics.trading.sector_etf import (
    RelativePerf,
    Window,
    close_at,
    pct_change,
    relative_performance,
    sector_etf,
    window_start,
)
from findesk.analytics.trading.signals import Signal
from findesk.analytics.valuation import valuation
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import Fact, PriceBars, Quote
from findesk.data.models.fundamentals import IndexPeers
from findesk.data.router import DO_NOT_ESTIMATE
from findesk.tools.args import POINT_IN_TIME, QUOTE_RULE, SymbolArgs, Ticker, ToolArgs
from findesk.tools.base import Tool, ToolContext
from findesk.tools.summaries import compact, fit_lines

MAX_PEERS = 30  # the largest GICS sub-industries in the S&P 500 have about 25 members
_NOT_REPORTED = (ErrorCode.NO_DATA, ErrorCode.NOT_FOUND)  # a concept the company does not use
_SOURCES = {"xbrl": "XBRL filings", "yfinance": "yfinance quarters"}
_RATIO_KEYS = {"P/E": "pe", "P/S": "ps", "EV/EBITDA": "ev_ebitda"}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FundamentalTrends(_Model):
    symbol: str
    as_of: date
    source: Literal["xbrl", "yfinance"] | None = None
    trends: fa.Trends | None = None
    valuation: dict[str, float | None] = Field(default_factory=dict)  # "pe", "ps", "ev_ebitda"
    valuation_basis: list[str] = Field(default_factory=list)  # per ratio: its method, or why it is missing
    signals: list[Signal] = Field(default_factory=list)
    hidden: str = ""  # what was not yet public at the as-of date
    sources: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class PeerRow(_Model):
    symbol: str
    return_3m_pct: float | None = None
    return_6m_pct: float | None = None
    pe: float | None = None
    ps: float | None = None


class SectorAlpha(_Model):
    symbol: str
    as_of: date
    sector: str | None = None
    sector_basis: str = ""
    etf: str | None = None
    session: date | None = None  # the last session at the as-of date the windows end on
    relative: list[RelativePerf] = Field(default_factory=list)
    sub_industry: str | None = None
    peers: list[PeerRow] = Field(default_factory=list)  # the company first, then its peers
    ranking: fa.PeerRanking | None = None
    ranking_basis: str = ""
    gap: fa.ValuationGap | None = None
    signals: list[Signal] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


def plain(reason: str) -> str:
    """A data-layer reason without the router's instruction to models (the report states it as data)."""
    return reason.replace(DO_NOT_ESTIMATE, "").strip().rstrip(".")


# --- get_fundamental_trends ----------------------------------------------------------------------


async def _xbrl_facts(symbol: str, ctx: ToolContext) -> tuple[list[Fact], list[str]]:
    concepts = [*fa.XBRL_CONCEPTS, "EarningsPerShareDiluted"]
    got = await asyncio.gather(*(ctx.router.facts(symbol, c, ctx.as_of) for c in concepts))
    facts = [f for r in got if isinstance(r, Ok) for f in r.value]
    errors = [plain(r.reason) for r in got if isinstance(r, Err) and r.code not in _NOT_REPORTED]
    if not facts:
        first = next((r for r in got if isinstance(r, Err)), None)
        errors = [plain(first.reason)] if first is not None else errors
    return facts, errors


def _xbrl_valuation(
    facts: list[Fact], quote: Quote | None, trends: fa.Trends | None, as_of: date
) -> tuple[dict[str, float | None], list[str]]:
    eps = [f for f in facts if f.concept == "EarningsPerShareDiluted"]
    price, day = (quote.price, quote.session_date) if quote else (None, None)
    pe = key_figures.trailing_pe(eps, price, day, as_of)
    basis = [f"P/E {pe.value:.2f} = {pe.method}" if pe.value is not None else f"P/E: {pe.reason}"]
    ps: float | None = None
    revenue = trends.points[0].revenue_ttm if trends and trends.points else None
    if quote is None or quote.market_cap is None:
        basis.append("P/S: no market cap in the quote at the as-of date")
    elif revenue is None or revenue <= 0:
        basis.append("P/S: no positive XBRL TTM revenue")
    else:
        ps = quote.market_cap / revenue
        cap_day = (quote.market_cap_date or quote.session_date).isoformat()
        basis.append(
            f"P/S {ps:.2f} = market cap {compact(quote.market_cap)} ({cap_day}) / "
            f"TTM revenue {compact(revenue)}"
        )
    basis.append("EV/EBITDA: EBITDA is not an XBRL concept; not computed from filings")
    return {"pe": pe.value, "ps": ps, "ev_ebitda": None}, basis


async def _trends(args: SymbolArgs, ctx: ToolContext) -> Result[FundamentalTrends]:
    sym = args.symbol
    (facts, xbrl_errors), yf, quote = await asyncio.gather(
        _xbrl_facts(sym, ctx),
        ctx.router.quarterly_fundamentals(sym, ctx.as_of),
        ctx.router.quote(sym, ctx.as_of),
    )
    q = quote.value if isinstance(quote, Ok) else None
    yq = yf.value if isinstance(yf, Ok) else None
    xbrl = fa.ttm_trends(fa.xbrl_quarters(facts, ctx.as_of), "xbrl") if facts else None
    yfin = fa.ttm_trends(fa.yfinance_quarters(yq.quarters), "yfinance") if yq else None
    trends = xbrl or yfin
    warnings = [f"XBRL unavailable: {e}" for e in xbrl_errors]
    if trends is None:
        why = [
            "XBRL: "
            + (xbrl_errors[0] if xbrl_errors else "no four consecutive quarters in facts filed by then"),
            "yfinance: "
            + (plain(yf.reason) if isinstance(yf, Err) else "no four consecutive reported quarters"),
        ]
        return Err(
            ErrorCode.NO_DATA, f"no trailing-twelve-month figures for {sym} at {ctx.as_of}: " + "; ".join(why)
        )
    sources = sorted({f.source.cite() for f in facts}) if trends is xbrl else []
    if yq is not None:
        sources.append(yq.source.cite())
    if q is not None:
        sources.append(q.source.cite())
    else:
        warnings.append(f"quote unavailable: {plain(quote.reason) if isinstance(quote, Err) else 'none'}")
    if yq is not None and q is not None:
        val = valuation(q.price, q.session_date, yq.quarters)
        ratios = {_RATIO_KEYS[r.name]: r.value for r in val.ratios}
        basis = [
            f"{r.name} {r.value:.2f} = {r.method}" if r.value is not None else f"{r.name}: {r.reason}"
            for r in val.ratios
        ]
    else:
        ratios, basis = _xbrl_valuation(facts, q, xbrl, ctx.as_of)
    hidden = (
        f"{yq.hidden_quarters} later yfinance quarter(s) not yet counted as reported ({yq.visibility})"
        if yq is not None and yq.hidden_quarters
        else ""
    )
    if trends is xbrl:
        hidden = "; ".join(
            x for x in (f"XBRL facts filed after {ctx.as_of.isoformat()} are not visible", hidden) if x
        )
    return Ok(
        FundamentalTrends(
            symbol=sym,
            as_of=ctx.as_of,
            source=trends.source,
            trends=trends,
            valuation=ratios,
            valuation_basis=basis,
            signals=fa.trend_signals(trends),
            hidden=hidden,
            sources=sources,
            warnings=warnings + [f"{trends.source}: {m}" for m in trends.missing],
        )
    )


def _pct(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}%"


def _pp(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.1f} pp"


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _money(value: float | None) -> str:
    return "n/a" if value is None else f"{compact(value)} USD"


def summarize_trends(r: FundamentalTrends) -> str:
    t = r.trends
    if t is None:
        return f"{r.symbol}: no trailing-twelve-month figures."
    lines = [
        f"- TTM to {p.quarter_end.isoformat()} (known from {p.filed.isoformat() if p.filed else 'n/a'}): "
        f"revenue {_money(p.revenue_ttm)}, growth {_pct(p.revenue_growth_yoy_pct)}, net income "
        f"{_money(p.net_income_ttm)}, operating margin {_pct(p.operating_margin_pct)}, net margin "
        f"{_pct(p.net_margin_pct)}, ROE {_pct(p.roe_pct)}, debt/equity {_ratio(p.debt_to_equity)}, "
        f"FCF {_money(p.fcf_ttm)}"
        for p in t.points
    ]
    trend = (
        f"Trend: TTM growth change on the previous quarter {_pp(t.growth_change_pp)}, operating margin "
        f"change on a year earlier {_pp(t.operating_margin_change_pp)}, FCF margin {_pct(t.fcf_margin_pct)}."
    )
    head = (
        f"{r.symbol} fundamentals at {r.as_of.isoformat()} from {_SOURCES[t.source]}, newest first "
        f"(quarters used {t.quarters_used[-1].isoformat()}..{t.quarters_used[0].isoformat()})."
    )
    tail = [trend, "Valuation: " + "; ".join(r.valuation_basis)]
    tail += [f"Missing: {w}" for w in r.warnings]
    if t.notes:
        tail.append(f"Derived quarters: {len(t.notes)} (e.g. {t.notes[0]}).")
    if r.hidden:
        tail.append(f"Not yet public: {r.hidden}.")
    tail.append("Sources: " + "; ".join(r.sources))
    return fit_lines(head, lines, "\n".join(tail))


get_fundamental_trends = Tool(
    name="get_fundamental_trends",
    description=(
        "Trailing-twelve-month fundamentals of a company over up to 8 quarters, newest first: revenue and "
        "its year-on-year growth, operating and net margin, return on equity, debt/equity, free cash flow, "
        "with valuation ratios (P/E, P/S, EV/EBITDA) at the last session's price. From the company's XBRL "
        "filings when available, else yfinance quarterly statements; says which quarters were used, which "
        f"were derived and what is not yet public. {POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=SymbolArgs,
    fn=_trends,
    summarize=summarize_trends,
)


# --- get_sector_alpha ----------------------------------------------------------------------------


class SectorAlphaArgs(ToolArgs):
    symbol: Ticker
    sector: Annotated[
        str | None,
        Field(
            max_length=60,
            description=(
                "The company's sector when it is not in the S&P 500 list (a GICS sector or the Nasdaq "
                "directory's sector name); the S&P list's GICS sector wins when the company is in it."
            ),
        ),
    ] = None


def _bars_start(as_of: date) -> date:
    # YTD reaches back to the previous year's last close, 6M to half a year: both with a holiday margin
    return min(date(as_of.year - 1, 12, 15), as_of - timedelta(days=200))


def _closes(bars: PriceBars) -> list[tuple[date, float]]:
    return [(b.date, b.close) for b in bars.bars]


def _window_returns(closes: list[tuple[date, float]], as_of: date) -> tuple[float | None, float | None]:
    known = [(d, c) for d, c in closes if d <= as_of and c > 0]
    if not known:
        return None, None
    end_day, end = known[-1]
    out: list[float | None] = []
    windows: tuple[Window, ...] = ("3M", "6M")
    for window in windows:
        start = close_at(known, window_start(window, end_day))
        out.append(pct_change(start[1], end) if start is not None else None)
    return out[0], out[1]


async def _peer_row(symbol: str, ctx: ToolContext, start: date) -> tuple[PeerRow, list[str]]:
    bars, funda, quote = await asyncio.gather(
        ctx.router.bars(symbol, start, ctx.as_of, ctx.as_of),
        ctx.router.quarterly_fundamentals(symbol, ctx.as_of),
        ctx.router.quote(symbol, ctx.as_of),
    )
    r3, r6 = _window_returns(_closes(bars.value), ctx.as_of) if isinstance(bars, Ok) else (None, None)
    pe = ps = None
    sources = [bars.value.source.cite()] if isinstance(bars, Ok) else []
    if isinstance(funda, Ok) and isinstance(quote, Ok):
        val = valuation(quote.value.price, quote.value.session_date, funda.value.quarters)
        ratios = {_RATIO_KEYS[r.name]: r.value for r in val.ratios}
        pe, ps = ratios["pe"], ratios["ps"]
        sources += [funda.value.source.cite(), quote.value.source.cite()]
    return PeerRow(symbol=symbol, return_3m_pct=r3, return_6m_pct=r6, pe=pe, ps=ps), sources


async def _alpha(args: SectorAlphaArgs, ctx: ToolContext) -> Result[SectorAlpha]:
    sym, as_of = args.symbol, ctx.as_of
    peers_got = await ctx.router.index_peers(sym, as_of)
    peers: IndexPeers | None = peers_got.value if isinstance(peers_got, Ok) else None
    warnings: list[str] = []
    sector: str | None
    if peers is not None:
        sector, basis = peers.sector, f"GICS sector per the S&P 500 list of {peers.list_date.isoformat()}"
    else:
        warnings.append(f"peers unavailable: {plain(peers_got.reason) if isinstance(peers_got, Err) else ''}")
        sector, basis = args.sector, "sector given by the caller (listing directory)"
    etf = sector_etf(sector)
    if etf is None:
        return Err(
            ErrorCode.NO_DATA,
            f"no sector ETF for {sym}: sector {sector or 'unknown'} maps to no Select Sector SPDR "
            f"({'; '.join(warnings) or 'no sector given'})",
        )
    start = _bars_start(as_of)
    stock, fund = await asyncio.gather(
        ctx.router.bars(sym, start, as_of, as_of), ctx.router.bars(etf, start, as_of, as_of)
    )
    if isinstance(stock, Err):
        return stock
    if isinstance(fund, Err):
        return fund
    relative = relative_performance(_closes(stock.value), _closes(fund.value), as_of)
    if not stock.value.adjusted or not fund.value.adjusted:
        warnings.append("a price series is not split-adjusted: a return across a split would be wrong")
    sources = [stock.value.source.cite(), fund.value.source.cite()]
    rows: list[PeerRow] = []
    ranking = gap = None
    ranking_basis = ""
    if peers is not None:
        members = [sym, *(p.symbol for p in peers.peers[:MAX_PEERS])]
        got = await asyncio.gather(*(_peer_row(m, ctx, start) for m in members))
        rows = [row for row, _ in got]
        sources += [s for _, srcs in got for s in srcs]
        table = {r.symbol: r.model_dump(exclude={"symbol"}) for r in rows}
        ranking, gap = fa.rank_peers(sym, table), fa.valuation_gap(sym, table)
        ranking_basis = (
            f"{peers.sub_industry} members of the S&P 500 list of {peers.list_date.isoformat()} "
            f"({len(members)} incl. {sym}): 3M and 6M returns from adjusted closes to {as_of.isoformat()}; "
            "P/E and P/S from the last price and the yfinance quarters counted as reported"
        )
        sources.append(peers.source.cite())
        if not ranking.counts.get("pe") and not ranking.counts.get("ps"):
            warnings.append("no peer valuation: no yfinance quarters are counted as reported at this date")
    signals = [s for s in (fa.valuation_signal(gap), fa.alpha_signal(relative, etf)) if s is not None]
    return Ok(
        SectorAlpha(
            symbol=sym,
            as_of=as_of,
            sector=sector,
            sector_basis=basis,
            etf=etf,
            session=stock.value.bars[-1].date if stock.value.bars else None,
            relative=relative,
            sub_industry=peers.sub_industry if peers else None,
            peers=rows,
            ranking=ranking,
            ranking_basis=ranking_basis,
            gap=gap,
            signals=signals,
            sources=sorted(set(sources)),
            warnings=warnings,
        )
    )


def summarize_alpha(a: SectorAlpha) -> str:
    head = (
        f"{a.symbol} vs {a.etf} ({a.sector}; {a.sector_basis}), windows ending "
        f"{a.session.isoformat() if a.session else 'n/a'}:"
    )
    lines = [
        f"- {r.window} from {r.start.isoformat()}: stock {r.stock_pct:+.2f}%, {a.etf} {r.etf_pct:+.2f}%, "
        f"alpha {r.alpha_pp:+.2f} pp"
        for r in a.relative
    ]
    if a.ranking is not None:
        ranks = ", ".join(
            f"{m} #{a.ranking.ranks[m]} of {a.ranking.counts[m]}"
            for m in fa.RANK_METRICS
            if m in a.ranking.ranks
        )
        lines.append(f"Peer ranks ({a.ranking_basis}): {ranks or 'none'}.")
        lines += [
            f"- {p.symbol}: 3M {_pct(p.return_3m_pct, 2)}, 6M {_pct(p.return_6m_pct, 2)}, "
            f"P/E {_ratio(p.pe)}, P/S {_ratio(p.ps)}"
            for p in a.peers
        ]
    if a.gap is not None:
        g = a.gap
        lines.append(
            f"Valuation vs peers: {g.metric.upper()} {g.value:.2f} vs peer median {g.peer_median:.2f} "
            f"({g.peers} peers), {g.premium_pct:+.2f}%."
        )
    tail = "\n".join([*(f"Note: {w}" for w in a.warnings), "Sources: " + "; ".join(a.sources)])
    return fit_lines(head, lines, tail)


get_sector_alpha = Tool(
    name="get_sector_alpha",
    description=(
        "A stock's return against its Select Sector SPDR ETF over 1W, 1M, 3M, 6M and year to date (alpha in "
        "percentage points), and its rank among its GICS sub-industry peers in the S&P 500 by 3M and 6M "
        f"return, P/E and P/S, with its valuation premium to the peer median. {POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=SectorAlphaArgs,
    fn=_alpha,
    summarize=summarize_alpha,
    timeout_s=60.0,
)


TOOLS: tuple[Tool, ...] = (get_fundamental_trends, get_sector_alpha)
