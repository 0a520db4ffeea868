"""The scan-to-trade pipeline's input and report.

Rules:
- ``date`` is the scan's and every desk run's decision date, and the run's as-of date.
- ``top`` (1-5, default 3): how many of the scan's candidates go to the trading desk, by conviction
  (high first) then the scan's order.
- Every candidate sent to the desk is a row: ``ok`` with the desk's rating and size and the child run's
  id, ``refused`` with the desk's reason (not a company: a fund, no CIK), or ``failed`` with the error;
  never dropped silently.
- ``budget_usd`` is the whole pipeline's model budget (the run's ``[llm] budget_usd``), one ledger
  shared by the scan and every desk run; ``spent_usd`` is what they spent together.
- ``user`` is bound by the interface to the caller (the desk runs' decision log), never typed.
- ``executor`` and ``address`` (local-only: a remote caller can never point the server at a cluster) say
  where the desk runs go: in this process (default, ``[executor]`` permitting) or on Ray (``fanout``).
"""

from __future__ import annotations

import datetime as dt
from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from findesk.agents.roles.scan.models import Candidate, Conviction
from findesk.analytics.scan.models import Angle
from findesk.workflows.records import AgentRecord, ToolCallRecord

MAX_TOP = 5
DISCLAIMER = (
    "A simulated scan-to-trade pipeline on recorded data as of the date: the scan lists ideas to research "
    "and the desk's ratings are a research simulation, not personal investment advice."
)


class PipelineInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    date: dt.date | None = Field(
        None, description="Scan and decision date (YYYY-MM-DD); default: the as-of date."
    )
    top: int = Field(3, ge=1, le=MAX_TOP, description="Candidates sent to the trading desk (1-5).")
    executor: Literal["local", "ray"] | None = Field(
        None,
        description="Where the desk runs go: local (in this process, the default) or ray (a Ray cluster).",
    )
    address: str | None = Field(
        None, description="The Ray cluster's HOST:PORT (implies --executor ray); none: a private local Ray."
    )
    user: SkipJsonSchema[str] = "local"


class DeskRow(BaseModel):
    ticker: str
    sector: str
    angle: Angle
    conviction: Conviction
    status: Literal["ok", "refused", "failed"]
    run_id: str  # the child desk run (``findesk runs show RUN_ID``), refused runs included
    rating: str | None = None  # the risk manager's final rating
    position_pct: float | None = None  # percent of capital
    direction: str | None = None
    headline: str = ""  # the desk's one line, or why it did not rate
    cost_usd: float = 0.0
    mode: str | None = None  # the desk run's: deterministic, or model when any of its agents used one


class PipelineReport(BaseModel):
    run_id: str
    date: date
    data_mode: str
    mode: str
    top: int
    scan_run_id: str | None = None
    scan_status: Literal["ok", "no_candidates", "failed"]
    scan_headline: str = ""
    candidates: list[Candidate] = Field(default_factory=list)  # the scan's full list, in its order
    rows: list[DeskRow] = Field(default_factory=list)  # the desk runs, in the order sent
    budget_usd: float = 0.0
    spent_usd: float = 0.0
    cost_usd: float = 0.0  # the scan's and the desk runs' reported costs
    warnings: list[str] = Field(default_factory=list)
    agents: list[AgentRecord] = Field(default_factory=list)
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    disclaimer: str = DISCLAIMER
