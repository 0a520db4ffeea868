"""The synthesis's documented rules on small boards built by hand: the order of the picks, the
conviction thresholds, the risk-off cap, defensive names only when the news tone is negative, ranking
for the pipeline, and no list at all when the boards hold fewer than 8 candidates."""

from __future__ import annotations

from datetime import date

from findesk.analytics.scan import candidates as rules
from findesk.analytics.scan.models import (
    FundPerf,
    GeoBoard,
    IndustryBoard,
    MoverFilters,
    MoverRow,
    MoversBoard,
    SectorBoard,
    SectorDeepDive,
    StockPerf,
    SubIndustryPerf,
    TopicBrief,
    TopicHeadline,
)
from findesk.analytics.trading.regime import Regime
from findesk.guardrails.number_trace import collect_numbers, untraced_numbers

DAY = date(2025, 8, 29)


def _stock(t: str, r1: float, r3: float, sub: str = "Semis") -> StockPerf:
    return StockPerf(ticker=t, name=f"{t} Corp", sub_industry=sub, return_1m=r1, return_3m=r3)


def _dive(sector: str, etf: str, stocks: list[StockPerf], breadth: float = 80.0) -> SectorDeepDive:
    sub = SubIndustryPerf(
        sub_industry="Semis",
        members=len(stocks),
        median_return_1m=6.5,
        breadth_1m=breadth,
        best=stocks[0],
        worst=stocks[-1],
    )
    return SectorDeepDive(
        sector=sector,
        etf=etf,
        etf_return_1m=4.2,
        constituents=len(stocks),
        sub_industries=[sub],
        top_stocks=stocks[:5],
        bottom_stocks=list(reversed(stocks))[:5],
    )


def _mover(sym: str, pct: float, cap: float = 5e9, dv: float = 150e6, sector: str = "Technology") -> MoverRow:
    return MoverRow(
        symbol=sym,
        name=f"{sym} Inc",
        exchange="NASDAQ",
        close=50.0,
        pct_change=pct,
        volume=int(dv / 50),
        dollar_volume=dv,
        market_cap_usd=cap,
        sector=sector,
    )


def _boards(tone: float | None = None, label: str = "risk-on") -> rules.Boards:
    tech = [
        _stock("AAA", 12.0, 20.0),
        _stock("BBB", 7.0, 9.0),
        _stock("CCC", 3.0, 4.0),
        _stock("DDD", -4.0, 6.0),
    ]
    staples = [_stock("PPP", 2.5, 1.0, "Food"), _stock("QQQQ", 1.0, -1.0, "Food")]
    movers = MoversBoard(
        session=DAY,
        filters=MoverFilters(),
        universe=100,
        kept=50,
        gainers=[_mover("GGG", 14.0), _mover("HHH", 6.0, dv=30e6), _mover("TINY", 30.0, cap=1e9)],
        losers=[_mover("LLL", -12.0)],
        most_active=[_mover("MMM", 1.5), _mover("NNN", 0.5, sector="Utilities")],
    )
    sectors = SectorBoard(
        session=DAY,
        sectors=[
            FundPerf(
                ticker="XLK",
                name="Technology",
                kind="sector",
                returns={"1M": 4.2, "3M": 8.0, "YTD": 12.0},
                rank_1m=1,
            ),
            FundPerf(
                ticker="XLP",
                name="Consumer Staples",
                kind="sector",
                returns={"1M": 1.0, "3M": 2.0},
                rank_1m=2,
            ),
            FundPerf(
                ticker="XLU", name="Utilities", kind="sector", returns={"1M": -2.0, "3M": 1.0}, rank_1m=3
            ),
        ],
        leaders=["XLK", "XLP"],
        laggards=["XLU"],
    )
    headline = TopicHeadline(title="GGG wins a contract", published=DAY, source="example.com", tone=0.5)
    topics = [
        TopicBrief(topic="conflicts", articles=5, tone=tone, headlines=[headline]),
        TopicBrief(topic="trade", articles=4, tone=tone, sectors_exposed=["XLK"]),
    ]
    industries = IndustryBoard(
        session=DAY,
        constituents_list=DAY,
        sectors=[
            _dive("Information Technology", "XLK", tech),
            _dive("Consumer Staples", "XLP", staples, 40.0),
        ],
    )
    regime = Regime.model_validate(
        {"label": label, "score": -3.0 if label == "risk-off" else 3.0, "breadth_pct": 55.0}
    )
    return rules.Boards(GeoBoard(session=DAY, since=DAY, topics=topics), movers, sectors, industries, regime)


def test_picks_follow_the_documented_order_and_thresholds() -> None:
    picks = rules.pick_candidates(_boards(tone=0.1))
    tickers = [c.ticker for c in picks]
    # 1. relative strength: each sector's best sub-industry leader (AAA, PPP; the top stock is the same
    # one); 2. large liquid gainers (TINY is under $2B); 4. laggard-recovery DDD; 5. reversal LLL; 6. fill
    assert tickers[:2] == ["AAA", "PPP"]
    assert tickers[2:4] == ["GGG", "HHH"] and "TINY" not in tickers
    assert tickers[4:6] == ["DDD", "LLL"]
    assert 8 <= len(picks) <= 10 and len(set(tickers)) == len(tickers)
    by = {c.ticker: c for c in picks}
    assert by["AAA"].angle == "relative-strength" and by["AAA"].conviction == "high"  # 12% 1M, breadth 80%
    assert by["PPP"].conviction == "low"  # 2.5% 1M
    assert by["GGG"].angle == "catalyst" and by["GGG"].conviction == "high"  # a headline names it; 14%, $150M
    assert by["GGG"].catalysts and "GGG wins a contract" in by["GGG"].catalysts[0]
    assert by["HHH"].angle == "momentum" and by["HHH"].conviction == "medium"
    assert by["DDD"].angle == "laggard-recovery" and by["LLL"].angle == "reversal"
    assert all(c.angle != "defensive" for c in picks)  # the news tone is not negative


def test_negative_tone_adds_defensive_names_and_risk_off_caps_conviction() -> None:
    picks = rules.pick_candidates(_boards(tone=-0.4, label="risk-off"))
    by = {c.ticker: c for c in picks}
    assert by["PPP"].angle == "relative-strength"  # taken first as relative strength; listed once
    assert all(c.conviction != "high" for c in picks)
    assert any("risk-off" in r for c in picks for r in c.risks)
    assert any("exposes XLK" in r for r in by["AAA"].risks)  # the negative topic that exposes its sector


def test_every_stated_figure_is_a_board_value() -> None:
    boards = _boards(tone=-0.4)
    picks = rules.pick_candidates(boards)
    pool = collect_numbers(boards.geo, boards.movers, boards.sectors, boards.industries, boards.regime)
    texts = [c.rationale for c in picks] + [x for c in picks for x in (*c.risks, *c.catalysts)]
    texts += [rules.executive_summary(boards, picks), rules.macro_context(boards.regime)]
    texts += [e for t in rules.themes(boards) for e in t.evidence]
    for text in texts:
        assert untraced_numbers(text, pool) == [], text


def test_too_few_candidates_gives_no_list() -> None:
    thin = rules.Boards(sectors=_boards().sectors)
    assert rules.pick_candidates(thin) == [] and not rules.enough_candidates([])


def test_ranked_puts_conviction_first_then_the_scan_order() -> None:
    picks = rules.pick_candidates(_boards(tone=0.1))
    order = [c.conviction for c in rules.ranked(picks)]
    assert order == sorted(order, key={"high": 0, "medium": 1, "low": 2}.__getitem__)
    highs = [c.ticker for c in picks if c.conviction == "high"]
    assert [c.ticker for c in rules.ranked(picks)][: len(highs)] == highs


def test_each_risk_is_about_the_stock_itself() -> None:
    by = {c.ticker: c for c in rules.pick_candidates(_boards(tone=0.1))}
    # a loser picked as a reversal: its fall can extend (not "reverse", which is the idea, not the risk)
    assert by["LLL"].risks == ["a one-session fall of -12.00% can extend"]
    assert by["GGG"].risks == ["a one-session move of +14.00% can reverse"]
    # a pullback in a leading sector: the decline may continue
    assert by["DDD"].risks == ["the one-month decline of -4.00% may continue"]
    # the weakest member of its group warns only when it fell: DDD (-4 %) does for AAA; QQQQ (+1 %) is no
    # risk for PPP, so PPP's is its own run-up, never another sector's news (XLU is a laggard)
    assert by["AAA"].risks == ["its sub-industry's weakest member DDD returned -4.00% over 1M"]
    assert by["PPP"].risks == ["a one-month gain of +2.50% can reverse"]
    assert not any("XLU" in r or "Utilities" in r for c in by.values() for r in c.risks)
