"""``findesk pipeline --date 2025-08-29 --top 2``: the scan, then two desk runs in parallel, each a run of
its own in the audit log, one summary naming them; a fund the desk refuses is a row with the reason; and
every child's model calls are charged to the pipeline's one budget."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest

from findesk.agents.role import Role
from findesk.agents.runtime import Budget
from findesk.core.config import Settings
from findesk.core.events.audit import AuditLog, open_audit_log
from findesk.core.events.model import Done, Event, LlmCall, SectionReady
from findesk.core.events.trace import MemorySink
from findesk.core.llm.chain import ModelChain
from findesk.core.llm.types import ModelRequest, UserText
from findesk.core.result import Err, Ok, Result
from findesk.data.context import resolve_context
from findesk.testing.fake_models import ScriptedModel, reply
from findesk.testing.fake_scan_models import scan_models
from findesk.testing.fake_trade_models import PRICES, trade_models
from findesk.tools.base import ToolContext
from findesk.workflows.pipeline.budget import LedgerChain
from findesk.workflows.pipeline.graph import _row
from findesk.workflows.pipeline.models import PipelineReport
from findesk.workflows.pipeline.spec import SPEC
from findesk.workflows.runner import run_workflow
from findesk.workflows.scan.models import ScanReport
from findesk.workflows.trading.spec import SPEC as TRADE

DAY = "2025-08-29"


@dataclass
class Piped:
    report: PipelineReport | Err
    events: list[Event]
    audit: AuditLog

    @property
    def ok(self) -> PipelineReport:
        assert not isinstance(self.report, Err), self.report
        return self.report


def run_pipeline(
    settings: Settings,
    tools: ToolContext,
    inputs: dict[str, Any],
    *,
    mode: str = "deterministic",
    models: Any = None,
) -> Piped:
    context = resolve_context(settings, mode="snapshot", as_of=DAY)
    assert not isinstance(context, Err)
    opened = open_audit_log(settings)
    assert isinstance(opened, Ok), opened
    memory = MemorySink()
    done = asyncio.run(
        run_workflow(
            SPEC,
            inputs,
            settings=settings,
            context=context.value,
            sinks=[memory, opened.value],
            mode=mode,  # type: ignore[arg-type]
            models=models,
            tools=tools,
        )
    )
    opened.value.flush(10)
    return Piped(done if isinstance(done, Err) else done.value.report, list(memory.events), opened.value)


def _result(audit: AuditLog, run_id: str) -> dict[str, Any]:
    """A recorded run's report, from its ``done`` event in the audit log."""
    done = audit.events(run_id)[-1].data
    assert isinstance(done, Done), done
    return dict(done.result)


@pytest.fixture(scope="module")
def piped(pipe_settings: Settings, pipe_tools: ToolContext) -> Piped:
    return run_pipeline(pipe_settings, pipe_tools, {"date": DAY, "top": 2})


def test_top_2_runs_two_desk_runs_and_the_summary_names_them(piped: Piped) -> None:
    r = piped.ok
    assert r.scan_status == "ok" and 8 <= len(r.candidates) <= 10 and r.scan_run_id
    assert len(r.rows) == 2 and all(row.status == "ok" for row in r.rows), r.rows
    # the top 2 by conviction, then the scan's order
    order = {"high": 0, "medium": 1, "low": 2}
    ranked = sorted(enumerate(r.candidates), key=lambda ic: (order[ic[1].conviction], ic[0]))
    assert [row.ticker for row in r.rows] == [c.ticker for _, c in ranked[:2]]
    for row in r.rows:
        assert row.rating in {"BUY", "OVERWEIGHT", "HOLD", "UNDERWEIGHT", "SELL"}
        assert row.position_pct is not None and row.headline.startswith(row.ticker)
    ids = {r.run_id, r.scan_run_id, *(row.run_id for row in r.rows)}
    assert len(ids) == 4  # the pipeline, the scan and two desk runs: four runs
    for text in (SPEC.renderers["markdown"](r, False), SPEC.renderers["terminal"](r, False)):
        for row in r.rows:
            assert row.run_id in text and row.ticker in text and str(row.rating) in text
        assert str(r.scan_run_id) in text
    assert r.budget_usd == 1.0 and r.spent_usd == 0.0  # deterministic: the one ledger spent nothing
    assert r.mode == "deterministic" and all(row.mode == "deterministic" for row in r.rows)


def test_every_child_is_a_recorded_run_and_the_stream_shows_the_desks(piped: Piped) -> None:
    r = piped.ok
    titles = {}
    for run_id in (r.scan_run_id, *(row.run_id for row in r.rows)):
        found = piped.audit.find_run(str(run_id))
        assert isinstance(found, Ok), found
        assert found.value.status == "done"
        titles[run_id] = found.value.title
    assert str(titles[r.scan_run_id]).startswith("scan ")
    assert all(str(titles[row.run_id]).startswith(f"trade {row.ticker}") for row in r.rows), titles
    scan = ScanReport.model_validate(_result(piped.audit, str(r.scan_run_id)))
    assert scan.synthesis is not None and scan.synthesis.stocks_to_investigate == r.candidates
    # the pipeline's own stream: its sections only, never a child's done
    sections = [e.data for e in piped.events if isinstance(e.data, SectionReady)]
    assert [s.name for s in sections if s.name == "desks"] and sections[-1].name in {"summary", "desks"}
    assert {e.run_id for e in piped.events} == {r.run_id}


def test_a_fund_the_desk_refuses_is_a_row_with_the_reason(
    pipe_settings: Settings, pipe_tools: ToolContext, piped: Piped
) -> None:
    context = resolve_context(pipe_settings, mode="snapshot", as_of=DAY)
    assert not isinstance(context, Err)
    done = asyncio.run(
        run_workflow(
            TRADE,
            {"ticker": "XLV", "date": DAY},
            settings=pipe_settings,
            context=context.value,
            tools=pipe_tools,
            mode="deterministic",
            run_id="child-xlv",
        )
    )
    fund = piped.ok.candidates[0].model_copy(update={"ticker": "XLV"})
    row = _row(fund, "child-xlv", done)
    assert row.status == "refused" and row.rating is None and row.run_id == "child-xlv"
    assert "not a company" in row.headline


def test_bad_input_is_refused_before_anything_runs(pipe_settings: Settings, pipe_tools: ToolContext) -> None:
    for inputs, says in (({"date": DAY, "top": 6}, "top"), ({"date": "2025-09-30"}, "--as-of 2025-09-30")):
        got = run_pipeline(pipe_settings, pipe_tools, inputs)
        assert isinstance(got.report, Err) and says in got.report.reason
        assert not [e for e in got.events if isinstance(e.data, SectionReady)]


def test_a_spent_ledger_refuses_the_next_call() -> None:
    model = ScriptedModel([reply("one"), reply("two")], model="trade")
    ledger = Budget(limit_usd=1e-9)
    chain = LedgerChain(ModelChain([model], PRICES, max_retries=0), ledger)
    request = ModelRequest(system="s", messages=(UserText(text="hi"),), tools=(), max_tokens=10)
    first = asyncio.run(chain.complete(request))
    assert isinstance(first, Ok) and ledger.spent_usd > 0 and ledger.used_tokens > 0
    second = asyncio.run(chain.complete(request))
    assert (
        isinstance(second, Err) and second.code.value == "limit_reached" and "shared budget" in second.reason
    )
    assert len(model.requests) == 1  # the refused call never reached the model


def test_the_scan_and_the_desks_spend_one_budget(pipe_settings: Settings, pipe_tools: ToolContext) -> None:
    trade, _ = trade_models()
    scan, scan_model = scan_models("good")

    def resolve(role: Role[Any, Any]) -> Result[ModelChain]:
        return scan(role) if role.name == "scan_synthesis" else trade(role)

    # a whole run costs about $0.17 (the scan's call and 2 x 17 desk calls); $0.10 runs out mid-desk
    capped = pipe_settings.model_copy(
        update={"llm": pipe_settings.llm.model_copy(update={"budget_usd": 0.1})}
    )
    piped = run_pipeline(capped, pipe_tools, {"date": DAY, "top": 2}, mode="model", models=resolve)
    r = piped.ok
    assert len(scan_model.requests) == 1 and len(r.rows) == 2
    # stopped at the cap: only the calls already in flight when it was crossed (about $0.004 each) go over
    assert r.budget_usd == 0.1 and 0.1 <= r.spent_usd < 0.1 + 0.03
    assert r.cost_usd == pytest.approx(r.spent_usd, abs=1e-4)  # every child's cost is on the one ledger
    assert all(row.status == "ok" and row.rating for row in r.rows)  # code finished each desk
    assert r.mode == "model" and all(row.mode == "model" for row in r.rows)  # the desks' models count too
    events = [e for row in r.rows for e in piped.audit.events(row.run_id)]
    assert sum(isinstance(e.data, LlmCall) for e in events) < 2 * 17  # later roles never called a model
    desks = [_result(piped.audit, row.run_id) for row in r.rows]
    said = [w for d in desks for w in d["warnings"]]
    assert any("budget" in w for w in said), said


def test_a_refused_pick_gives_its_place_to_the_next_candidate(
    pipe_settings: Settings, pipe_tools: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    from findesk.workflows.pipeline import graph

    real = graph.top_candidates

    def fund_first(report: ScanReport | None, n: int | None = None) -> list[Any]:
        order = real(report)
        assert order, "the 2025-08-29 scan lists candidates"
        fund = order[0].model_copy(update={"ticker": "XLV"})  # a fund: the desk refuses it
        picks = [fund, *order]
        return picks if n is None else picks[:n]

    monkeypatch.setattr(graph, "top_candidates", fund_first)
    r = run_pipeline(pipe_settings, pipe_tools, {"date": DAY, "top": 2}).ok
    statuses = [(row.ticker, row.status) for row in r.rows]
    assert statuses[0] == ("XLV", "refused") and "not a company" in r.rows[0].headline
    assert [s for _, s in statuses[1:]] == ["ok", "ok"] and len(r.rows) == 3  # two rated, as asked
