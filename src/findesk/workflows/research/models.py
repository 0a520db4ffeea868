"""The research desk's input and typed report.

Rules:
- The answer cites every fact by agent, tool and source: ``citations`` is the numbered list the
  answer's ``[n]`` markers point into, each one a tool result of this run.
- Conflicts between specialists are data (``conflicts``), shown in the answer, never silently
  resolved: newest data first, then source reliability, else both figures and "sources disagree".
- What a cap cut short is said (``cut_short``); a specialist that was not routed is absent, one that
  failed is present with its warnings.
- Research framing only: the disclaimer is appended unless a ``team``-tier key turned it off.
"""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from findesk.agents.roles.research.conflicts import Conflict
from findesk.agents.roles.research.findings import Chart, Citation, SpecialistReport, Subjects
from findesk.guardrails.output_guard import GuardReport
from findesk.knowledge.memory.models import SESSION_PATTERN
from findesk.workflows.records import AgentRecord, ToolCallRecord

DISCLAIMER = (
    "For research only: findesk reports figures from filings, market, macro, on-chain and sanctions data "
    "with their sources; it does not give investment, legal or compliance advice, recommendations, price "
    "targets or allocations."
)


class ResearchInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=2000, description="The research question.")
    session: str | None = Field(
        None,
        pattern=SESSION_PATTERN,
        description="Session id: a follow-up in the same session resolves against the earlier questions.",
    )
    disclaimer: bool = Field(
        True, description="Append the disclaimer (only a team-tier key may turn it off)."
    )
    # Set by the interface from the caller (the API key), never taken from a request body: whose session
    # and facts the run reads and writes. Hidden from the input schema (forms, docs).
    user: SkipJsonSchema[str] = "local"


class ResearchReport(BaseModel):
    run_id: str
    question: str  # as asked
    resolved_question: str  # with the session's subject filled in for a follow-up
    as_of: date
    session: str | None = None
    data_mode: str
    mode: str  # "deterministic" / "model"
    intents: list[str]  # the specialists routed to, in order
    plan: str  # the coordinator's one-line plan
    subjects: Subjects
    answer: str  # Markdown, [n] markers into citations
    citations: list[Citation] = Field(default_factory=list)
    specialists: dict[str, SpecialistReport] = Field(default_factory=dict)
    conflicts: list[Conflict] = Field(default_factory=list)
    charts: list[Chart] = Field(default_factory=list)
    cut_short: list[str] = Field(default_factory=list)  # what a cap stopped
    disclaimer: str | None = DISCLAIMER
    warnings: list[str] = Field(default_factory=list)
    guard: GuardReport = Field(default_factory=GuardReport)
    agents: list[AgentRecord] = Field(default_factory=list)
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    round_trips: int = 0
