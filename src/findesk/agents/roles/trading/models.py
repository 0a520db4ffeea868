"""The typed outputs of the trading desk's roles: four analyst reports, debate turns, the research
manager's rating, the trader's plan, the risk team's turns and the final decision.

Rules:
- Every analyst observation is a ``Signal``: a stable id (``market.rsi``), one line stating its own
  figures, a score in [-2, +2] (negative bearish) and a weight. Debaters cite signals by id, so every
  claim in a debate points at an analyst's line, and the line at a tool result.
- Units: prices in the listing's currency, returns, margins, alphas and sizes in percent, ratios as
  ratios. A figure that could not be computed is ``None`` with the reason in ``warnings``; never 0.
- Ratings are closed vocabularies: a model can never widen them. ``REVIEW`` exists only for the final
  decision, when a model's decision could not be parsed or validated (the reason is in
  ``review_reason``), never as a silent HOLD.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from findesk.analytics.trading.fundamentals import TtmPoint as TtmPoint

# Defined in analytics (the pure functions and the tools build them, and may not import agents);
# re-exported here so every role reads one set of models.
from findesk.analytics.trading.regime import Regime as Regime
from findesk.analytics.trading.sector_etf import RelativePerf as RelativePerf
from findesk.analytics.trading.signals import Signal as Signal
from findesk.analytics.trading.technicals import Technicals as Technicals

Stance = Literal["bullish", "bearish", "neutral"]
Rating = Literal["BUY", "OVERWEIGHT", "HOLD", "UNDERWEIGHT", "SELL"]
FinalRating = Literal["BUY", "OVERWEIGHT", "HOLD", "UNDERWEIGHT", "SELL", "REVIEW"]
Analyst = Literal["market", "fundamentals", "news", "social"]
Status = Literal["ok", "partial", "no_data"]
InvestSide = Literal["bull", "bear"]
RiskSide = Literal["aggressive", "conservative", "neutral"]
RegimeLabel = Literal["risk-on", "risk-off", "transition", "unknown"]
Direction = Literal["long", "short", "flat"]
Window = Literal["1W", "1M", "3M", "6M", "YTD"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Identity(_Model):
    """The one company a ticker names at the run's date, from the SEC tables."""

    ticker: str
    cik: int
    name: str
    exchange: str | None = None
    sector: str | None = None  # GICS when the S&P list has it, else the listing directory's
    industry: str | None = None
    source: str  # the table(s) it was read from
    notes: list[str] = Field(default_factory=list)  # e.g. the ticker was re-registered under a new CIK


class AnalystReport(_Model):
    """What every analyst hands the desk: a typed stance from scored signals, plus prose."""

    analyst: Analyst
    status: Status  # no_data: the source was absent; the report says so and scores 0
    score: float = Field(ge=-2.0, le=2.0)  # the weighted mean of the signals' scores (0 without any)
    stance: Stance
    signals: list[Signal] = Field(default_factory=list)
    summary: str  # prose, only figures the signals and tools gave
    sources: list[str] = Field(default_factory=list)  # citations of the tool results used
    warnings: list[str] = Field(default_factory=list)


# --- market analyst -------------------------------------------------------------------------------


class MarketReport(AnalystReport):
    analyst: Literal["market"] = "market"
    regime: Regime
    technicals: Technicals | None = None


# --- fundamentals analyst ---------------------------------------------------------------------------


class PeerRank(_Model):
    sub_industry: str
    peers: int  # members ranked, the company included
    ranks: dict[str, int] = Field(default_factory=dict)  # metric -> 1-based rank (1 = best)
    basis: str  # what was ranked, from which source and date


class FundamentalsReport(AnalystReport):
    analyst: Literal["fundamentals"] = "fundamentals"
    ttm: list[TtmPoint] = Field(default_factory=list)  # newest first, up to 8 quarters
    valuation: dict[str, float | None] = Field(default_factory=dict)  # "pe", "ps", "ev_ebitda"
    peer_rank: PeerRank | None = None
    sector_etf: str | None = None
    relative: list[RelativePerf] = Field(default_factory=list)


# --- news and social analysts -----------------------------------------------------------------------


class Headline(_Model):
    id: str
    title: str
    published: datetime
    source: str
    url: str | None = None
    tone: float = 0.0  # -1 … +1 from the headline's words (``analytics.trading.news_tone``)


class InsiderActivity(_Model):
    # ok: transactions known; partial: only the Form 4 filings are known (how many, when), not what
    # they report; no_data: no source
    status: Status
    reason: str | None = None  # why no (or partial) data
    filings: int | None = None  # Form 4 filings in the window, when the filing list is known
    last_filed: date | None = None
    buys: int | None = None  # None: unknown, never 0
    sells: int | None = None
    net_shares: float | None = None


class NewsReport(AnalystReport):
    analyst: Literal["news"] = "news"
    company: list[Headline] = Field(default_factory=list)
    global_news: list[Headline] = Field(default_factory=list)
    insider: InsiderActivity


class SocialReport(AnalystReport):
    analyst: Literal["social"] = "social"
    posts: int = 0
    bullish: int = 0
    bearish: int = 0
    bot_flagged: int = 0  # posts flagged by the pump-bot rules, left out of the counts
    platforms: list[str] = Field(default_factory=list)


# --- debates and decisions ------------------------------------------------------------------------


class DebateTurn(_Model):
    side: InvestSide | RiskSide
    round: int = Field(ge=1)
    argument: str  # the turn as the desk reads it
    cites: list[str] = Field(default_factory=list)  # ids of the signals it rests on
    rebuts: str | None = None  # the id of the other side's point this turn answers
    score: float = 0.0  # the side's stance score from its cited evidence (documented in scoring)
    proposed_pct: float | None = None  # risk debate: the size this analyst argues for, % of capital


class InvestmentDecision(_Model):
    rating: Rating
    score: float  # the manager's net score the thresholds turned into the rating
    rationale: str
    bull_points: list[str] = Field(default_factory=list)  # signal ids that carried the decision
    bear_points: list[str] = Field(default_factory=list)
    lessons_used: list[str] = Field(default_factory=list)


class TradePlan(_Model):
    direction: Direction
    entry: float | None = None  # the last close at the run's date
    entry_basis: str
    position_pct: float = Field(ge=0.0, le=100.0)  # % of capital
    stop: float | None = None
    target: float | None = None
    stop_atr: float | None = None  # the stop's distance in ATRs
    target_atr: float | None = None
    risk_reward: float | None = None
    horizon_days: int = Field(ge=1)  # sessions
    rationale: str


class FinalDecision(_Model):
    rating: FinalRating
    position_pct: float = Field(ge=0.0, le=100.0)
    direction: Direction
    entry: float | None = None
    stop: float | None = None
    target: float | None = None
    horizon_days: int = Field(ge=1)
    rationale: str
    review_reason: str | None = None  # only with REVIEW
    lessons_used: list[str] = Field(default_factory=list)
