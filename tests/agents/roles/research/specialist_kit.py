"""Run a specialist role's deterministic playbook on the real snapshot, the way the runtime does: each
stage's calls through the one executor, then the composer. Shared by the four desks' tests."""

from __future__ import annotations

import asyncio
from datetime import date
from pathlib import Path
from typing import Any

from findesk.agents.role import Role
from findesk.agents.roles.research.findings import SpecialistInput, SpecialistReport, Subjects
from findesk.core.config import Settings
from findesk.data.context import resolve_context
from findesk.tools.base import ToolContext, ToolOutcome, execute
from findesk.tools.catalog import default_registry, open_tool_context


async def open_context(snapshot_dir: Path, cache: Path) -> ToolContext:
    settings = Settings(snapshot_dir=snapshot_dir, cache_dir=cache, chains={})
    context = resolve_context(settings, mode="snapshot", as_of=date(2025, 8, 29)).unwrap()
    return (await open_tool_context(settings, context, factories=[])).unwrap()


async def run_specialist(
    role: Role[SpecialistInput, SpecialistReport],
    ctx: ToolContext,
    question: str,
    as_of: date = date(2025, 8, 29),
    **subjects: Any,
) -> tuple[SpecialistReport, dict[str, ToolOutcome]]:
    inputs = SpecialistInput(question=question, as_of=as_of, subjects=Subjects(**subjects))
    context = ctx.context.model_copy(update={"as_of": as_of, "as_of_is_default": False})
    return await run_playbook(role, inputs, ToolContext(ctx.router, ctx.sections, context))


async def run_playbook(
    role: Role[SpecialistInput, SpecialistReport], inputs: SpecialistInput, ctx: ToolContext
) -> tuple[SpecialistReport, dict[str, ToolOutcome]]:
    """The role's stages, each stage's calls concurrently through ``execute``, then its composer."""
    registry = default_registry()
    outcomes: dict[str, ToolOutcome] = {}
    for stage in role.policy.stages:
        calls = stage(inputs, outcomes)
        for name in {c.tool for c in calls}:
            assert name in role.tools, f"{role.name} plans {name}, which is not among its tools"
        done = await asyncio.gather(*(execute(registry.get(c.tool), c.tool, c.args, ctx) for c in calls))
        outcomes.update({c.key: o for c, o in zip(calls, done, strict=True)})
    return role.policy.compose(inputs, outcomes), outcomes
