"""Running the equity and macro specialists' deterministic policies on the real snapshot, as the
runtime does: each stage's calls concurrently through ``execute``, only the tools the role lists, then
the composer. No retrieval index is built in the test cache, as on a fresh install."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

from findesk.agents.role import Role
from findesk.agents.roles.research.findings import SpecialistInput, SpecialistReport, Subjects
from findesk.core.config import Settings
from findesk.core.result import Err
from findesk.data.context import resolve_context
from findesk.tools.base import ToolContext, ToolOutcome, execute
from findesk.tools.catalog import close_tool_context, default_registry, open_tool_context

AS_OF = date(2025, 8, 29)
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def open_ctx(snapshot_dir: Path, cache: Path) -> Iterator[ToolContext]:
    settings = Settings(snapshot_dir=snapshot_dir, cache_dir=cache, chains={})
    context = resolve_context(settings, mode="snapshot", as_of=AS_OF)
    assert not isinstance(context, Err), context
    opened = asyncio.run(open_tool_context(settings, context.value))
    assert not isinstance(opened, Err), opened
    yield opened.value
    asyncio.run(close_tool_context(opened.value))


def ask(question: str, template: str | None = None, **subjects: Any) -> SpecialistInput:
    return SpecialistInput(question=question, as_of=AS_OF, subjects=Subjects(**subjects), template=template)


async def _playbook(
    role: Role[Any, Any], inputs: SpecialistInput, ctx: ToolContext
) -> dict[str, ToolOutcome]:
    registry = default_registry()
    outcomes: dict[str, ToolOutcome] = {}
    for stage in role.policy.stages:
        planned = stage(inputs, outcomes)
        results = await asyncio.gather(
            *(
                execute(registry.get(p.tool) if p.tool in role.tools else None, p.tool, p.args, ctx)
                for p in planned
            )
        )
        outcomes.update({p.key: r for p, r in zip(planned, results, strict=True)})
    return outcomes


def run(
    role: Role[Any, Any], inputs: SpecialistInput, ctx: ToolContext
) -> tuple[SpecialistReport, dict[str, ToolOutcome]]:
    outcomes = asyncio.run(_playbook(role, inputs, ctx))
    report = role.policy.compose(inputs, outcomes)
    assert isinstance(report, SpecialistReport)
    not_allowed = [o.summary for o in outcomes.values() if "there is no tool called" in o.summary]
    assert not not_allowed, f"the playbook calls tools the role does not list: {not_allowed}"
    return report, outcomes


def by_quantity(report: SpecialistReport) -> dict[str, Any]:
    return {f.quantity: f for f in report.findings if f.quantity}
