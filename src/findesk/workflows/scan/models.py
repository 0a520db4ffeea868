"""The market scanner's input and report.

Rules:
- ``date`` is the scan's date and the run's as-of date: nothing after it is read. A date after the
  run's as-of date is refused with the command to run instead.
- The report keeps every phase's typed report (its board holds the tools' figures), the three sectors
  the deep dive covered, and the synthesis (``stocks_to_investigate``: 8-10 candidates, each named on a
  phase 1-2 board). ``synthesis`` is None only when the boards hold fewer than 8 candidates; the
  warnings say why.
- Candidates are ideas to research, never advice (``disclaimer``).
"""

from __future__ import annotations

import datetime as dt
from datetime import date

from pydantic import BaseModel, ConfigDict, Field

from findesk.agents.roles.scan.models import (
    GeopoliticalReport,
    IndustryReport,
    MoversReport,
    SectorReport,
    SynthesisReport,
)
from findesk.guardrails.output_guard import GuardReport
from findesk.workflows.records import AgentRecord, ToolCallRecord

DISCLAIMER = (
    "A market scan computed from recorded data as of the scan's date: the stocks listed are ideas to "
    "research, not investment advice or a recommendation to buy or sell."
)


class ScanInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    date: dt.date | None = Field(None, description="Scan date (YYYY-MM-DD); default: the run's as-of date.")


class ScanReport(BaseModel):
    run_id: str
    date: date  # the scan's date (the run's as-of date)
    data_mode: str
    mode: str
    top_sectors: list[str] = Field(default_factory=list)  # the sectors the deep dive covered
    geopolitical: GeopoliticalReport
    movers: MoversReport
    sectors: SectorReport
    industries: IndustryReport
    synthesis: SynthesisReport | None = None
    warnings: list[str] = Field(default_factory=list)
    guard: GuardReport = Field(default_factory=GuardReport)
    agents: list[AgentRecord] = Field(default_factory=list)
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    disclaimer: str = DISCLAIMER
