"""What each trading-desk role is given: analysts get the company and the date; everyone after them gets
a compact structured view of the reports and of the earlier turns, never the whole transcript.

Rules:
- The context budget is kept here: a ``DeskView`` carries each analyst's status, score, stance and its
  strongest signals (``TOP_SIGNALS``, by |score × weight|), and the few market figures the trader and
  the risk team size from; a ``TurnDigest`` is a turn's side, round, citations, score and its claim
  clipped to ``CLAIM_CHARS``. Debaters and managers see only these.
- What a model reads is built here too (``view_payload``, ``turns_payload``, ``signal_payload``) and a
  model's turn is held to code's here (``held_turn``), for every role of the desk alike.
- Pure: built from the typed reports, no I/O.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

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
from findesk.agents.runtime.model_loop import data_task
from findesk.analytics.trading.params import DeskParams

WINDOW_DAYS = 30  # news and posts of the 30 days up to the run's date
TOP_SIGNALS = 4
CLAIM_CHARS = 240
ANALYSTS: tuple[Analyst, ...] = ("market", "fundamentals", "news", "social")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AnalystInput(_Model):
    identity: Identity
    date: dt.date  # the run's point-in-time date
    params: DeskParams = Field(default_factory=DeskParams)

    @property
    def window_start(self) -> dt.date:
        """The first day (included) of the window the news and social analysts read."""
        return self.date - dt.timedelta(days=WINDOW_DAYS)


def analyst_task(inputs: AnalystInput, ask: str, *, window: bool = False, sector: bool = False) -> str:
    """An analyst's task for a model: the company and the run's date (with the window it reads, or
    its sector, when that matters to the role), as fenced JSON, then what to submit."""
    payload: dict[str, Any] = {
        "ticker": inputs.identity.ticker,
        "company": inputs.identity.name,
        "date": inputs.date.isoformat(),
    }
    if sector:
        payload["sector"] = inputs.identity.sector
    if window:
        payload["window_start"] = inputs.window_start.isoformat()
    return data_task("The company and the run's date (JSON):", payload, ask)


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
    levels: str = "adjusted"  # "as_traded" when the close is what traded that day (``Technicals.levels``)


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
        levels=tech.levels if tech else "adjusted",
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


# --- what a model reads: compact JSON payloads (the context budget is kept here) -------------------


def signal_payload(s: Signal) -> dict[str, Any]:
    return {"id": s.id, "text": s.text, "score": s.score, "weight": s.weight}


def view_payload(view: DeskView, *, tops: bool = True) -> dict[str, Any]:
    """The desk view as a model reads it: the company, each analyst's stance (and strongest signals,
    unless ``tops`` is False: the trader and the risk roles size, they do not argue the evidence), the
    regime and the few market figures the plan is sized from. A summary only says why data is missing."""
    analysts: dict[str, Any] = {}
    for name, a in view.analysts.items():
        entry: dict[str, Any] = {"status": a.status, "score": a.score, "stance": a.stance}
        if tops:
            entry["top"] = [signal_payload(s) for s in a.top]
        if a.status != "ok" and a.summary:
            entry["note"] = a.summary
        analysts[name] = entry
    market = {
        k: v
        for k, v in {
            "regime": view.regime,
            "close": view.close,
            "atr": view.atr_14,
            "atr_pct": view.atr_pct,
            "session": view.session.isoformat() if view.session else None,
        }.items()
        if v is not None
    }
    return {
        "company": {"ticker": view.identity.ticker, "name": view.identity.name},
        "date": view.date.isoformat(),
        "analysts": analysts,
        "market": market,
    }


def turns_payload(history: list[TurnDigest]) -> list[dict[str, Any]]:
    return [t.model_dump(mode="json", exclude_none=True, exclude_defaults=True) for t in history]


def view_signals(view: DeskView) -> list[Signal]:
    """The signals the desk view carries (each analyst's strongest)."""
    return [s for a in view.analysts.values() for s in a.top]


def held_turn(out: DebateTurn, basis: DebateTurn, known: set[str], answerable: set[str]) -> DebateTurn:
    """A model's turn held to code: only citations of ``known`` ids are kept (none left → the code's turn),
    a rebuttal only of an ``answerable`` id, and the code's side, round, score and proposal."""
    cites = [c for c in dict.fromkeys(out.cites) if c in known]
    if not cites or not out.argument.strip():
        return basis
    rebuts = out.rebuts if out.rebuts is not None and out.rebuts in answerable else basis.rebuts
    return basis.model_copy(update={"argument": out.argument.strip(), "cites": cites, "rebuts": rebuts})
