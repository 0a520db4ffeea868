"""Fixtures for the desk's roles: typed analyst reports with scored signals (the analysts are built
elsewhere; the desk reads only these models), and a deterministic run of the whole desk over them."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from findesk.agents.roles.trading import manager, researchers, risk, risk_manager, trader
from findesk.agents.roles.trading.inputs import (
    DebateInput,
    DeskView,
    ManagerInput,
    RiskInput,
    RiskManagerInput,
    TraderInput,
    all_signals,
    desk_view,
    digest,
)
from findesk.agents.roles.trading.models import (
    AnalystReport,
    DebateTurn,
    FinalDecision,
    Identity,
    InsiderActivity,
    InvestmentDecision,
    MarketReport,
    NewsReport,
    Regime,
    RegimeLabel,
    Signal,
    SocialReport,
    Technicals,
    TradePlan,
)
from findesk.analytics.trading.params import DeskParams

DAY = date(2024, 5, 10)
NVDA = Identity(ticker="NVDA", cik=1045810, name="NVIDIA CORP", exchange="Nasdaq", source="test")


def sig(sid: str, text: str, score: float, weight: float = 1.0) -> Signal:
    return Signal(id=sid, analyst=sid.split(".")[0], text=text, score=score, weight=weight)


SIGNALS = [
    sig("market.trend", "Close 898.78 is 18.50% above its 200-day average", 1.5),
    sig("market.rsi", "RSI(14) 71.20: overbought", -1.0),
    sig("market.volatility", "ATR 4.10% of the price", -0.5),
    sig("fundamentals.revenue_growth", "Revenue TTM +125.85% year on year", 2.0, 1.5),
    sig("fundamentals.valuation", "P/E 64.30, the highest of its 12 peers", -1.5),
    sig("fundamentals.debt", "Debt/equity 0.26", 0.0),
    sig("news.tone", "Company headlines net positive: 12 of 18", 0.5),
    sig("social.sentiment", "Stocktwits 64% bullish of 230 posts", 0.5, 0.5),
]


def _report(analyst: str, score: float, signals: list[Signal], status: str = "ok") -> dict[str, Any]:
    stance = "bullish" if score >= 0.5 else "bearish" if score <= -0.5 else "neutral"
    return {
        "analyst": analyst,
        "status": status,
        "score": score,
        "stance": stance,
        "signals": signals,
        "summary": f"The {analyst} analyst's view.",
    }


def reports(
    *,
    regime: RegimeLabel = "risk-on",
    close: float | None = 898.78,
    atr: float | None = 36.85,
    atr_pct: float | None = 4.10,
    scores: dict[str, float] | None = None,
    no_data: tuple[str, ...] = (),
    signals: list[Signal] | None = None,
) -> dict[str, AnalystReport]:
    """Four typed reports over ``signals`` (default ``SIGNALS``); ``scores`` overrides analysts' scores."""
    pool = SIGNALS if signals is None else signals
    by: dict[str, list[Signal]] = {
        a: [s for s in pool if s.analyst == a] for a in ("market", "fundamentals", "news", "social")
    }
    s = {"market": 0.4, "fundamentals": 0.6, "news": 0.5, "social": 0.5} | (scores or {})

    def status(a: str) -> str:
        return "no_data" if a in no_data else "ok"

    tech = (
        Technicals(session=DAY, close=close, atr_14=atr, atr_pct=atr_pct, sessions=250)
        if close is not None
        else None
    )
    return {
        "market": MarketReport(
            **_report("market", s["market"], by["market"], status("market")),
            regime=Regime(label=regime, score=-2.0 if regime == "risk-off" else 2.0),
            technicals=tech,
        ),
        "fundamentals": AnalystReport(
            **_report("fundamentals", s["fundamentals"], by["fundamentals"], status("fundamentals"))
        ),
        "news": NewsReport(
            **_report("news", s["news"], by["news"], status("news")),
            insider=InsiderActivity(
                status="no_data", reason="no insider-transaction source in this data mode"
            ),
        ),
        "social": SocialReport(**_report("social", s["social"], by["social"], status("social"))),
    }


@dataclass
class DeskRun:
    view: DeskView
    debate: list[DebateTurn] = field(default_factory=list)
    decision: InvestmentDecision | None = None
    plan: TradePlan | None = None
    risk: list[DebateTurn] = field(default_factory=list)
    final: FinalDecision | None = None

    def dump(self) -> str:
        parts = [t.model_dump_json() for t in self.debate + self.risk]
        parts += [m.model_dump_json() for m in (self.decision, self.plan, self.final) if m is not None]
        return "\n".join(parts)


def run_desk(
    reps: dict[str, AnalystReport],
    *,
    params: DeskParams | None = None,
    rounds: int = 2,
    risk_rounds: int = 2,
) -> DeskRun:
    """The whole desk in deterministic mode, wired as the workflow wires it (digests between turns)."""
    p = params or DeskParams()
    view = desk_view(NVDA, DAY, reps)
    signals = all_signals(reps)
    run = DeskRun(view=view)
    for r in range(1, rounds + 1):
        for side in ("bull", "bear"):
            given = DebateInput(
                view=view,
                side=side,
                round=r,
                rounds=rounds,
                history=[digest(t) for t in run.debate],
                signals=signals,
                params=p,
            )
            run.debate.append(researchers.compose(given, {}))
    run.decision = manager.compose(
        ManagerInput(view=view, debate=[digest(t) for t in run.debate], params=p), {}
    )
    run.plan = trader.compose(TraderInput(view=view, decision=run.decision, params=p), {})
    for r in range(1, risk_rounds + 1):
        for side in ("aggressive", "conservative", "neutral"):
            given_r = RiskInput(
                view=view,
                decision=run.decision,
                plan=run.plan,
                side=side,
                round=r,
                rounds=risk_rounds,
                history=[digest(t) for t in run.risk],
                params=p,
            )
            run.risk.append(risk.compose(given_r, {}))
    run.final = risk_manager.compose(rm_input(run, p), {})
    return run


def rm_input(run: DeskRun, params: DeskParams | None = None) -> RiskManagerInput:
    assert run.decision is not None and run.plan is not None
    return RiskManagerInput(
        view=run.view,
        decision=run.decision,
        plan=run.plan,
        risk=[digest(t) for t in run.risk],
        params=params or DeskParams(),
    )
