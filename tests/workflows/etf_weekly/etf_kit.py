"""The weekly ETF analyst's test kit: a runner that runs it as a user would (a strategy and a week
in; the report and its events out), the week most tests read (2025-05-23) and the growth-sectors
strategy. Fixtures that use it are in this folder's conftest."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from findesk.agents.runtime import ModelResolver
from findesk.core.config import Settings
from findesk.core.events.model import Event
from findesk.core.result import Err
from findesk.tools.base import ToolContext
from findesk.workflows.etf_weekly.config import StrategyConfig, load_strategy
from findesk.workflows.etf_weekly.models import EtfWeeklyReport
from findesk.workflows.etf_weekly.spec import SPEC
from workflow_kit import run_spec

WEEK = "2025-05-23"
EXAMPLES = Path(__file__).parents[3] / "examples"


@dataclass
class WeeklyRun:
    report: EtfWeeklyReport | Err
    events: list[Event]

    @property
    def ok(self) -> EtfWeeklyReport:
        assert not isinstance(self.report, Err), self.report
        return self.report


def growth_strategy() -> StrategyConfig:
    loaded = load_strategy(EXAMPLES / "strategy_growth.yaml")
    assert not isinstance(loaded, Err), loaded
    return loaded.value


def run_weekly(
    settings: Settings,
    tools: ToolContext,
    inputs: dict[str, Any],
    *,
    as_of: str = WEEK,
    mode: str = "deterministic",
    models: ModelResolver | None = None,
) -> WeeklyRun:
    report, events = run_spec(SPEC, settings, tools, inputs, as_of=as_of, mode=mode, models=models)
    return WeeklyRun(report, events)
