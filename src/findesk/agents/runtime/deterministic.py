"""The deterministic policy: run the playbook stage by stage, then compose.

Rules:
- Calls within a stage run concurrently; stages run in order, each seeing earlier outcomes.
- The composer always runs, whatever failed: failed calls reach it as ``Err`` outcomes, and it turns
  them into visible warnings in the output rather than gaps.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

from findesk.agents.role import Outcomes, Role
from findesk.agents.runtime.tool_runner import CallRequest, ToolRunner
from findesk.tools.base import ToolOutcome

OutT = TypeVar("OutT", bound=BaseModel)
MAX_STAGES = 8


async def run_playbook(
    role: Role[Any, Any],
    inputs: BaseModel,
    runner: ToolRunner,
    *,
    prefetch: bool = False,
    id_prefix: str = "pb",
) -> dict[str, ToolOutcome]:
    outcomes: dict[str, ToolOutcome] = {}
    for index, stage in enumerate(role.policy.stages[:MAX_STAGES]):
        planned = stage(inputs, outcomes)
        requests = [CallRequest(f"{id_prefix}{index + 1}-{p.key}", p.tool, p.args) for p in planned]
        results = await runner.run_many(requests, prefetch=prefetch)
        outcomes.update({p.key: r for p, r in zip(planned, results, strict=True)})
    return outcomes


def compose(role: Role[Any, OutT], inputs: BaseModel, outcomes: Outcomes) -> OutT:
    output = role.policy.compose(inputs, outcomes)
    if not isinstance(output, role.output_schema):
        raise TypeError(
            f"the composer of {role.name} returned {type(output).__name__}, not {role.output_schema.__name__}"
        )
    return output
