"""The trading desk's test kit: a runner that runs it as a user would (a ticker and a date in; the report
and its events out) and the must-show cases. Fixtures that use it are in this folder's conftest."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from findesk.agents.runtime import ModelResolver
from findesk.core.config import Settings
from findesk.core.events.model import Event
from findesk.core.result import Err
from findesk.tools.base import ToolContext
from findesk.workflows.trading.models import TradeReport
from findesk.workflows.trading.spec import SPEC
from workflow_kit import run_spec

NVDA_DAY = "2024-05-10"
# the must-show run and three more tickers on dates the snapshot covers
CASES = (("NVDA", NVDA_DAY), ("AAPL", "2025-08-29"), ("MSFT", "2025-08-29"), ("JPM", "2024-05-10"))


@dataclass
class TradeRun:
    report: TradeReport | Err
    events: list[Event]

    @property
    def ok(self) -> TradeReport:
        assert not isinstance(self.report, Err), self.report
        return self.report


def run_trade(
    settings: Settings,
    tools: ToolContext | None,
    inputs: dict[str, Any],
    *,
    as_of: str | None = None,
    mode: str = "deterministic",
    models: ModelResolver | None = None,
    user: str | None = None,
) -> TradeRun:
    if user is not None:
        from findesk.workflows.spec import RunCaller

        parsed = SPEC.parse(inputs)
        assert not isinstance(parsed, Err), parsed
        bound = SPEC.bind(parsed.value, RunCaller(user=user))
        assert not isinstance(bound, Err), bound
        inputs = bound.value.model_dump(mode="json")
    day = as_of or inputs.get("date") or NVDA_DAY
    report, events = run_spec(SPEC, settings, tools, inputs, as_of=day, mode=mode, models=models)
    return TradeRun(report, events)
