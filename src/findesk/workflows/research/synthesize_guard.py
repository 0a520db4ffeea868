"""The output guard of the research answer.

Rules:
- Investment advice is removed sentence by sentence; every number of the answer must be in the run's
  tool results (the number pool).
- A model-written answer with a number no tool gave is not shown: the deterministic answer (built from
  the same findings by code) replaces it; the guard report keeps the numbers caught and a warning
  names them. A deterministic
  answer is built from tool figures, so an untraced number there is reported, not replaced.
"""

from __future__ import annotations

from findesk.agents.roles.research.synthesize import Synthesis
from findesk.guardrails.output_guard import OutputGuard


def guarded_answer(
    guard: OutputGuard, answer: Synthesis, fallback: Synthesis, *, model: bool
) -> tuple[str, list[str]]:
    before = len(guard.untraced)
    text = guard.text(answer.answer)
    caught = guard.untraced[before:]
    if model and caught:
        numbers = ", ".join(sorted({u.text for u in caught}))
        replaced = guard.text(fallback.answer)
        return replaced, [
            f"fabricated_number: the model's answer stated {numbers}, which no tool result of this run "
            "contains; the desk's own answer from the findings is shown instead"
        ]
    return text, []
