"""A hand-built weekly ETF report for the renderer tests: the week ending 2025-08-29, four sectors and
eight candidates that fell at least 3 % in a down week.

Rules:
- Realistic and self-consistent: every fund's return is its beta part plus its alpha residual; sector
  averages, signals, notes, interpretations, the regime, verdicts and the data-constrained note come
  from the project's own analytics (``analytics.etf.quant`` / ``protocol``), not typed by hand.
- It holds every case the dashboard must show: a sector with strong news (Semiconductors, whose beta
  and alpha parts have opposite signs), one with weak news (Clean Energy), one with none (Biotechnology,
  RED: unexplained alpha), a single-fund sector (China Internet); a managing director who sent two
  sectors back and the senior analyst's revision beside the first version; a flag adjustment; a bad tick
  caught; two earlier weeks of history with a follow-up; a failed tool call.
- ``hostile_report`` plants script tags, a ``javascript:`` URL, an attribute break-out, a terminal escape
  and a flag outside the vocabulary (validation skipped) into a copy, for the escaping tests.
- Chart data is synthetic but deterministic (a seeded random walk per fund, 130 sessions shown of 330,
  so SMA200 exists throughout), and the week's closes end exactly on the fund's weekly return.
"""

from __future__ import annotations

import math
import random
import zlib
from datetime import UTC, date, datetime, timedelta
from statistics import fmean, pstdev, stdev

from findesk.agents.roles.etf_weekly.models import (
    DirectorReview,
    Driver,
    Flag,
    FlagAdjustment,
    MarketContext,
    MarketOverview,
    NewsSource,
    SectorGroup,
    SectorNews,
    SectorView,
    SeniorReview,
    SymbolProfile,
    SymbolView,
)
from findesk.analytics.etf import protocol, quant
from findesk.analytics.etf.models import DataFlag, EtfFeatures, PriceSeries
from findesk.guardrails.output_guard import GuardReport
from findesk.workflows.etf_weekly.config import StrategyConfig
from findesk.workflows.etf_weekly.models import EtfWeeklyReport, HistoryEntry
from findesk.workflows.records import AgentRecord, ToolCallRecord

AS_OF = date(2025, 8, 29)
WEEK_START = date(2025, 8, 22)  # the close the week is measured from
WEEK_END = date(2025, 8, 29)
SPY_WEEK = -1.80
SESSIONS_SHOWN = 130
_HISTORY = 330
_HOLIDAYS = {
    date(2024, 11, 28),
    date(2024, 12, 25),
    date(2025, 1, 1),
    date(2025, 1, 9),
    date(2025, 1, 20),
    date(2025, 2, 17),
    date(2025, 4, 18),
    date(2025, 5, 26),
    date(2025, 6, 19),
    date(2025, 7, 4),
}

# symbol: (sector, name, beta, weekly return %, RSI(14), volume ratio, ATR %, start price)
FUNDS: dict[str, tuple[str, str, float, float, float, float, float, float]] = {
    "SMH": ("Semiconductors", "VanEck Semiconductor ETF", 2.10, -3.35, 41.2, 1.62, 2.41, 250.0),
    "SOXX": ("Semiconductors", "iShares Semiconductor ETF", 2.30, -3.72, 39.8, 1.48, 2.66, 215.0),
    "XSD": ("Semiconductors", "SPDR S&P Semiconductor ETF", 2.05, -3.10, 43.5, 1.21, 2.35, 240.0),
    "ICLN": ("Clean Energy", "iShares Global Clean Energy ETF", 1.15, -3.60, 36.4, 1.35, 1.92, 13.5),
    "TAN": ("Clean Energy", "Invesco Solar ETF", 1.40, -4.90, 33.1, 1.88, 3.05, 38.0),
    "XBI": ("Biotechnology", "SPDR S&P Biotech ETF", 1.05, -3.30, 38.0, 1.10, 2.20, 92.0),
    "IBB": ("Biotechnology", "iShares Biotechnology ETF", 0.85, -3.35, 35.5, 0.95, 1.70, 138.0),
    "KWEB": ("China Internet", "KraneShares CSI China Internet ETF", 0.70, -5.10, 28.7, 2.05, 2.90, 33.0),
}
HOSTILE = "<script>alert(1)</script>"
JS_URL = "javascript:alert(1)"
BAD_TICK = "bad_tick: 2025-08-13 -64.10% then 2025-08-14 +181.20% (reversal)"
SECTORS = ("Semiconductors", "Clean Energy", "Biotechnology", "China Internet")


def sessions(end: date, n: int) -> list[date]:
    """The last ``n`` weekdays up to ``end`` that were not NYSE holidays."""
    out: list[date] = []
    day = end
    while len(out) < n:
        if day.weekday() < 5 and day not in _HOLIDAYS:
            out.append(day)
        day -= timedelta(days=1)
    return out[::-1]


def _sma(values: list[float], i: int, n: int) -> float | None:
    return fmean(values[i - n + 1 : i + 1]) if i + 1 >= n else None


def _walk(symbol: str, start: float, weekly_return: float) -> tuple[list[date], list[float]]:
    days = sessions(WEEK_END, _HISTORY)
    rng = random.Random(zlib.crc32(symbol.encode()))
    closes = [start]
    for _ in days[1:-5]:
        closes.append(closes[-1] * (1 + rng.gauss(0.0004, 0.014)))
    base = closes[-1]  # the week is measured from this close (WEEK_START)
    for k in range(1, 6):
        wiggle = 1 + (rng.gauss(0, 0.004) if k < 5 else 0.0)
        closes.append(base * (1 + weekly_return / 100) ** (k / 5) * wiggle)
    assert days[-6] == WEEK_START, days[-6]
    return days, closes


def price_series(symbol: str, start: float, weekly_return: float) -> PriceSeries:
    days, closes = _walk(symbol, start, weekly_return)
    upper: list[float | None] = []
    lower: list[float | None] = []
    for i in range(len(closes)):
        mid = _sma(closes, i, 20)
        spread = 2 * pstdev(closes[i - 19 : i + 1]) if mid is not None else None
        upper.append(None if mid is None or spread is None else mid + spread)
        lower.append(None if mid is None or spread is None else mid - spread)
    cut = slice(len(closes) - SESSIONS_SHOWN, None)
    return PriceSeries(
        symbol=symbol,
        dates=days[cut],
        close=[round(c, 2) for c in closes[cut]],
        sma_50=[_sma(closes, i, 50) for i in range(len(closes))][cut],
        sma_200=[_sma(closes, i, 200) for i in range(len(closes))][cut],
        upper_band=upper[cut],
        lower_band=lower[cut],
    )


def _features(symbol: str, series: PriceSeries) -> EtfFeatures:
    sector, name, beta, ret, rsi, volume, atr, _start = FUNDS[symbol]
    close = series.close[-1]
    sma50, sma200 = series.sma_50[-1], series.sma_200[-1]
    up, low = series.upper_band[-1], series.lower_band[-1]
    assert sma50 is not None and sma200 is not None and up is not None and low is not None
    returns = [100 * (b / a - 1) for a, b in zip(series.close[-66:-6], series.close[-65:-5], strict=True)]
    sigma = stdev(returns)
    return EtfFeatures(
        symbol=symbol,
        name=name,
        week_start=WEEK_START,
        week_end=WEEK_END,
        sessions=_HISTORY,
        close=close,
        pct_return=ret,
        spy_weekly_return=SPY_WEEK,
        beta=beta,
        r_squared=0.62,
        alpha_residual=round(ret - beta * SPY_WEEK, 2),
        sma_50=round(sma50, 2),
        sma_200=round(sma200, 2),
        price_vs_sma50_pct=round(100 * (close / sma50 - 1), 2),
        price_vs_sma200_pct=round(100 * (close / sma200 - 1), 2),
        rsi_14=rsi,
        bollinger_position=round((close - low) / (up - low), 2),
        volume_ratio=volume,
        atr_pct=atr,
        sigma=round(sigma, 2),
        move_sigmas=round(ret / (sigma * math.sqrt(5)), 2),
        avg_dollar_volume=close * 4_000_000,
        sector=sector,
        sector_basis="name",
    )


def _profile(f: EtfFeatures) -> SymbolProfile:
    params = StrategyConfig()
    sig = quant.signal(f, params.signals, params.protocol.beta_alpha_pct)
    fields = f.model_dump(
        exclude={
            "week_start",
            "week_end",
            "sessions",
            "flags",
            "sector_basis",
            "sector",
            "leveraged",
            "inverse",
        }
    )
    return SymbolProfile(**fields, sector=f.sector or "Other", signal=sig, note=quant.note(f, sig))


def _src(sid: str, title: str, publisher: str | None, url: str | None, day: int, hour: int) -> NewsSource:
    published = datetime(2025, 8, day, hour, 5, tzinfo=UTC)
    return NewsSource(
        id=sid,
        title=title,
        publisher=publisher,
        url=url,
        published_at=published,
        cite=url or f"news/finance_news/2025-08-{day:02d}.jsonl",
    )


def _news() -> dict[str, SectorNews]:
    semis = [
        _src(
            "n1",
            "Nvidia forecast fails to lift chip stocks as data-center sales miss estimates",
            "Reuters",
            "https://www.reuters.com/technology/nvidia-results-2025-08-27/",
            27,
            21,
        ),
        _src(
            "n2",
            "Chip stocks slide after Nvidia results; Marvell guidance weighs on the group",
            "CNBC",
            "https://www.cnbc.com/2025/08/29/chip-stocks-marvell.html",
            29,
            14,
        ),
        _src(
            "n3", "Semiconductor ETFs give back August gains as AI trade cools", "MarketWatch", None, 28, 16
        ),
        _src(
            "n4",
            "Nvidia says no H20 sales to China assumed in its outlook",
            "Reuters",
            "https://www.reuters.com/technology/nvidia-h20-china-2025-08-28/",
            28,
            9,
        ),
    ]
    solar = [
        _src(
            "c1",
            "Solar stocks drop as Treasury tightens 'beginning of construction' rules for tax credits",
            "Bloomberg",
            "https://www.bloomberg.com/news/articles/2025-08-26/solar-treasury-rules",
            26,
            18,
        )
    ]
    china = [
        _src(
            "k1",
            "Alibaba shares swing after cloud growth beats, retail margins slip",
            "Reuters",
            "https://www.reuters.com/business/alibaba-results-2025-08-29/",
            29,
            11,
        ),
        _src(
            "k2",
            "PDD falls as Temu's US sales slow under tariff costs",
            "Financial Times",
            "https://www.ft.com/content/pdd-temu-tariffs",
            26,
            10,
        ),
        _src(
            "k3",
            "Hang Seng tech gauge drops; US-China tariff truce deadline looms",
            "Bloomberg",
            "https://www.bloomberg.com/news/articles/2025-08-28/hang-seng-tech",
            28,
            7,
        ),
    ]
    window = "2025-08-23..2025-08-29"
    return {
        "Semiconductors": SectorNews(
            sector="Semiconductors",
            evidence="strong",
            narrative=(
                "Chip funds fell after Nvidia's results on Aug 27: revenue beat estimates but data-center "
                "sales missed, and the outlook assumed no H20 sales to China; Marvell's guidance added to "
                "the selling on Aug 29."
            ),
            drivers=[
                Driver(
                    text="Nvidia's data-center revenue missed estimates",
                    type="transient",
                    sources=["n1", "n2"],
                ),
                Driver(text="No H20 sales to China in Nvidia's outlook", type="persistent", sources=["n4"]),
            ],
            sources=semis,
            searched=f"SMH, SOXX, XSD and top holdings NVDA, AVGO, AMD; {window}; 4 articles, 3 publishers",
            effort="normal",
        ),
        "Clean Energy": SectorNews(
            sector="Clean Energy",
            evidence="weak",
            narrative=(
                "One report ties the solar sell-off to Treasury's tighter 'beginning of construction' rules "
                "for tax credits; no other source covers the week."
            ),
            drivers=[Driver(text="Tighter tax-credit construction rules", type="persistent", sources=["c1"])],
            sources=solar,
            searched=f"ICLN, TAN and top holdings FSLR, ENPH, SEDG, NXT; {window}; 1 article",
            effort="high",
        ),
        "Biotechnology": SectorNews(
            sector="Biotechnology",
            evidence="none",
            narrative=protocol.NO_NEWS,
            searched=f"XBI, IBB and top holdings VRTX, GILD, AMGN, REGN; {window}; 0 articles",
            effort="high",
        ),
        "China Internet": SectorNews(
            sector="China Internet",
            evidence="strong",
            narrative=(
                "Earnings from Alibaba and PDD moved the group, and the approaching deadline of the US-China "
                "tariff truce weighed on Hong Kong-listed tech."
            ),
            drivers=[
                Driver(text="Alibaba and PDD earnings reactions", type="transient", sources=["k1", "k2"]),
                Driver(text="US-China tariff truce deadline", type="persistent", sources=["k3"]),
            ],
            sources=china,
            searched=f"KWEB and top holdings BABA, PDD, TCEHY, MPNGY; {window}; 3 articles, 3 publishers",
            effort="high",
        ),
    }


def _views(groups: dict[str, SectorGroup], news: dict[str, SectorNews]) -> dict[str, SectorView]:
    params = StrategyConfig().protocol
    out = {}
    flags: dict[str, Flag] = {"Semiconductors": "GREEN", "China Internet": "GREEN"}
    for sector, g in groups.items():
        v = protocol.verdict(news[sector].evidence, g.avg_alpha_residual, params)
        flag = v.flag or protocol.capped(flags.get(sector, "YELLOW"), v.cap)
        reason = v.reason or f"strong evidence ({len(news[sector].sources)} articles) explains the move"
        narrative = v.narrative or news[sector].narrative
        out[sector] = SectorView(sector=sector, flag=flag, reason=reason, narrative=narrative)
    return out


def _symbol_views(
    profiles: dict[str, SymbolProfile], sectors: dict[str, SectorView]
) -> dict[str, SymbolView]:
    concerns = {
        "SMH": "A second leg down if AI capex guidance is cut.",
        "SOXX": "Broad chip exposure: the same Nvidia driver as SMH.",
        "XSD": "Equal-weight small caps: little of the Nvidia story applies.",
        "ICLN": "Policy risk is persistent, not a one-week shock.",
        "TAN": "Largest residual in the sector with one source.",
        "XBI": "No catalyst found: the move is unexplained.",
        "IBB": "No catalyst found: the move is unexplained.",
        "KWEB": "Tariff deadline can move the group either way.",
    }
    out = {}
    for symbol, p in profiles.items():
        view = sectors[p.sector]
        out[symbol] = SymbolView(
            symbol=symbol,
            sector=p.sector,
            flag=view.flag,
            reason=f"{view.reason}; {symbol} alpha residual {p.alpha_residual:+.2f} pp",
            bullish=[f"RSI(14) {p.rsi_14:.1f}: stretched after the drop"],
            bearish=[f"{p.price_vs_sma50_pct:+.2f}% vs SMA50"],
            key_concern=concerns[symbol],
            sector_narrative=view.narrative,
        )
    return out


def weekly_report() -> EtfWeeklyReport:
    """The hand-built report (a fresh copy each call: tests may change it)."""
    strategy = StrategyConfig()
    charts = {s: price_series(s, row[7], row[3]) for s, row in FUNDS.items()}
    features = {s: _features(s, charts[s]) for s in FUNDS}
    profiles = {s: _profile(f) for s, f in features.items()}
    groups = {}
    for sector in SECTORS:
        members = [f for f in features.values() if f.sector == sector]
        ret, alpha, beta = quant.group_averages(members)
        groups[sector] = SectorGroup(
            sector=sector,
            members=[m.symbol for m in members],
            avg_return=ret,
            avg_alpha_residual=alpha,
            avg_beta=beta,
            interpretation=quant.interpretation(
                sector, len(members), ret, alpha, SPY_WEEK, strategy.protocol.beta_alpha_pct
            ),
        )
    news = _news()
    sectors = _views(groups, news)
    symbols = _symbol_views(profiles, sectors)
    first_sectors = dict(sectors)
    first_sectors["Clean Energy"] = sectors["Clean Energy"].model_copy(
        update={"reason": "weak evidence", "narrative": "Solar names fell on a policy headline."}
    )
    first_sectors["Biotechnology"] = SectorView(
        sector="Biotechnology",
        flag="YELLOW",
        reason="rotation out of defensives",
        narrative="Investors rotated out of biotech into cyclicals.",
    )
    objections = [
        "Clean Energy: the reason says only 'weak evidence'; state what one article does and does not "
        "explain of TAN's -2.38 pp residual.",
        "Biotechnology: 'rotation out of defensives' has no source; with no news the protocol's narrative "
        "applies.",
    ]
    senior_first = SeniorReview(
        sectors=first_sectors,
        symbols={
            s: v.model_copy(update={"flag": "YELLOW"}) if v.sector == "Biotechnology" else v
            for s, v in symbols.items()
        },
        revision=0,
    )
    senior = SeniorReview(sectors=sectors, symbols=symbols, revision=1, answered=objections)
    low = {s: n.evidence for s, n in news.items()}
    director_first = DirectorReview(
        quality_score=5.2,
        rationale="Two sector narratives are not supported by their sources.",
        executive_summary="A down week led by chips and China internet; two sectors need rework.",
        send_back=["Clean Energy", "Biotechnology"],
        objections=objections,
        revision=0,
    )
    director = DirectorReview(
        quality_score=7.4,
        rationale=(
            "Semiconductors and China Internet are explained by several publishers; the revision now says "
            "what the single Clean Energy source covers and leaves Biotechnology unexplained, as it is."
        ),
        flag_adjustments=[
            FlagAdjustment(
                symbol="XSD",
                from_flag="GREEN",
                to_flag="YELLOW",
                reason="Equal-weight small caps: Nvidia's results explain little of XSD's move.",
            )
        ],
        strongest=["SMH", "KWEB"],
        weakest=["IBB", "TAN"],
        blind_spots=[
            "No holdings-level news was read for XSD's small caps.",
            "Biotechnology: no article in the week; a catalyst may exist that the sources miss.",
        ],
        sector_concentration="3 of 8 candidates are chip funds sharing one driver (Nvidia's results).",
        executive_summary=(
            "SPY fell 1.80% in the week. Chip funds fell with the market after Nvidia's results (beta); "
            "China internet fell on earnings and the tariff deadline; biotech fell with no news found."
        ),
        data_constrained_note=protocol.data_constrained_note(low, strategy.protocol),
        revision=1,
    )
    agents = [
        AgentRecord(
            name="quant", mode="deterministic", mode_reason="code only", tool_calls=2, latency_ms=1840
        ),
        AgentRecord(
            name="news",
            mode="model",
            mode_reason="model chain anthropic:claude-haiku-4-5",
            model_turns=8,
            tool_calls=9,
            input_tokens=21_400,
            output_tokens=2_650,
            cost_usd=0.0347,
            latency_ms=9_120,
        ),
        AgentRecord(
            name="senior",
            mode="model",
            mode_reason="model chain anthropic:claude-sonnet-4-5",
            model_turns=2,
            input_tokens=14_800,
            output_tokens=3_900,
            cost_usd=0.1029,
            latency_ms=21_500,
        ),
        AgentRecord(
            name="director",
            mode="model",
            mode_reason="model chain anthropic:claude-sonnet-4-5",
            model_turns=2,
            input_tokens=11_200,
            output_tokens=1_700,
            cost_usd=0.0591,
            latency_ms=12_300,
        ),
    ]
    tool_calls = [
        ToolCallRecord(
            agent="quant",
            name="etf_screen",
            arguments={"week_ending": "2025-08-29"},
            status="ok",
            latency_ms=1_612.0,
            summary="1,670 funds screened; 8 candidates in 4 sectors; 1 bad tick caught",
        ),
        ToolCallRecord(
            agent="quant",
            name="get_macro_series",
            arguments={"series": "T10Y2Y"},
            status="ok",
            latency_ms=38.0,
            cached=True,
            summary="T10Y2Y 0.60 on 2025-08-29",
        ),
        ToolCallRecord(
            agent="news",
            name="search_news",
            arguments={"query": "XBI IBB VRTX GILD", "since": "2025-08-23"},
            status="no_data",
            latency_ms=211.0,
            summary="no articles for XBI, IBB, VRTX, GILD between 2025-08-23 and 2025-08-29",
        ),
        ToolCallRecord(
            agent="news",
            name="search_news",
            arguments={"query": "SMH SOXX NVDA AVGO", "since": "2025-08-23"},
            status="ok",
            latency_ms=305.0,
            summary="4 articles from 3 publishers",
        ),
    ]
    history = [
        HistoryEntry(
            run_id="etf-20250815-0001",
            week_end=date(2025, 8, 15),
            strategy_hash=strategy.strategy_hash(),
            candidates=6,
            sectors=3,
            evidence={"strong": 1, "weak": 1, "none": 1},
            flags={"GREEN": 2, "YELLOW": 3, "RED": 1},
            quality_score=6.8,
            model_calls=11,
            input_tokens=40_100,
            output_tokens=6_900,
            cost_usd=0.1702,
            green=["XLE", "KRE"],
        ),
        HistoryEntry(
            run_id="etf-20250822-0001",
            week_end=date(2025, 8, 22),
            strategy_hash=strategy.strategy_hash(),
            candidates=5,
            sectors=2,
            evidence={"strong": 1, "weak": 0, "none": 1},
            flags={"GREEN": 1, "YELLOW": 3, "RED": 1},
            quality_score=7.1,
            model_calls=9,
            input_tokens=35_600,
            output_tokens=6_100,
            cost_usd=0.1514,
            green=["ARKK"],
            follow_up={"XLE": 1.25, "KRE": -0.80},
        ),
    ]
    return EtfWeeklyReport(
        run_id="etf-20250829-0001",
        as_of=AS_OF,
        week_start=WEEK_START,
        week_end=WEEK_END,
        data_mode="offline snapshot as of 2025-08-29",
        mode="model",
        strategy=strategy,
        strategy_hash=strategy.strategy_hash(),
        market_context=MarketContext(
            week_start=WEEK_START,
            week_end=WEEK_END,
            spy_weekly_return=SPY_WEEK,
            spy_close=645.05,
            spy_vs_sma50_pct=0.62,
            regime=quant.regime(0.62),
            vix_level=15.36,
            vix_date=AS_OF,
            yield_curve_10y2y=0.60,
            yield_curve_date=AS_OF,
            yield_curve_state=quant.curve_state(0.60),
            universe=1670,
            sources=["prices/etfs/etf_daily_ohlcv_adj_1670_2021-01-04_2025-12-24.parquet", "fred/T10Y2Y"],
        ),
        sector_groups=groups,
        symbol_profiles=profiles,
        excluded={
            "leveraged": 112,
            "inverse": 41,
            "min_avg_dollar_volume": 230,
            "min_history": 12,
            "bad_tick": 1,
        },
        data_flags=[DataFlag(symbol="SILJ", reason=BAD_TICK)],
        price_source="prices/etfs/etf_daily_ohlcv_adj_1670_2021-01-04_2025-12-24.parquet",
        overview=MarketOverview(
            narrative="Stocks slipped in the last week of August; Nvidia's results did not lift AI names.",
            sources=[_overview_source()],
            searched="SPY, market headlines 2025-08-23..2025-08-29",
        ),
        news=news,
        senior=senior,
        senior_first=senior_first,
        director=director,
        director_first=director_first,
        charts=charts,
        history=history,
        output_dir="etf-weekly/etf-20250829-0001",
        warnings=["news: finance_news ends 2025-08-26 in the snapshot; later articles come from other feeds"],
        guard=GuardReport(),
        agents=agents,
        tool_calls=tool_calls,
        model_calls=12,
        input_tokens=sum(a.input_tokens for a in agents),
        output_tokens=sum(a.output_tokens for a in agents),
        cost_usd=sum(a.cost_usd for a in agents),
    )


def _overview_source() -> NewsSource:
    return _src(
        "m1",
        "Wall Street ends August lower as tech slides",
        "Associated Press",
        "https://apnews.com/article/stocks-markets-2025-08-29",
        29,
        20,
    )


def hostile_report(report: EtfWeeklyReport) -> EtfWeeklyReport:
    """The report with script tags, a ``javascript:`` URL, a broken-out attribute and a terminal escape
    planted in a news title, a narrative, a fund's name, a reason and a flag that skipped validation."""
    semis = report.news["Semiconductors"]
    source = semis.sources[0].model_copy(update={"title": HOSTILE, "url": JS_URL, "cite": JS_URL})
    news = semis.model_copy(
        update={
            "sources": [source, *semis.sources[1:]],
            "narrative": f'"><img src=x onerror=alert(2)> {HOSTILE}',
        }
    )
    profiles = dict(report.symbol_profiles)
    profiles["SMH"] = profiles["SMH"].model_copy(update={"name": HOSTILE})
    views = dict(report.senior.symbols)
    views["TAN"] = views["TAN"].model_copy(
        update={"flag": '"><script>alert(3)</script>', "reason": "\x1b[2Jcleared"}
    )
    senior = report.senior.model_copy(update={"symbols": views})
    return report.model_copy(
        update={
            "news": {**report.news, "Semiconductors": news},
            "symbol_profiles": profiles,
            "senior": senior,
        }
    )


# The dashboard's sections, by id, in the order the page shows them (when the report has each one).
SECTION_IDS = (
    "report-header",
    "disclaimer",
    "executive-summary",
    "market-context",
    "beta-alpha",
    "sector-themes",
    "candidates",
    "revision",
    "data-quality",
    "history",
    "agents",
    "tool-trace",
)
