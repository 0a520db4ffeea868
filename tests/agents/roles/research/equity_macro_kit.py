"""Running the equity and macro specialists' deterministic policies on the real snapshot, as the
runtime does: each stage's calls concurrently through ``execute``, only the tools the role lists, then
the composer. No retrieval index is built in the test cache, as on a fresh install."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

from specialist_kit import run_playbook

from findesk.agents.role import Role
from findesk.agents.roles.research.findings import SpecialistInput, SpecialistReport, Subjects
from findesk.core.config import Settings
from findesk.tools.base import ToolContext, ToolOutcome
from snapshot_kit import snapshot_tools

AS_OF = date(2025, 8, 29)
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def open_ctx(snapshot_dir: Path, cache: Path) -> Iterator[ToolContext]:
    yield from snapshot_tools(Settings(snapshot_dir=snapshot_dir, cache_dir=cache, chains={}), AS_OF)


def ask(question: str, template: str | None = None, **subjects: Any) -> SpecialistInput:
    return SpecialistInput(question=question, as_of=AS_OF, subjects=Subjects(**subjects), template=template)


def run(
    role: Role[SpecialistInput, SpecialistReport], inputs: SpecialistInput, ctx: ToolContext
) -> tuple[SpecialistReport, dict[str, ToolOutcome]]:
    return asyncio.run(run_playbook(role, inputs, ctx))


def by_quantity(report: SpecialistReport) -> dict[str, Any]:
    return {f.quantity: f for f in report.findings if f.quantity}
