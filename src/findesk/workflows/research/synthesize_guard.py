"""The output guard of the research desk's answer and of each desk's findings.

Rules:
- Investment advice is removed sentence by sentence; every number must be in the run's number pool
  (its tool results and the desks' code-composed reports, never a model's own figures).
- Model-written prose with a number no tool gave is not shown: what code built from the same tool
  results replaces it (the deterministic answer, the desk's composed report); the guard report keeps
  the numbers caught and a warning names them. Code-built prose is made of tool figures, so an
  untraced number there is reported, not replaced.
- A desk's charts and structured data are not prose and are not scanned.
"""

from __future__ import annotations

from findesk.agents.roles.research.findings import SpecialistReport
from findesk.agents.roles.research.synthesize import Synthesis
from findesk.guardrails.output_guard import OutputGuard


def guarded_answer(
    guard: OutputGuard, answer: Synthesis, fallback: Synthesis, *, model: bool
) -> tuple[str, list[str]]:
    (text,), caught = guard.prose([answer.answer], [fallback.answer], replaceable=model)
    if model and caught:
        numbers = ", ".join(sorted({u.text for u in caught}))
        return text, [
            f"fabricated_number: the model's answer stated {numbers}, which no tool result of this run "
            "contains; the desk's own answer from the findings is shown instead"
        ]
    return text, []


def guarded_desk(
    guard: OutputGuard, report: SpecialistReport, basis: SpecialistReport
) -> tuple[SpecialistReport, list[str]]:
    """``report`` with its findings and warnings guarded; a model-written report (``report`` is not
    ``basis``) with an untraced number is replaced by ``basis``, guarded."""
    shown, caught = guard.checked(report, basis, part=lambda r: _guarded(guard, r))
    if not caught:
        return shown, []
    numbers = ", ".join(sorted({u.text for u in caught}))
    return shown, [
        f"fabricated_number: the {report.agent} desk's model findings stated {numbers}, which no tool "
        "result of this run contains; the desk's own findings from its tool results are shown instead"
    ]


def _guarded(guard: OutputGuard, report: SpecialistReport) -> SpecialistReport:
    return report.model_copy(
        update={
            "findings": [guard.model(f) for f in report.findings],
            "warnings": [guard.text(w) for w in report.warnings],
        }
    )
