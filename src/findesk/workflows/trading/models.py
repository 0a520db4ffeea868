"""The trading desk's input and report.

Rules:
- The report names the company first (``identity``: ticker, CIK, name, exchange from the SEC tables at
  the run's date) and keeps every role's typed output: the four analyst reports, both debates turn by
  turn, the research manager's rating, the trader's plan and the risk manager's ``final_decision``.
- ``final_decision.rating`` is one of BUY / OVERWEIGHT / HOLD / UNDERWEIGHT / SELL, or REVIEW when a
  model's decision could not be parsed or validated (``final_decision.review_reason`` says why);
  ``final_decision.position_pct`` is the size in percent of capital.
- ``date`` is the decision date and the run's as-of date: nothing after it is read.
- ``user`` is bound by the interface to the caller (its decision log and reflections), never typed.
"""

from __future__ import annotations

import datetime as dt
from datetime import date

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from findesk.agents.roles.trading.models import (
    DebateTurn,
    FinalDecision,
    FundamentalsReport,
    Identity,
    InvestmentDecision,
    MarketReport,
    NewsReport,
    SocialReport,
    TradePlan,
)
from findesk.analytics.trading.params import DeskParams
from findesk.core.json_text import ObjectOrText
from findesk.guardrails.output_guard import GuardReport
from findesk.workflows.records import AgentRecord, ToolCallRecord

DISCLAIMER = (
    "A simulated research desk's rating for research and backtesting, computed from recorded data as of "
    "the decision date; not personal investment advice. Social sentiment is UNVERIFIED."
)
MAX_ROUNDS = 5


class TradeInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ticker: str = Field(description="US-listed company ticker, e.g. NVDA", min_length=1, max_length=16)
    date: dt.date | None = Field(
        None, description="Decision date (YYYY-MM-DD); default: the run's as-of date."
    )
    debate_rounds: int = Field(
        2, ge=1, le=MAX_ROUNDS, description="Bull/bear rounds (each side speaks once)."
    )
    risk_rounds: int = Field(2, ge=1, le=MAX_ROUNDS, description="Risk debate rounds (each analyst once).")
    params: ObjectOrText[DeskParams | None] = Field(
        None, description="Scoring thresholds; default: the documented ones."
    )
    user: SkipJsonSchema[str] = "local"


class TradeReport(BaseModel):
    run_id: str
    as_of: date
    data_mode: str
    mode: str
    identity: Identity
    params: DeskParams
    debate_rounds: int
    risk_rounds: int
    market: MarketReport
    fundamentals: FundamentalsReport
    news: NewsReport
    social: SocialReport
    investment_debate: list[DebateTurn]
    investment_decision: InvestmentDecision
    trader_plan: TradePlan
    risk_debate: list[DebateTurn]
    final_decision: FinalDecision
    lessons: dict[str, list[str]] = Field(default_factory=dict)  # per role, the past lessons injected
    memory_notes: list[str] = Field(default_factory=list)  # what the decision log scored or recorded
    warnings: list[str] = Field(default_factory=list)
    guard: GuardReport = Field(default_factory=GuardReport)
    agents: list[AgentRecord] = Field(default_factory=list)
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    disclaimer: str = DISCLAIMER
