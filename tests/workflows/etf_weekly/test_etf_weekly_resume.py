"""A weekly run that stopped in the managing director's step resumes from its last checkpoint: the
finished agents (quant, news, senior) are not run again, the same run id continues, and the report is
whole."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from etf_kit import WEEK, growth_strategy

from findesk.agents.roles.etf_weekly import director
from findesk.core.config import Settings
from findesk.core.events.model import AgentStart
from findesk.core.events.trace import MemorySink
from findesk.core.result import Err, Ok
from findesk.data.context import resolve_context
from findesk.testing.fake_etf_models import director_reply, etf_models
from findesk.tools.base import ToolContext
from findesk.workflows.checkpoints import open_checkpointer
from findesk.workflows.etf_weekly.spec import SPEC
from findesk.workflows.runner import Resume, run_workflow


def test_a_stopped_week_resumes_without_rerunning_finished_agents(
    etf_settings: Settings, etf_tools: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = etf_settings.model_copy(update={"state_dir": tmp_path / "state"})
    real = director.normalize
    failed: list[int] = []

    def crash_once(out: Any, inputs: Any, basis: Any) -> Any:
        if not failed:  # the process fails in the director's step, after the senior's was saved
            failed.append(1)
            raise RuntimeError("planted crash in the director's step")
        return real(out, inputs, basis)

    monkeypatch.setattr(director, "normalize", crash_once)
    resolve, models = etf_models({"director": [director_reply(8.0)] * 10})
    context = resolve_context(settings, mode="snapshot", as_of=WEEK)
    assert isinstance(context, Ok)
    inputs = {
        "week_ending": WEEK,
        "strategy": growth_strategy().model_dump(mode="json"),
        "out": str(tmp_path),
    }

    async def go() -> tuple[Any, Any, str, int]:
        async with open_checkpointer(settings, allow=SPEC.state_classes()) as opened:
            assert isinstance(opened, Ok), opened
            saver = opened.value
            first = MemorySink()
            stopped = await run_workflow(
                SPEC,
                inputs,
                settings=settings,
                context=context.value,
                sinks=[first],
                mode="model",
                models=resolve,
                tools=etf_tools,
                checkpointer=saver,
            )
            senior_calls = len(models["senior"].requests)
            opening = next(e for e in first.events if e.parent_id is None and isinstance(e.data, AgentStart))
            assert isinstance(opening.data, AgentStart)
            raw = SPEC.inputs_from_opening(opening.data.inputs)
            done = await run_workflow(
                SPEC,
                raw,
                settings=settings,
                context=context.value,
                mode="model",
                models=resolve,
                tools=etf_tools,
                checkpointer=saver,
                resume=Resume(list(first.events)),
            )
            return stopped, done, opening.run_id, senior_calls

    stopped, done, run_id, senior_calls = asyncio.run(go())
    assert isinstance(stopped, Err) and "planted crash" in stopped.reason
    assert not isinstance(done, Err), done
    report = done.value.report
    assert report.run_id == run_id and report.symbol_profiles and report.director.quality_score == 8.0
    assert len(models["senior"].requests) == senior_calls == 1  # the senior analyst ran once
    assert len(models["sector"].requests) == len(report.news)  # each sector searched once
    assert len(models["director"].requests) == 2  # the failed step, then the resumed one
