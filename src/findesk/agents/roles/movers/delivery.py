"""The movers analyzer's delivery: the report mailed, or written as .eml on a dry run (code only; no model
ever lists this tool).

Rules:
- One call, ``send_report_email``, with the body the workflow rendered; the outcome (sent, written,
  not requested, failed with why) is the report, so the terminal step never stops the run.
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
from findesk.tools.report_email import Delivery


class DeliveryInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    subject: str
    text: str
    html: str
    chart_png_base64: str | None = None
    chart_filename: str = "chart.png"
    to: list[str] = Field(default_factory=list)
    dry_run: bool = False
    folder: str | None = None
    subfolder: str | None = None
    relative_paths: bool = False


def _stage(inputs: DeliveryInput, _outcomes: Outcomes) -> list[PlannedCall]:
    return [PlannedCall("mail", "send_report_email", inputs.model_dump(exclude_none=True))]


def compose(inputs: DeliveryInput, outcomes: Outcomes) -> Delivery:
    done: Delivery | None = outcome_value(outcomes, "mail")
    if done is not None:
        return done
    why = failure(outcomes, "mail")
    return Delivery(status="failed", recipients=inputs.to, subject=inputs.subject, reason=why)


ROLE: Role[DeliveryInput, Delivery] = code_role(
    name="movers_delivery",
    description="Mails the movers report (or writes the .eml on a dry run).",
    tool="send_report_email",
    input_schema=DeliveryInput,
    output_schema=Delivery,
    stage=_stage,
    compose=compose,
    task=lambda i: f"Deliver the report {i.subject!r}.",
)
