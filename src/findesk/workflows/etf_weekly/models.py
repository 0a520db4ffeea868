"""The weekly ETF analyst's input and report.

Rules:
- The report keeps every agent's typed output under the design's names (``market_context``,
  ``sector_groups``, ``symbol_profiles``, ``news``, ``senior``, ``director``); a revision by the senior
  analyst after the managing director sent sectors back is kept beside the first version.
- ``config`` (a path) and ``out`` (a folder) are for local runs (CLI, Python API); over HTTP the
  strategy travels as ``strategy`` and the server chooses where runs are written.
"""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from findesk.agents.roles.etf_weekly.models import (
    DirectorReview,
    MarketContext,
    MarketOverview,
    SectorGroup,
    SectorNews,
    SeniorReview,
    SymbolProfile,
)
from findesk.analytics.etf.models import DataFlag, PriceSeries
from findesk.core.json_text import ObjectOrText
from findesk.guardrails.output_guard import GuardReport
from findesk.workflows.etf_weekly.config import StrategyConfig
from findesk.workflows.records import AgentRecord, ToolCallRecord

DISCLAIMER = (
    "Research screen, not investment advice: flags rate the evidence behind each week's move, not whether "
    "to buy or sell. Figures are computed from recorded prices; news is third-party reporting."
)


class EtfWeeklyInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    config: str | None = Field(None, description="Strategy YAML file (local runs only).", max_length=1000)
    strategy: ObjectOrText[StrategyConfig | None] = Field(
        None, description="The strategy as an object (what the YAML file holds); over HTTP instead of config."
    )
    week_ending: date | None = Field(
        None, description="The week's last day (YYYY-MM-DD); default: the run's as-of date."
    )
    out: str | None = Field(None, description="Folder for run folders (local runs only).", max_length=1000)
    # set by the interface and the run's preparation, never typed by a user: an HTTP run writes under
    # the server's folder; ``watch`` holds last week's GREEN funds, to see whether they mean-reverted
    server: SkipJsonSchema[bool] = False
    watch: SkipJsonSchema[list[str]] = []


class HistoryEntry(BaseModel):
    """One run's figures as the week-over-week history keeps them."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    week_end: date
    strategy_hash: str
    candidates: int
    sectors: int
    evidence: dict[str, int]  # strong / weak / none -> sectors
    flags: dict[str, int]  # GREEN / YELLOW / RED -> symbols
    quality_score: float
    model_calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    green: list[str] = Field(default_factory=list)  # the week's GREEN symbols
    # did last week's GREEN flags mean-revert? symbol -> this week's return (%) of last week's GREENs
    follow_up: dict[str, float] = Field(default_factory=dict)


class EtfWeeklyReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    run_id: str
    as_of: date
    week_start: date
    week_end: date
    data_mode: str
    mode: str
    strategy: StrategyConfig
    strategy_hash: str
    # the quant analyst's output, under the design's names
    market_context: MarketContext
    sector_groups: dict[str, SectorGroup] = Field(default_factory=dict)
    symbol_profiles: dict[str, SymbolProfile] = Field(default_factory=dict)
    excluded: dict[str, int] = Field(default_factory=dict)  # reason -> funds not ranked for it
    data_flags: list[DataFlag] = Field(default_factory=list)  # bad ticks and split artefacts caught
    price_source: str = ""
    overview: MarketOverview | None = None
    news: dict[str, SectorNews] = Field(default_factory=dict)
    senior: SeniorReview
    senior_first: SeniorReview | None = None  # the first pass, when the MD sent sectors back
    director: DirectorReview
    director_first: DirectorReview | None = None  # the review that sent sectors back
    charts: dict[str, PriceSeries] = Field(default_factory=dict)
    watched: dict[str, float] = Field(default_factory=dict)  # last week's GREEN funds: this week's return (%)
    history: list[HistoryEntry] = Field(default_factory=list)  # earlier weeks of the same strategy
    output_dir: str | None = None
    disclaimer: str = DISCLAIMER
    warnings: list[str] = Field(default_factory=list)
    guard: GuardReport
    agents: list[AgentRecord] = Field(default_factory=list)
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
