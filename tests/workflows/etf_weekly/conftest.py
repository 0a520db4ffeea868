"""One open tool context on the snapshot for the weekly ETF analyst's workflow tests, a runner that
runs it as a user would (a strategy and a week in; the report, its events and its run folder out),
and the two weeks most tests read: the week ending 2025-05-23 under the default strategy (little
news: the protocol's week) and under the growth-sectors strategy (news in every sector).

Runs write their folders under a temporary directory; MLflow, when installed, logs there too."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from findesk.agents.runtime import ModelResolver
from findesk.core.config import Settings
from findesk.core.events.model import Event
from findesk.core.events.trace import MemorySink
from findesk.core.result import Err
from findesk.data.context import resolve_context
from findesk.tools.base import ToolContext
from findesk.workflows.etf_weekly.config import StrategyConfig, load_strategy
from findesk.workflows.etf_weekly.models import EtfWeeklyReport
from findesk.workflows.etf_weekly.spec import SPEC
from findesk.workflows.runner import run_workflow
from snapshot_kit import snapshot_tools

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


@pytest.fixture(scope="module")
def etf_settings(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return Settings(
        snapshot_dir=snapshot_dir,
        cache_dir=tmp_path_factory.mktemp("etf-cache"),
        state_dir=tmp_path_factory.mktemp("etf-state"),
        chains={},
    )


@pytest.fixture(scope="module")
def etf_tools(etf_settings: Settings) -> Iterator[ToolContext]:
    yield from snapshot_tools(etf_settings, WEEK)


def run_weekly(
    settings: Settings,
    tools: ToolContext,
    inputs: dict[str, Any],
    *,
    as_of: str = WEEK,
    mode: str = "deterministic",
    models: ModelResolver | None = None,
) -> WeeklyRun:
    context = resolve_context(settings, mode="snapshot", as_of=as_of)
    assert not isinstance(context, Err), context
    sink = MemorySink()
    done = asyncio.run(
        run_workflow(
            SPEC,
            inputs,
            settings=settings,
            context=context.value,
            sinks=[sink],
            mode=mode,  # type: ignore[arg-type]
            models=models,
            tools=tools,
        )
    )
    report = done if isinstance(done, Err) else done.value.report
    return WeeklyRun(report, list(sink.events))


@pytest.fixture(scope="module")
def default_week(
    etf_settings: Settings, etf_tools: ToolContext, tmp_path_factory: pytest.TempPathFactory
) -> WeeklyRun:
    out = tmp_path_factory.mktemp("default-runs")
    return run_weekly(etf_settings, etf_tools, {"week_ending": WEEK, "out": str(out)})


@pytest.fixture(scope="module")
def growth_week(
    etf_settings: Settings, etf_tools: ToolContext, tmp_path_factory: pytest.TempPathFactory
) -> WeeklyRun:
    out = tmp_path_factory.mktemp("growth-runs")
    strategy = growth_strategy().model_dump(mode="json")
    return run_weekly(etf_settings, etf_tools, {"week_ending": WEEK, "strategy": strategy, "out": str(out)})
