"""The movers analyzer's history: the chosen symbol's sessions against SPY (code only).

Rules:
- One call: ``get_history_vs_spy`` (default 21 sessions; a shorter window when data is short).
- ``partial`` when SPY is missing (the relative figures are omitted and the summary says why), or the
  window is shorter than asked; ``no_data`` when the history cannot be read.
"""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, ConfigDict, Field

from findesk.agents.role import (
    Outcomes,
    PlannedCall,
    Role,
    outcome_value,
)
from findesk.agents.roles.movers.code_role import code_role, failure
from findesk.agents.roles.movers.models import HistoryReport, Status
from findesk.tools.movers import DEFAULT_SESSIONS, MAX_SESSIONS, MIN_SESSIONS, MoverHistory


class HistoryInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    symbol: str
    date: dt.date
    sessions: int = Field(DEFAULT_SESSIONS, ge=MIN_SESSIONS, le=MAX_SESSIONS)


def _stage(inputs: HistoryInput, _outcomes: Outcomes) -> list[PlannedCall]:
    args = {"symbol": inputs.symbol, "date": inputs.date.isoformat(), "sessions": inputs.sessions}
    return [PlannedCall("history", "get_history_vs_spy", args)]


def compose(inputs: HistoryInput, outcomes: Outcomes) -> HistoryReport:
    h: MoverHistory | None = outcome_value(outcomes, "history")
    if h is None:
        why = failure(outcomes, "history")
        return HistoryReport(
            status="no_data", summary=f"No history for {inputs.symbol}: {why}", warnings=[why]
        )
    p = h.payload
    status: Status = "ok" if p.spy_close is not None and h.sessions_used == h.sessions_asked else "partial"
    basis = "split/dividend-adjusted" if h.adjusted else "as-traded"
    summary = (
        f"{p.symbol}: {len(p.dates)} sessions {p.dates[0].isoformat()} to {p.session.isoformat()} "
        f"({basis} closes)"
        + ("; SPY on the same sessions." if p.spy_close is not None else f"; {h.spy_note}")
    )
    return HistoryReport(status=status, summary=summary, warnings=list(h.warnings), history=h)


ROLE: Role[HistoryInput, HistoryReport] = code_role(
    name="movers_history",
    description="A symbol's recent sessions against SPY: the payload of the sandboxed analysis.",
    tool="get_history_vs_spy",
    input_schema=HistoryInput,
    output_schema=HistoryReport,
    stage=_stage,
    compose=compose,
    task=lambda i: f"Read the history of {i.symbol} to {i.date.isoformat()} against SPY.",
)
