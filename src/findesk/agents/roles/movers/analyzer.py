"""The movers analyzer's sandbox runner: ``python_analyzer`` on the payload with a program (code only).

Rules:
- One call; the program is the input's (the model's draft) or, when None, the reviewed program.
- ``no_data`` when the tool could not run at all (no sandbox: bubblewrap missing), with the reason;
  otherwise the run's status and reason are kept as they are, for the workflow's check.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from findesk.agents.role import (
    Outcomes,
    PlannedCall,
    Role,
    outcome_value,
)
from findesk.agents.roles.movers.code_role import code_role, failure
from findesk.agents.roles.movers.models import AnalysisReport
from findesk.analytics.movers.models import MoverPayload
from findesk.tools.movers import AnalyzerRun


class AnalyzerInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    payload: MoverPayload
    program: str | None = None


def _stage(inputs: AnalyzerInput, _outcomes: Outcomes) -> list[PlannedCall]:
    args: dict[str, object] = {"payload": inputs.payload.model_dump(mode="json")}
    if inputs.program is not None:
        args["program"] = inputs.program
    return [PlannedCall("run", "python_analyzer", args)]


def compose(_inputs: AnalyzerInput, outcomes: Outcomes) -> AnalysisReport:
    run: AnalyzerRun | None = outcome_value(outcomes, "run")
    if run is None:
        why = failure(outcomes, "run")
        return AnalysisReport(
            status="no_data", summary=f"The analysis program did not run: {why}", warnings=[why]
        )
    summary = f"The {run.origin} program ran in the sandbox: {run.status} in {run.duration_ms:,.0f} ms."
    return AnalysisReport(status="ok" if run.status == "ok" else "partial", summary=summary, run=run)


ROLE: Role[AnalyzerInput, AnalysisReport] = code_role(
    name="movers_python",
    description="Runs the analysis program on the movers payload inside the sandbox.",
    tool="python_analyzer",
    input_schema=AnalyzerInput,
    output_schema=AnalysisReport,
    stage=_stage,
    compose=compose,
    task=lambda i: f"Run the analysis on {i.payload.symbol}.",
)
