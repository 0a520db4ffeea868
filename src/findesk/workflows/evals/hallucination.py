"""``findesk eval hallucination``: over the golden runs, the share of numbers in the answers that no
tool result of the same run contains.

Rules:
- The numbers counted are the ones the output guard's number trace reads (``guardrails.number_trace``:
  dates, years, item and form labels, small counts and citation markers are not data and are skipped).
- A number is grounded when a value of one of the run's tool results (as the audit log records it)
  explains it after the rounding the text implies, or when the question itself states it; otherwise it
  is counted as hallucinated, with its sentence, whatever the mode that wrote the answer.
- Pure scoring over finished runs (``workflows.research.evaluate.run_cases`` makes them).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from findesk.guardrails.number_trace import NumberCollector, count_numbers, untraced_numbers
from findesk.workflows import records
from findesk.workflows.research.evaluate import CaseRun


class CaseNumbers(BaseModel):
    id: str
    category: str
    numbers: int
    untraced: list[str] = Field(default_factory=list)  # "number — sentence"


class HallucinationResult(BaseModel):
    cases: int
    numbers: int
    untraced: int
    rate: float  # untraced / numbers
    by_case: list[CaseNumbers] = Field(default_factory=list)


def score_runs(runs: Sequence[CaseRun]) -> HallucinationResult:
    by_case: list[CaseNumbers] = []
    for run in runs:
        if run.report is None:
            continue
        pool = records.collect_tool_numbers(list(run.events), NumberCollector()).pool(run.case.question)
        answer = run.report.answer
        found = untraced_numbers(answer, pool)
        by_case.append(
            CaseNumbers(
                id=run.case.id,
                category=run.case.category,
                numbers=count_numbers(answer),
                untraced=[f"{u.text} — {u.sentence}" for u in found],
            )
        )
    numbers = sum(c.numbers for c in by_case)
    untraced = sum(len(c.untraced) for c in by_case)
    return HallucinationResult(
        cases=len(by_case),
        numbers=numbers,
        untraced=untraced,
        rate=round(untraced / numbers, 4) if numbers else 0.0,
        by_case=by_case,
    )


def report_lines(result: HallucinationResult) -> list[str]:
    lines = [
        "# Hallucinated numbers over the golden runs",
        "",
        f"- answers: {result.cases}",
        f"- numbers in the answers: {result.numbers}",
        f"- numbers no tool result of the run contains: {result.untraced} ({result.rate * 100:.2f} %)",
        "",
    ]
    for c in result.by_case:
        mark = "ok" if not c.untraced else f"{len(c.untraced)} untraced"
        lines.append(f"- `{c.id}` ({c.category}): {c.numbers} numbers, {mark}")
        lines += [f"  - {u}" for u in c.untraced]
    return lines
