"""How a research specialist role is made: one factory for the four desks, so their input and output
schemas, model tier, caps and the shape of their task are the same by construction.

Rules:
- A desk supplies only what differs: its name, prompt, tools, playbook stage and compose, and the
  subjects line of its task (what it was routed); the task always opens with the question and the
  as-of date and closes with what to report.
"""

from __future__ import annotations

from collections.abc import Callable

from findesk.agents.role import Caps, DeterministicPolicy, Outcomes, PlannedCall, Role
from findesk.agents.roles.research.findings import SpecialistInput, SpecialistReport

REPORT_ASK = (
    "Report cited findings (quantity, value, unit and observed date on single-figure findings) and "
    "warnings for what is missing."
)


def specialist_task(inputs: SpecialistInput, subjects: str, ask: str = REPORT_ASK) -> str:
    """The user message of a desk's model run: question, as-of date, its routed subjects, the ask."""
    return f"Question: {inputs.question}\nAs of: {inputs.as_of.isoformat()}\n{subjects}\n{ask}"


def specialist_role(
    *,
    name: str,
    description: str,
    system_prompt: str,
    tools: tuple[str, ...],
    stage: Callable[[SpecialistInput, Outcomes], list[PlannedCall]],
    compose: Callable[[SpecialistInput, Outcomes], SpecialistReport],
    task: Callable[[SpecialistInput], str],
    max_tool_calls_per_turn: int = 8,
) -> Role[SpecialistInput, SpecialistReport]:
    return Role(
        name=name,
        description=description,
        system_prompt=system_prompt,
        tools=tools,
        input_schema=SpecialistInput,
        output_schema=SpecialistReport,
        policy=DeterministicPolicy(stages=(stage,), compose=compose),
        task=task,
        tier="mid",
        caps=Caps(
            max_iterations=4, max_tokens_per_call=3072, max_tool_calls_per_turn=max_tool_calls_per_turn
        ),
    )
