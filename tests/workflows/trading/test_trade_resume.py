"""A trading-desk run killed in the risk manager's step resumes from its last checkpoint: the analysts
and the debates are not run again, the same run id continues, and the decision is whole."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from trade_kit import NVDA_DAY

from findesk.agents.roles.trading import risk_manager
from findesk.core.config import Settings
from findesk.core.events.model import AgentStart
from findesk.core.events.trace import MemorySink
from findesk.core.result import Err, Ok
from findesk.data.context import resolve_context
from findesk.testing.fake_trade_models import trade_models
from findesk.tools.base import ToolContext
from findesk.workflows.checkpoints import open_checkpointer
from findesk.workflows.runner import Resume, run_workflow
from findesk.workflows.trading.spec import SPEC


def test_a_stopped_desk_resumes_without_rerunning_finished_roles(
    trade_settings: Settings, trade_tools: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = trade_settings.model_copy(update={"state_dir": tmp_path / "state"})
    real = risk_manager.normalize
    failed: list[int] = []

    def crash_once(out: Any, inputs: Any, basis: Any) -> Any:
        if not failed:  # the process fails in the risk manager's step, after the risk debate was saved
            failed.append(1)
            raise RuntimeError("planted crash in the risk manager's step")
        return real(out, inputs, basis)

    monkeypatch.setattr(risk_manager, "normalize", crash_once)
    resolve, models = trade_models()
    context = resolve_context(settings, mode="snapshot", as_of=NVDA_DAY)
    assert isinstance(context, Ok)
    inputs = {"ticker": "NVDA", "date": NVDA_DAY}

    async def go() -> tuple[Any, Any, str, dict[str, int]]:
        async with open_checkpointer(settings, allow=SPEC.state_classes()) as opened:
            assert isinstance(opened, Ok), opened
            saver = opened.value
            first = MemorySink()
            stopped = await run_workflow(
                SPEC, inputs, settings=settings, context=context.value, sinks=[first], mode="model",
                models=resolve, tools=trade_tools, checkpointer=saver,
            )  # fmt: skip
            calls = {kind: len(m.requests) for kind, m in models.items()}
            opening = next(e for e in first.events if e.parent_id is None and isinstance(e.data, AgentStart))
            assert isinstance(opening.data, AgentStart)
            done = await run_workflow(
                SPEC, SPEC.inputs_from_opening(opening.data.inputs), settings=settings,
                context=context.value, mode="model", models=resolve, tools=trade_tools, checkpointer=saver,
                resume=Resume(list(first.events)),
            )  # fmt: skip
            return stopped, done, opening.run_id, calls

    stopped, done, run_id, calls = asyncio.run(go())
    assert isinstance(stopped, Err) and "planted crash" in stopped.reason
    assert not isinstance(done, Err), done
    report = done.value.report
    assert report.run_id == run_id and report.final_decision.rating != "REVIEW"
    assert len(report.investment_debate) == 4 and len(report.risk_debate) == 6
    for kind in ("bull", "bear", "manager", "trader", "risk", "market", "news"):
        assert len(models[kind].requests) == calls[kind], kind  # not run again
    assert len(models["risk_manager"].requests) == calls["risk_manager"] + 1  # the resumed step
