"""What each trading-desk role is given: analysts get the company and the date; everyone after them gets
a compact structured view of the reports and of the earlier turns, never the whole transcript.

Rules:
- The context budget is kept here: a ``DeskView`` carries each analyst's status, score, stance and its
  strongest signals (``TOP_SIGNALS``, by |score × weight|), and the few market figures the trader and
  the risk team size from; a ``TurnDigest`` is a turn's side, round, citations, score and its claim
  clipped to ``CLAIM_CHARS``. Debaters and managers see only these.
- Pure: built from the typed reports, no I/O.
"""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, ConfigDict, Field

from findesk.agents.roles.trading.models import (
    Analyst,
    AnalystReport,
    DebateTurn,
    Identity,
    InvestmentDecision,
    InvestSide,
    MarketReport,
    RegimeLabel,
    RiskSide,
    Signal,
    Stance,
    Status,
    TradePlan,
)
from findesk.analytics.trading.params import DeskParams

TOP_SIGNALS = 4
CLAIM_CHARS = 240
ANALYSTS: tuple[Analyst, ...] = ("market", "fundamentals", "news", "social")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AnalystInput(_Model):
    identity: Identity
    date: dt.date  # the run's point-in-time date
    params: DeskParams = Field(default_factory=DeskParams)


class AnalystDigest(_Model):
    status: Status
    score: float
    stance: Stance
    top: list[Signal] = Field(default_factory=list)
    summary: str = ""


class DeskView(_Model):
    identity: Identity
    date: dt.date
    analysts: dict[str, AnalystDigest]
    regime: RegimeLabel = "unknown"
    close: float | None = None
    atr_14: float | None = None
    atr_pct: float | None = None
    session: dt.date | None = None


class TurnDigest(_Model):
    side: str
    round: int
    claim: str
    cites: list[str] = Field(default_factory=list)
    rebuts: str | None = None
    score: float = 0.0
    proposed_pct: float | None = None


class DebateInput(_Model):
    view: DeskView
    side: InvestSide
    round: int
    rounds: int
    history: list[TurnDigest] = Field(default_factory=list)
    signals: list[Signal] = Field(default_factory=list)  # every analyst signal, for citing by id
    lessons: list[str] = Field(default_factory=list)
    params: DeskParams = Field(default_factory=DeskParams)


class ManagerInput(_Model):
    view: DeskView
    debate: list[TurnDigest]
    lessons: list[str] = Field(default_factory=list)
    params: DeskParams = Field(default_factory=DeskParams)


class TraderInput(_Model):
    view: DeskView
    decision: InvestmentDecision
    lessons: list[str] = Field(default_factory=list)
    params: DeskParams = Field(default_factory=DeskParams)


class RiskInput(_Model):
    view: DeskView
    decision: InvestmentDecision
    plan: TradePlan
    side: RiskSide
    round: int
    rounds: int
    history: list[TurnDigest] = Field(default_factory=list)
    params: DeskParams = Field(default_factory=DeskParams)


class RiskManagerInput(_Model):
    view: DeskView
    decision: InvestmentDecision
    plan: TradePlan
    risk: list[TurnDigest]
    lessons: list[str] = Field(default_factory=list)
    params: DeskParams = Field(default_factory=DeskParams)


def _top(report: AnalystReport) -> list[Signal]:
    ranked = sorted(report.signals, key=lambda s: (-abs(s.score * s.weight), s.id))
    return ranked[:TOP_SIGNALS]


def desk_view(identity: Identity, day: dt.date, reports: dict[str, AnalystReport]) -> DeskView:
    """The compact view every debater and manager reads."""
    market = reports.get("market")
    tech = market.technicals if isinstance(market, MarketReport) else None
    return DeskView(
        identity=identity,
        date=day,
        analysts={
            name: AnalystDigest(
                status=r.status, score=r.score, stance=r.stance, top=_top(r), summary=r.summary[:CLAIM_CHARS]
            )
            for name in ANALYSTS
            if (r := reports.get(name)) is not None
        },
        regime=market.regime.label if isinstance(market, MarketReport) else "unknown",
        close=tech.close if tech else None,
        atr_14=tech.atr_14 if tech else None,
        atr_pct=tech.atr_pct if tech else None,
        session=tech.session if tech else None,
    )


def all_signals(reports: dict[str, AnalystReport]) -> list[Signal]:
    return [s for name in ANALYSTS if (r := reports.get(name)) is not None for s in r.signals]


def digest(turn: DebateTurn) -> TurnDigest:
    claim = turn.argument if len(turn.argument) <= CLAIM_CHARS else turn.argument[: CLAIM_CHARS - 1] + "…"
    return TurnDigest(
        side=turn.side,
        round=turn.round,
        claim=claim,
        cites=list(turn.cites),
        rebuts=turn.rebuts,
        score=turn.score,
        proposed_pct=turn.proposed_pct,
    )
