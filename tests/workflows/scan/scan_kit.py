"""The market scanner's test kit: run it as a user would (a date in; the report and its events out)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from findesk.agents.runtime import ModelResolver
from findesk.core.config import Settings
from findesk.core.events.model import Event
from findesk.core.result import Err
from findesk.tools.base import ToolContext
from findesk.workflows.scan.models import ScanReport
from findesk.workflows.scan.spec import SPEC
from workflow_kit import run_spec

DAY = "2025-08-29"


@dataclass
class ScanRun:
    report: ScanReport | Err
    events: list[Event]

    @property
    def ok(self) -> ScanReport:
        assert not isinstance(self.report, Err), self.report
        return self.report


def run_scan(
    settings: Settings,
    tools: ToolContext | None,
    inputs: dict[str, Any] | None = None,
    *,
    as_of: str = DAY,
    mode: str = "deterministic",
    models: ModelResolver | None = None,
) -> ScanRun:
    report, events = run_spec(
        SPEC,
        settings,
        tools,
        inputs if inputs is not None else {"date": DAY},
        as_of=as_of,
        mode=mode,
        models=models,
    )
    return ScanRun(report, events)
