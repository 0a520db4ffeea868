"""The movers analyzer's input and report.

Rules:
- ``date`` is the session analyzed and the run's as-of date: nothing after it is read; a later date is
  refused with the command to run instead.
- The report names the chosen ``symbol`` (the top NASDAQ gainer after the screen, or None with the
  reason) and its ``metrics``: code's independent computation, which the sandboxed program's output
  matched (``metrics_check``); a program that was stopped or disagreed is named in ``warnings``.
- ``email`` and ``out`` are for local callers (a remote caller may not mail arbitrary addresses from
  the server or write its folders); recipients otherwise come from ``[email] to``. A remote caller's
  run (``server``) names its files relative to the server's movers folder, never by a server path.
- Figures are facts about a past session, never advice (``disclaimer``).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from findesk.agents.roles.movers.models import GainersReport, HistoryReport, NewsReport
from findesk.analytics.movers.models import GainerFilters, MoverMetrics, Origin
from findesk.guardrails.output_guard import GuardReport
from findesk.tools.movers import DEFAULT_SESSIONS, MAX_SESSIONS, MIN_SESSIONS, AnalyzerRun
from findesk.tools.report_email import Delivery
from findesk.workflows.records import AgentRecord, ToolCallRecord

DISCLAIMER = (
    "Facts about a past session computed from recorded data: a large one-day move is not a signal to buy "
    "or sell, and nothing here is investment advice."
)


class MoversInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    date: dt.date | None = Field(None, description="The session (YYYY-MM-DD); default: the run's as-of date.")
    top: int = Field(5, ge=1, le=20, description="Gainers listed (the first is analyzed).")
    sessions: int = Field(
        DEFAULT_SESSIONS,
        ge=MIN_SESSIONS,
        le=MAX_SESSIONS,
        description="History window in sessions (21: a month).",
    )
    email: str | None = Field(
        None,
        max_length=2_000,
        description="Recipients, comma-separated (default: [email] to). Local runs only.",
    )
    filters: GainerFilters | None = Field(
        None, description="The screen's floors (default: the [movers] settings: price, volume, market cap)."
    )
    dry_run: bool = Field(False, description="Write the email as .eml instead of sending it.")
    out: Path | None = Field(None, description="Folder for the run's files (default: <state_dir>/movers).")
    # set by the interface, never typed by a user: an HTTP run shows no path of the server's disk
    server: SkipJsonSchema[bool] = False


class ProgramRun(BaseModel):
    """One run of an analysis program in the sandbox, as the report shows it."""

    model_config = ConfigDict(extra="forbid")

    origin: Origin
    explanation: str = ""
    source: str  # the program's text, as it ran
    run: AnalyzerRun | None = None  # None: it could not run (no sandbox)
    problems: list[str] = Field(default_factory=list)  # disagreements with the independent computation
    accepted: bool = False


class MoversReport(BaseModel):
    run_id: str
    date: dt.date
    data_mode: str
    mode: str
    symbol: str | None = None
    name: str | None = None
    gainers: GainersReport
    history: HistoryReport | None = None
    news: NewsReport | None = None
    metrics: MoverMetrics | None = None
    metrics_check: Literal["sandbox_matched", "code_only", "none"] = "none"
    programs: list[ProgramRun] = Field(default_factory=list)  # in the order they ran
    chart_png_base64: str | None = None
    delivery: Delivery | None = None
    output_dir: str | None = None
    warnings: list[str] = Field(default_factory=list)
    guard: GuardReport = Field(default_factory=GuardReport)
    agents: list[AgentRecord] = Field(default_factory=list)
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    disclaimer: str = DISCLAIMER
