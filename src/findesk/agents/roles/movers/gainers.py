"""The movers analyzer's screen: the session's top NASDAQ gainers (code only).

Rules:
- One call: ``get_nasdaq_gainers`` with the input's filters, at the run's as-of date.
- ``no_data`` when the call failed or nothing rose after the screen; the summary names the top gainers
  with the table's own figures.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from findesk.agents.role import (
    Outcomes,
    PlannedCall,
    Role,
    outcome_value,
)
from findesk.agents.roles.movers.code_role import code_role, failure
from findesk.agents.roles.movers.models import GainersReport
from findesk.analytics.movers.models import GainerFilters, GainersBoard


class GainersInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    filters: GainerFilters = Field(default_factory=GainerFilters)


def _stage(inputs: GainersInput, _outcomes: Outcomes) -> list[PlannedCall]:
    return [PlannedCall("gainers", "get_nasdaq_gainers", inputs.filters.model_dump())]


def compose(_inputs: GainersInput, outcomes: Outcomes) -> GainersReport:
    board: GainersBoard | None = outcome_value(outcomes, "gainers")
    if board is None:
        why = failure(outcomes, "gainers")
        return GainersReport(status="no_data", summary=f"No gainers: {why}", warnings=[why])
    if not board.gainers:
        why = f"no NASDAQ common stock rose on {board.session.isoformat()} after the screen"
        return GainersReport(
            status="no_data", summary=why.capitalize() + ".", warnings=[*board.warnings, why], board=board
        )
    top = ", ".join(f"{r.symbol} {r.pct_change:+g}% (${r.close:,.2f})" for r in board.gainers[:3])
    summary = (
        f"On {board.session.isoformat()}, {board.kept:,} of {board.universe:,} listings passed the NASDAQ "
        f"common-stock screen; top gainers: {top}."
    )
    return GainersReport(status="ok", summary=summary, warnings=list(board.warnings), board=board)


ROLE: Role[GainersInput, GainersReport] = code_role(
    name="movers_gainers",
    description="The session's top NASDAQ gainers (common stock, price/volume/cap floors).",
    tool="get_nasdaq_gainers",
    input_schema=GainersInput,
    output_schema=GainersReport,
    stage=_stage,
    compose=compose,
    task=lambda i: f"List the top NASDAQ gainers with this screen: {i.filters.model_dump_json()}",
)
