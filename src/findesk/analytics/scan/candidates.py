"""The scanner's synthesis by rule: 8-10 stocks to investigate, key themes, an executive summary and the
macro context, built only from the phase 1-2 boards and the market regime (``get_market_regime``).

Candidates (``pick_candidates``), in this order, each ticker once, at most ``MAX_PICKS`` (10):
1. relative-strength — for each deep-dived sector (the top 3 by 1M, in rank order): the best stock of
   its best sub-industry (highest median 1M return), then the sector's best 1M stock if different; at
   most ``PER_SECTOR`` (2) per sector, and only stocks with a 1M return above 0.
2. catalyst / momentum — the movers board's gainers with a market cap of at least ``LARGE_CAP_USD``
   ($2B) and a dollar volume of at least ``LIQUID_USD`` ($20M), best first, at most ``MAX_GAINERS`` (3);
   angle ``catalyst`` when a headline of the boards names the ticker, else ``momentum``.
3. defensive — only when the geopolitical tone is negative (at least ``NEG_TOPICS`` (2) topics with
   ``MIN_ARTICLES`` (3) or more articles and a mean headline tone of ``NEG_TONE`` (-0.05) or lower):
   the best 1M stock of a deep-dived defensive sector (Consumer Staples, Utilities, Health Care), else
   the most active movers whose listed sector is defensive; at most ``MAX_DEFENSIVE`` (2).
4. laggard-recovery — a pullback inside a leading sector: the sector's worst 1M stock whose 3M return
   is still above 0 (oversold leader), at most one per sector. (The industry board covers only the top
   sectors, so the laggard sectors' own members are not on any board.)
5. reversal — large liquid losers (same cap and dollar-volume floors as 2), at most ``MAX_REVERSALS`` (2).
6. fill, until ``MIN_PICKS`` (8): the deep dives' other top stocks (relative-strength), then the most
   active movers with a positive change (momentum). Fewer than 8 after that: the synthesis has no data
   (``enough_candidates`` is False) and says so; it never invents one.

Conviction (``high`` / ``medium`` / ``low``):
- relative-strength and defensive: high when 1M >= ``RS_HIGH_1M`` (10 %) and the sub-industry's breadth
  >= ``BREADTH_HIGH`` (60 %); medium when 1M >= ``RS_MEDIUM_1M`` (5 %); else low.
- catalyst / momentum: high when the change >= ``MOVE_HIGH`` (10 %) and the dollar volume >=
  ``HEAVY_USD`` ($100M); medium when the change >= ``MOVE_MEDIUM`` (5 %) or a headline names it; else low.
- laggard-recovery and reversal: low; medium when 3M >= ``RS_MEDIUM_1M`` (5 %) (laggard-recovery).
- A risk-off regime caps every conviction at medium.

Catalysts: up to ``MAX_NOTES`` (2) headlines of the boards naming the ticker (or its company's name),
else the newest headline of its deep-dived sector's news whose title names the sector or the stock's
sub-industry; none when no headline does (never an unrelated one).
Risks (at most 3): its sector ETF among the laggards, the most negative topic exposing its sector ETF,
a one-session move's size (a fall can extend), the sub-industry's worst stock when it fell over 1M, a
risk-off regime; when none applies, the
stock's own one-month move (a gain can reverse, a decline may continue), never another sector's news.
Themes (at most 6): the three sector leaders (high when 1M >= 3 % and 3M >= 5 %; medium when 1M > 0;
else low), the busiest news topic (high with >= 20 articles and |tone| >= 0.2; medium with >= 5
articles; else low) and breadth (the regime's sector breadth: high >= 70 %, low <= 30 %, else medium).
Macro context: the regime's label, score and each component's figure (VIX, high-yield spread, 10y-2y
curve, sector breadth, rotation, SPY vs its 200-day average), with the components left out.

Every figure a text states is a board's or the regime's value, formatted from it (percent to 2
decimals, dollars with a B/M unit to 2 decimals): the output guard traces each to a tool result. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from findesk.analytics.scan.models import (
    Angle,
    Candidate,
    Conviction,
    GeoBoard,
    IndustryBoard,
    MoverRow,
    MoversBoard,
    SectorBoard,
    SectorDeepDive,
    StockPerf,
    SubIndustryPerf,
    Theme,
    TopicBrief,
    TopicHeadline,
)
from findesk.analytics.trading.regime import Regime

MIN_PICKS, MAX_PICKS = 8, 10
PER_SECTOR = 2
LARGE_CAP_USD, LIQUID_USD, HEAVY_USD = 2e9, 20e6, 100e6
MAX_GAINERS, MAX_DEFENSIVE, MAX_REVERSALS = 3, 2, 2
NEG_TONE, NEG_TOPICS, MIN_ARTICLES = -0.05, 2, 3
RS_HIGH_1M, RS_MEDIUM_1M, BREADTH_HIGH = 10.0, 5.0, 60.0
MOVE_HIGH, MOVE_MEDIUM = 10.0, 5.0
THEME_HIGH_1M, THEME_HIGH_3M = 3.0, 5.0
TOPIC_HIGH_ARTICLES, TOPIC_MEDIUM_ARTICLES, TOPIC_HIGH_TONE = 20, 5, 0.2
BREADTH_STRONG, BREADTH_WEAK = 70.0, 30.0
MAX_NOTES = 2
DEFENSIVE_GICS = ("Consumer Staples", "Utilities", "Health Care")
DEFENSIVE_LISTED = ("Consumer Staples", "Utilities", "Health Care", "Consumer Non-Durables")
# first words of company names too common to identify one company in a headline
_GENERIC = frozenset(
    {"the", "american", "first", "general", "united", "international", "national", "global", "new", "bank"}
)
_RANK: dict[Conviction, int] = {"high": 0, "medium": 1, "low": 2}


@dataclass(frozen=True)
class Boards:
    """What the synthesis reads: the phase 1-2 boards (None: that phase had no data) and the regime."""

    geo: GeoBoard | None = None
    movers: MoversBoard | None = None
    sectors: SectorBoard | None = None
    industries: IndustryBoard | None = None
    regime: Regime | None = None


@dataclass
class _Pick:
    ticker: str
    sector: str
    angle: Angle
    conviction: Conviction
    rationale: str
    name: str | None = None
    etf: str | None = None  # the sector ETF it belongs to, when a deep dive named it
    sub_industry: str | None = None
    move: float | None = None  # a one-session change (movers)
    return_1m: float | None = None  # its one-month return (deep-dive picks)
    worst: StockPerf | None = None  # its sub-industry's worst stock
    named: list[str] = field(default_factory=list)  # headlines naming it


# --- formatting: every figure as the board holds it, rounded the way the text shows it ---------------


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.2f}%"


def money(value: float | None) -> str:
    if value is None:
        return "n/a"
    if abs(value) >= 1e12:
        return f"${value / 1e12:.2f}T"
    if abs(value) >= 1e9:
        return f"${value / 1e9:.2f}B"
    return f"${value / 1e6:.2f}M"


def _headline_text(h: TopicHeadline) -> str:
    return f"{h.title} ({h.source}, {h.published.isoformat()})"


# --- the boards' tickers and headlines ---------------------------------------------------------------


def board_tickers(boards: Boards) -> frozenset[str]:
    """Every ticker a phase 1-2 board names (movers, stocks of the deep dives, sector and index ETFs):
    the only tickers a synthesis may put on its list."""
    found: set[str] = set()
    if boards.movers is not None:
        m = boards.movers
        found |= {r.symbol for r in (*m.gainers, *m.losers, *m.most_active)}
    if boards.industries is not None:
        for d in boards.industries.sectors:
            found.add(d.etf)
            found |= {s.ticker for s in (*d.top_stocks, *d.bottom_stocks)}
            for sub in d.sub_industries:
                found |= {s.ticker for s in (sub.best, sub.worst) if s is not None}
    if boards.sectors is not None:
        found |= {f.ticker for f in (*boards.sectors.sectors, *boards.sectors.indexes)}
    return frozenset(t.upper() for t in found)


def _headlines(boards: Boards) -> list[TopicHeadline]:
    out: list[TopicHeadline] = []
    if boards.geo is not None:
        out += [h for t in boards.geo.topics for h in t.headlines]
    if boards.industries is not None:
        out += [h for d in boards.industries.sectors for h in d.headlines]
    return out


def naming(ticker: str, name: str | None, headlines: Iterable[TopicHeadline]) -> list[str]:
    """Headlines whose title names the ticker (as a word, case kept) or its company's first name word."""
    words = [re.compile(rf"\b{re.escape(ticker)}\b")] if len(ticker) >= 2 else []
    first = (name or "").split(" ")[0].strip(",.").lower()
    if len(first) >= 4 and first not in _GENERIC:
        words.append(re.compile(rf"\b{re.escape(first)}\b", re.IGNORECASE))
    seen: list[str] = []
    for h in headlines:
        text = _headline_text(h)
        if any(w.search(h.title) for w in words) and text not in seen:
            seen.append(text)
    return seen[:MAX_NOTES]


def negative_topics(geo: GeoBoard | None) -> list[TopicBrief]:
    """Topics with enough articles and a negative mean tone, most negative first."""
    if geo is None:
        return []
    found = [
        t for t in geo.topics if t.articles >= MIN_ARTICLES and t.tone is not None and t.tone <= NEG_TONE
    ]
    return sorted(found, key=lambda t: t.tone if t.tone is not None else 0.0)


def tone_is_negative(geo: GeoBoard | None) -> bool:
    return len(negative_topics(geo)) >= NEG_TOPICS


# --- the picks ---------------------------------------------------------------------------------------


def _cap(conviction: Conviction, regime: Regime | None) -> Conviction:
    if regime is not None and regime.label == "risk-off" and conviction == "high":
        return "medium"
    return conviction


def _rs_conviction(stock: StockPerf, sub: SubIndustryPerf | None) -> Conviction:
    r1 = stock.return_1m if stock.return_1m is not None else 0.0
    breadth = sub.breadth_1m if sub is not None and sub.breadth_1m is not None else 0.0
    if r1 >= RS_HIGH_1M and breadth >= BREADTH_HIGH:
        return "high"
    return "medium" if r1 >= RS_MEDIUM_1M else "low"


def _sub_of(d: SectorDeepDive, stock: StockPerf) -> SubIndustryPerf | None:
    return next((s for s in d.sub_industries if s.sub_industry == stock.sub_industry), None)


def _sector_rank(boards: Boards, etf: str) -> str:
    if boards.sectors is None:
        return ""
    fund = next((f for f in boards.sectors.sectors if f.ticker == etf), None)
    if fund is None or fund.rank_1m is None:
        return ""
    return f", the #{fund.rank_1m} sector over 1M"


def _rs_pick(
    boards: Boards, d: SectorDeepDive, stock: StockPerf, angle: Angle = "relative-strength"
) -> _Pick:
    sub = _sub_of(d, stock)
    members = "" if sub is None else f"{sub.members} member{'s' if sub.members != 1 else ''}, "
    where = (
        f"{stock.sub_industry} ({members}median 1M {pct(sub.median_return_1m)}, breadth "
        f"{'n/a' if sub.breadth_1m is None else f'{sub.breadth_1m:.2f}%'})"
        if sub is not None
        else stock.sub_industry
    )
    rationale = (
        f"{stock.ticker} returned {pct(stock.return_1m)} over 1M and {pct(stock.return_3m)} over 3M, "
        f"leading {where} in {d.sector} ({d.etf} 1M {pct(d.etf_return_1m)}{_sector_rank(boards, d.etf)})."
    )
    return _Pick(
        ticker=stock.ticker,
        sector=d.sector,
        angle=angle,
        conviction=_cap(_rs_conviction(stock, sub), boards.regime),
        rationale=rationale,
        name=stock.name,
        etf=d.etf,
        sub_industry=stock.sub_industry,
        return_1m=stock.return_1m,
        worst=sub.worst
        if sub is not None and sub.worst is not None and sub.worst.ticker != stock.ticker
        else None,
    )


def _mover_text(r: MoverRow, verb: str) -> str:
    return (
        f"{r.symbol} {verb} {pct(r.pct_change)} to ${r.close:.2f} on {r.volume:,} shares "
        f"({money(r.dollar_volume)} traded), market cap {money(r.market_cap_usd)}"
    )


def _listing_sector(r: MoverRow) -> str:
    # a mover's sector is the listing directory's (Nasdaq's), which can differ from GICS (Nasdaq files
    # BABA under Real Estate): say whose it is, so it is never read as the GICS sector of the others
    return f"{r.sector} (Nasdaq's sector)" if r.sector else "unknown (not in the listing directory)"


def _large(r: MoverRow) -> bool:
    return (
        r.market_cap_usd is not None and r.market_cap_usd >= LARGE_CAP_USD and r.dollar_volume >= LIQUID_USD
    )


def _mover_pick(boards: Boards, r: MoverRow, headlines: list[TopicHeadline]) -> _Pick:
    named = naming(r.symbol, r.name, headlines)
    if r.pct_change >= MOVE_HIGH and r.dollar_volume >= HEAVY_USD:
        conviction: Conviction = "high"
    elif r.pct_change >= MOVE_MEDIUM or named:
        conviction = "medium"
    else:
        conviction = "low"
    angle: Angle = "catalyst" if named else "momentum"
    why = "; a headline names it" if named else ""
    return _Pick(
        ticker=r.symbol,
        sector=_listing_sector(r),
        angle=angle,
        conviction=_cap(conviction, boards.regime),
        rationale=f"{_mover_text(r, 'rose')}, among the session's largest gainers{why}.",
        name=r.name,
        move=r.pct_change,
        named=named,
    )


def _laggard_pick(boards: Boards, d: SectorDeepDive, stock: StockPerf) -> _Pick:
    r3 = stock.return_3m if stock.return_3m is not None else 0.0
    rationale = (
        f"{stock.ticker} fell {pct(stock.return_1m)} over 1M but is {pct(stock.return_3m)} over 3M: a "
        f"pullback in {d.sector}, a leading sector ({d.etf} 1M {pct(d.etf_return_1m)})."
    )
    return _Pick(
        ticker=stock.ticker,
        sector=d.sector,
        angle="laggard-recovery",
        conviction="medium" if r3 >= RS_MEDIUM_1M else "low",
        rationale=rationale,
        name=stock.name,
        etf=d.etf,
        return_1m=stock.return_1m,
    )


def _reversal_pick(r: MoverRow) -> _Pick:
    return _Pick(
        ticker=r.symbol,
        sector=_listing_sector(r),
        angle="reversal",
        conviction="low",
        rationale=f"{_mover_text(r, 'fell')}, among the session's largest losers: possibly oversold.",
        name=r.name,
        move=r.pct_change,
    )


def _defensive_picks(boards: Boards) -> list[_Pick]:
    picks: list[_Pick] = []
    if boards.industries is not None:
        for d in boards.industries.sectors:
            if d.sector in DEFENSIVE_GICS and d.top_stocks:
                picks.append(_rs_pick(boards, d, d.top_stocks[0], "defensive"))
    if not picks and boards.movers is not None:
        for r in boards.movers.most_active:
            if (r.sector or "") in DEFENSIVE_LISTED and r.pct_change >= 0:
                text = f"{_mover_text(r, 'moved')}, among the most active names in a defensive sector."
                picks.append(
                    _Pick(r.symbol, r.sector or "", "defensive", "low", text, name=r.name, move=r.pct_change)
                )
    return picks[:MAX_DEFENSIVE]


def _proposals(boards: Boards) -> list[_Pick]:
    """Every proposal in the documented order (duplicates removed later)."""
    headlines = _headlines(boards)
    dives = boards.industries.sectors if boards.industries is not None else []
    out: list[_Pick] = []
    for d in dives:  # 1. relative strength
        stocks: list[StockPerf] = []
        if d.sub_industries and d.sub_industries[0].best is not None:
            stocks.append(d.sub_industries[0].best)
        if d.top_stocks:
            stocks.append(d.top_stocks[0])
        taken = 0
        for s in stocks:
            if taken < PER_SECTOR and s.return_1m is not None and s.return_1m > 0:
                out.append(_rs_pick(boards, d, s))
                taken += 1
    movers = boards.movers
    if movers is not None:  # 2. catalyst / momentum
        out += [_mover_pick(boards, r, headlines) for r in movers.gainers if _large(r)][:MAX_GAINERS]
    if tone_is_negative(boards.geo):  # 3. defensive
        out += _defensive_picks(boards)
    for d in dives:  # 4. laggard recovery
        pulled = [s for s in d.bottom_stocks if (s.return_1m or 0.0) < 0 and (s.return_3m or 0.0) > 0]
        if pulled:
            out.append(_laggard_pick(boards, d, pulled[0]))
    if movers is not None:  # 5. reversal
        out += [_reversal_pick(r) for r in movers.losers if _large(r)][:MAX_REVERSALS]
    for d in dives:  # 6. fill
        out += [_rs_pick(boards, d, s) for s in d.top_stocks[1:] if s.return_1m is not None]
    if movers is not None:
        for r in movers.most_active:
            if r.pct_change > 0:
                p = _mover_pick(boards, r, headlines)
                p.rationale = (
                    f"{_mover_text(r, 'rose')}, among the session's most active names by dollar volume."
                )
                out.append(p)
    return out


def _distinct(picks: Iterable[_Pick]) -> list[_Pick]:
    seen: set[str] = set()
    out: list[_Pick] = []
    for p in picks:
        if p.ticker.upper() not in seen:
            seen.add(p.ticker.upper())
            out.append(p)
    return out


def _risks(boards: Boards, p: _Pick) -> list[str]:
    risks: list[str] = []
    sectors = boards.sectors
    if sectors is not None and p.etf is not None and p.etf in sectors.laggards:
        fund = next((f for f in sectors.sectors if f.ticker == p.etf), None)
        r1 = fund.returns.get("1M") if fund is not None else None
        risks.append(f"its sector fund {p.etf} is among the laggards (1M {pct(r1)})")
    if p.etf is not None:
        exposed = [t for t in negative_topics(boards.geo) if p.etf in t.sectors_exposed]
        if exposed:
            t = exposed[0]
            risks.append(
                f"{t.topic} news exposes {p.etf}: mean tone {t.tone:+.2f} over {t.articles:,} articles"
            )
    if p.move is not None:
        # a jump can give back; a fall (a reversal idea) can run on
        risks.append(
            f"a one-session move of {pct(p.move)} can reverse"
            if p.move >= 0
            else f"a one-session fall of {pct(p.move)} can extend"
        )
    if p.worst is not None and p.worst.return_1m is not None and p.worst.return_1m < 0:
        # only a falling member is a warning: the weakest of a rising group is not a risk
        risks.append(
            f"its sub-industry's weakest member {p.worst.ticker} returned {pct(p.worst.return_1m)} over 1M"
        )
    if boards.regime is not None and boards.regime.label == "risk-off":
        risks.append(f"the market regime is risk-off (score {boards.regime.score:+g})")
    if not risks and p.return_1m is not None:
        # the stock's own move is the one risk every board shows: a run-up can give back, a pullback run on
        if p.return_1m >= 0:
            risks.append(f"a one-month gain of {pct(p.return_1m)} can reverse")
        else:
            risks.append(f"the one-month decline of {pct(p.return_1m)} may continue")
    return risks[:3] or ["no board flags a specific risk; verify with the company's filings"]


def _catalysts(boards: Boards, p: _Pick) -> list[str]:
    named = p.named or naming(p.ticker, p.name, _headlines(boards))
    if named:
        return named
    if boards.industries is not None and p.etf is not None:
        dive = next((d for d in boards.industries.sectors if d.etf == p.etf), None)
        words = [w for w in (p.sector, p.sub_industry) if w]
        for h in dive.headlines if dive is not None else []:
            if any(re.search(rf"\b{re.escape(w)}\b", h.title, re.IGNORECASE) for w in words):
                return [f"sector news: {_headline_text(h)}"]
    return []


def pick_candidates(boards: Boards) -> list[Candidate]:
    """8-10 distinct candidates by the module's rules (fewer only when the boards hold fewer)."""
    picks = _distinct(_proposals(boards))[:MAX_PICKS]
    return [
        Candidate(
            ticker=p.ticker,
            sector=p.sector,
            rationale=p.rationale,
            angle=p.angle,
            conviction=p.conviction,
            catalysts=_catalysts(boards, p),
            risks=_risks(boards, p),
        )
        for p in picks
    ]


def enough_candidates(candidates: list[Candidate]) -> bool:
    return len(candidates) >= MIN_PICKS


def ranked(candidates: Iterable[Candidate]) -> list[Candidate]:
    """Candidates by conviction (high first), then in list order: the pipeline's top N."""
    indexed = list(enumerate(candidates))
    return [c for _, c in sorted(indexed, key=lambda ic: (_RANK[ic[1].conviction], ic[0]))]


# --- themes, summary and macro context --------------------------------------------------------------


def themes(boards: Boards) -> list[Theme]:
    out: list[Theme] = []
    s = boards.sectors
    if s is not None:
        funds = {f.ticker: f for f in s.sectors}
        for ticker in s.leaders[:3]:
            f = funds.get(ticker)
            if f is None:
                continue
            r1, r3 = f.returns.get("1M"), f.returns.get("3M")
            if r1 is not None and r3 is not None and r1 >= THEME_HIGH_1M and r3 >= THEME_HIGH_3M:
                conviction: Conviction = "high"
            else:
                conviction = "medium" if r1 is not None and r1 > 0 else "low"
            evidence = [
                f"{f.ticker} 1M {pct(r1)}, 3M {pct(r3)}, YTD {pct(f.returns.get('YTD'))}",
            ]
            out.append(
                Theme(
                    title=f"Sector leadership: {f.name} ({f.ticker})",
                    conviction=conviction,
                    evidence=evidence,
                )
            )
    geo = boards.geo
    if geo is not None and geo.topics:
        busiest = max(geo.topics, key=lambda t: t.articles)
        if busiest.articles > 0:
            tone = busiest.tone if busiest.tone is not None else 0.0
            if busiest.articles >= TOPIC_HIGH_ARTICLES and abs(tone) >= TOPIC_HIGH_TONE:
                conviction = "high"
            else:
                conviction = "medium" if busiest.articles >= TOPIC_MEDIUM_ARTICLES else "low"
            mood = "negative" if tone < 0 else "positive" if tone > 0 else "neutral"
            evidence = [
                f"{busiest.articles:,} article(s) since {geo.since.isoformat()}, mean tone {tone:+.2f}"
            ]
            if busiest.sectors_exposed:
                evidence.append("exposed sector funds: " + ", ".join(busiest.sectors_exposed))
            evidence += [_headline_text(h) for h in busiest.headlines[:MAX_NOTES]]
            out.append(
                Theme(
                    title=f"{busiest.topic.capitalize()} headlines, {mood} tone",
                    conviction=conviction,
                    evidence=evidence,
                )
            )
    g = boards.regime
    if g is not None and g.breadth_pct is not None:
        if g.breadth_pct >= BREADTH_STRONG:
            conviction, word = "high", "broad"
        elif g.breadth_pct <= BREADTH_WEAK:
            conviction, word = "low", "narrow"
        else:
            conviction, word = "medium", "mixed"
        evidence = [
            f"{g.breadth_pct:.2f}% of {g.breadth_basis or 'the sector funds'} above their 50-day average"
        ]
        if g.rotation_pp is not None:
            evidence.append(f"cyclical minus defensive 1M rotation {g.rotation_pp:+.2f} pp")
        out.append(Theme(title=f"Breadth is {word}", conviction=conviction, evidence=evidence))
    return out[:6]


def macro_context(regime: Regime | None, reason: str | None = None) -> str:
    if regime is None:
        return f"Market regime unavailable: {reason or 'get_market_regime returned no data'}."
    g = regime
    parts = [f"The market regime is {g.label} (score {g.score:+g}, {len(g.votes)} of 6 votes cast)"]
    if g.vix is not None:
        parts.append(f"VIX {g.vix:.2f}")
    if g.hy_spread_pct is not None:
        parts.append(f"high-yield spread {g.hy_spread_pct:.2f}%")
    if g.curve_10y2y_pp is not None:
        parts.append(f"10y-2y curve {g.curve_10y2y_pp:+.2f} pp")
    if g.breadth_pct is not None:
        parts.append(f"sector breadth {g.breadth_pct:.2f}%")
    if g.rotation_pp is not None:
        parts.append(f"rotation {g.rotation_pp:+.2f} pp")
    if g.spy_vs_sma200_pct is not None:
        parts.append(f"SPY {g.spy_vs_sma200_pct:+.2f}% vs its 200-day average")
    text = "; ".join(parts) + "."
    if g.warnings:
        text += " Left out: " + "; ".join(g.warnings) + "."
    return text


def executive_summary(boards: Boards, candidates: list[Candidate]) -> str:
    parts: list[str] = []
    s = boards.sectors
    if s is not None and s.leaders:
        funds = {f.ticker: f for f in s.sectors}
        lead = ", ".join(f"{t} {pct(funds[t].returns.get('1M'))}" for t in s.leaders[:3] if t in funds)
        lag = ", ".join(f"{t} {pct(funds[t].returns.get('1M'))}" for t in s.laggards[:2] if t in funds)
        parts.append(
            f"As of {s.session.isoformat()}, sector leaders over 1M: {lead}"
            + (f"; laggards: {lag}" if lag else "")
        )
    if boards.regime is not None:
        parts.append(f"the regime is {boards.regime.label} (score {boards.regime.score:+g})")
    negative = negative_topics(boards.geo)
    if negative:
        parts.append("negative news tone in " + ", ".join(f"{t.topic} ({t.tone:+.2f})" for t in negative))
    if candidates:
        top = ranked(candidates)[:3]
        parts.append(
            f"{len(candidates)} stocks to investigate, led by "
            + ", ".join(f"{c.ticker} ({c.angle}, {c.conviction})" for c in top)
        )
    text = "; ".join(parts) or "The boards hold no data for this date"
    return text[0].upper() + text[1:] + ". Ideas to research, not advice."
