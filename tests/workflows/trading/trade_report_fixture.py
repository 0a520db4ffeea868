"""A trading-desk report built by hand from the role models (no run): NVDA on 2024-05-10 with two debate
rounds and two risk rounds, and a hostile copy whose every data string carries markup, terminal escapes
or a ``javascript:`` URL. A module of its own name so every test imports it without a clash."""

from __future__ import annotations

from datetime import UTC, date, datetime

from findesk.agents.roles.trading.models import (
    DebateTurn,
    FinalDecision,
    FundamentalsReport,
    Headline,
    Identity,
    InsiderActivity,
    InvestmentDecision,
    MarketReport,
    NewsReport,
    PeerRank,
    Regime,
    RelativePerf,
    Signal,
    SocialReport,
    Technicals,
    TradePlan,
    TtmPoint,
)
from findesk.analytics.trading.params import DeskParams
from findesk.workflows.records import AgentRecord, ToolCallRecord
from findesk.workflows.trading.models import TradeReport

DAY = date(2024, 5, 10)
HOSTILE = "<script>alert(1)</script>"
ESC = "\x1b[2J\x1b]8;;https://evil.example\x07click\x1b]8;;\x07"  # clear screen + a terminal hyperlink
JS_URL = "javascript:alert(1)"
IMG = '"><img src=x onerror=alert(2)>'


def _sig(sid: str, text: str, score: float, weight: float = 1.0) -> Signal:
    analyst = sid.split(".", 1)[0]
    return Signal(id=sid, analyst=analyst, text=text, score=score, weight=weight)


def trade_report() -> TradeReport:
    market = MarketReport(
        status="ok",
        score=0.85,
        stance="bullish",
        signals=[
            _sig("market.trend", "close 898.78 is 12.40% above its 200-day average 799.61", 1.5),
            _sig("market.rsi", "RSI(14) 71.2: overbought", -0.5),
            _sig("market.regime", "regime risk-on (score +2)", 1.0, 0.5),
            _sig("market.macd", "MACD histogram +3.10", 0.5),
        ],
        summary="Uptrend in a risk-on tape; RSI(14) 71.2 is stretched.",
        regime=Regime(label="risk-on", score=2.0, vix=12.55, components=["VIX 12.55 below 15: +1"]),
        technicals=Technicals(
            session=DAY, close=898.78, rsi_14=71.2, atr_14=27.5, atr_pct=3.06, sessions=250
        ),
    )
    fundamentals = FundamentalsReport(
        status="ok",
        score=1.4,
        stance="bullish",
        signals=[_sig("fundamentals.revenue_growth", "TTM revenue +125.85% year on year", 2.0)],
        summary="Revenue growth and margins lead the sub-industry.",
        ttm=[TtmPoint(quarter_end=date(2024, 1, 28), revenue_growth_yoy_pct=125.85, net_margin_pct=48.85)],
        peer_rank=PeerRank(
            sub_industry="Semiconductors", peers=14, ranks={"growth": 1}, basis="S&P 500 list"
        ),
        sector_etf="XLK",
        relative=[
            RelativePerf(window="1M", start=date(2024, 4, 10), stock_pct=4.1, etf_pct=1.2, alpha_pp=2.9)
        ],
    )
    news = NewsReport(
        status="partial",
        score=0.3,
        stance="neutral",
        signals=[_sig("news.tone", "12 company headlines, mean tone +0.18", 0.3)],
        summary="Mostly upbeat coverage ahead of earnings.",
        company=[
            Headline(
                id="n1",
                title="Nvidia extends rally",
                published=datetime(2024, 5, 9, 14, 3, tzinfo=UTC),
                source="Reuters",
                url="https://example.com/nvda",
                tone=0.4,
            )
        ],
        insider=InsiderActivity(status="no_data", reason="no insider-transaction source in this data mode"),
    )
    social = SocialReport(
        status="no_data",
        score=0.0,
        stance="neutral",
        summary="No posts in the window.",
        warnings=["no social posts before 2024-05-10"],
    )
    debate = [
        DebateTurn(
            side="bull",
            round=1,
            argument="Growth of 125.85% carries the case.",
            cites=["fundamentals.revenue_growth"],
            score=1.6,
        ),
        DebateTurn(
            side="bear",
            round=1,
            argument="RSI(14) 71.2 says the move is stretched.",
            cites=["market.rsi"],
            rebuts="fundamentals.revenue_growth",
            score=-0.5,
        ),
        DebateTurn(
            side="bull",
            round=2,
            argument="The trend holds above the 200-day average.",
            cites=["market.trend"],
            rebuts="market.rsi",
            score=1.5,
        ),
        DebateTurn(
            side="bear",
            round=2,
            argument="News tone is only +0.18.",
            cites=["news.tone"],
            rebuts="market.trend",
            score=-0.2,
        ),
    ]
    risk = [
        DebateTurn(
            side="aggressive", round=1, argument="Size up: 3.75% of capital.", proposed_pct=3.75, score=1.0
        ),
        DebateTurn(
            side="conservative",
            round=1,
            argument="ATR 3.06% is wide: 1.25%.",
            proposed_pct=1.25,
            rebuts="aggressive",
            score=-0.5,
        ),
        DebateTurn(
            side="neutral", round=1, argument="Stay at the plan's 2.50%.", proposed_pct=2.5, score=0.0
        ),
        DebateTurn(
            side="aggressive", round=2, argument="Risk-on regime: 3.75% still.", proposed_pct=3.75, score=1.0
        ),
        DebateTurn(
            side="conservative", round=2, argument="Earnings are near: 1.25%.", proposed_pct=1.25, score=-0.5
        ),
        DebateTurn(
            side="neutral",
            round=2,
            argument="2.50% keeps the stop loss under 1%.",
            proposed_pct=2.5,
            score=0.0,
        ),
    ]
    return TradeReport(
        run_id="abc123def456",
        as_of=DAY,
        data_mode="offline snapshot",
        mode="deterministic",
        identity=Identity(
            ticker="NVDA",
            cik=1045810,
            name="NVIDIA CORP",
            exchange="Nasdaq",
            sector="Information Technology",
            source="company_tickers_exchange.json",
        ),
        params=DeskParams(),
        debate_rounds=2,
        risk_rounds=2,
        market=market,
        fundamentals=fundamentals,
        news=news,
        social=social,
        investment_debate=debate,
        investment_decision=InvestmentDecision(
            rating="OVERWEIGHT",
            score=0.74,
            rationale="Net score +0.74 is at least 0.30 and below 0.90.",
            bull_points=["fundamentals.revenue_growth"],
            bear_points=["market.rsi"],
        ),
        trader_plan=TradePlan(
            direction="long",
            entry=898.78,
            entry_basis="last close 2024-05-10",
            position_pct=2.5,
            stop=843.78,
            target=981.28,
            stop_atr=2.0,
            target_atr=3.0,
            risk_reward=1.5,
            horizon_days=20,
            rationale="OVERWEIGHT sizes 2.50%; stop 2 ATR below the close.",
        ),
        risk_debate=risk,
        final_decision=FinalDecision(
            rating="OVERWEIGHT",
            position_pct=2.28,
            direction="long",
            entry=898.78,
            stop=843.78,
            target=981.28,
            horizon_days=20,
            rationale="Weighted size 2.28% of capital.",
            lessons_used=["bull: earnings gaps ate the stop in 2023-11"],
        ),
        lessons={"bull": ["earnings gaps ate the stop in 2023-11"]},
        warnings=["social: no posts before 2024-05-10"],
        agents=[
            AgentRecord(
                name="trade_market",
                mode="deterministic",
                mode_reason="no model",
                tool_calls=3,
                input_tokens=0,
            )
        ],
        tool_calls=[
            ToolCallRecord(
                agent="trade_market",
                name="get_price_history",
                arguments={"symbol": "NVDA"},
                status="ok",
                latency_ms=12.0,
                summary="NVDA 250 sessions to 2024-05-10",
            )
        ],
    )


def hostile_report() -> TradeReport:
    """The report with hostile strings in every kind of data field a renderer prints."""
    r = trade_report()
    headline = r.news.company[0].model_copy(update={"title": f"{HOSTILE} {ESC}", "url": JS_URL})
    news = r.news.model_copy(update={"company": [headline], "summary": f"{IMG} {ESC}"})
    market = r.market.model_copy(
        update={
            "summary": f"{HOSTILE}{ESC}",
            "signals": [
                s.model_copy(update={"text": f"[x]({JS_URL}) {HOSTILE}"}) if s.id == "market.rsi" else s
                for s in r.market.signals
            ],
        }
    )
    turns = [t.model_copy(update={"argument": f"{t.argument} {HOSTILE} {ESC}"}) for t in r.investment_debate]
    identity = r.identity.model_copy(update={"name": f"NVIDIA {HOSTILE}{ESC}", "exchange": IMG})
    final = r.final_decision.model_copy(update={"rationale": f"{ESC}{HOSTILE}"})
    return r.model_copy(
        update={
            "identity": identity,
            "news": news,
            "market": market,
            "investment_debate": turns,
            "final_decision": final,
            "warnings": [f"{HOSTILE}{ESC}"],
        }
    )


def review_report() -> TradeReport:
    """The risk manager's model answer could not be validated: REVIEW with the reason, size 0."""
    r = trade_report()
    final = r.final_decision.model_copy(
        update={
            "rating": "REVIEW",
            "position_pct": 0.0,
            "direction": "flat",
            "review_reason": "the rating 'STRONG BUY' is not one of the five",
            "rationale": "The model's decision could not be validated.",
        }
    )
    return r.model_copy(update={"final_decision": final})
