"""The demo role on the real snapshot, in both modes, run as a one-node workflow through the one runner:
same schema, same cited figures, and the output guard applied."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from findesk.agents.roles.quote_filings import ROLE, QuoteFilingsReport, TickerInput
from findesk.core.config import Settings
from findesk.core.events import MemorySink
from findesk.core.events.audit import AuditLog
from findesk.core.llm.chain import ModelChain
from findesk.core.llm.pricing import PriceTable
from findesk.core.llm.types import ModelRequest, ToolResults
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.context import resolve_context
from findesk.testing.fake_models import Reply, ScriptedModel, reply, submit
from findesk.workflows.agent_spec import agent_spec
from findesk.workflows.runner import run_workflow

AAPL_10Q = "https://www.sec.gov/Archives/edgar/data/320193/000032019325000073/aapl-20250628.htm"


@pytest.fixture
def settings(snapshot_dir: Path) -> Settings:
    return Settings(snapshot_dir=snapshot_dir)


async def _run(settings: Settings, symbol: str, model: ScriptedModel | None = None, **kw: Any) -> Any:
    context = resolve_context(settings, mode="snapshot", as_of=kw.pop("as_of", None)).unwrap()
    resolver = None
    if model is not None:
        chain = ModelChain([model], PriceTable(), max_retries=0)
        resolver = lambda role: Ok(chain)  # noqa: E731
    sink = MemorySink()
    result = await run_workflow(
        agent_spec(ROLE),
        TickerInput(symbol=symbol),
        settings=settings,
        context=context,
        sinks=[sink, *kw.pop("sinks", [])],
        models=resolver,
        **kw,
    )
    return result.unwrap(), sink


async def test_deterministic_report_is_real_and_cited(settings: Settings) -> None:
    run, sink = await _run(settings, "AAPL")
    report = run.report.output
    assert isinstance(report, QuoteFilingsReport)
    assert run.report.mode == "deterministic" and "no model key" in run.report.mode_reason
    assert run.context == "offline snapshot as of 2025-08-29"
    assert (report.price, report.session_date, report.company) == (232.14, date(2025, 8, 29), "Apple Inc.")
    assert report.recent_filings[0].form == "10-Q" and report.recent_filings[0].url == AAPL_10Q
    assert all(f.url and f.url.startswith("https://www.sec.gov/") for f in report.recent_filings)
    assert all(f.filing_date <= date(2025, 8, 29) for f in report.recent_filings)
    assert "$232.14" in report.summary and report.warnings == []
    assert [e.type for e in sink.events][-1] == "done"
    assert sink.events[-1].data.result["output"]["price"] == 232.14
    assert run.report.guard.clean  # every figure of the summary traces to a tool result


async def test_model_driven_report_has_the_same_schema_and_figures(settings: Settings) -> None:
    def write_report(request: ModelRequest) -> Reply:
        # the model starts with the pre-fetched quote and filings and reads one more section
        shown = {p.name: p.content for m in request.messages if isinstance(m, ToolResults) for p in m.results}
        assert "232.14" in shown["get_quote"] and "get_filing_section" in shown
        return submit(
            QuoteFilingsReport(
                symbol="AAPL",
                company="Apple Inc.",
                price=232.14,
                session_date=date(2025, 8, 29),
                recent_filings=[{"form": "10-Q", "filing_date": date(2025, 8, 1), "url": AAPL_10Q}],  # type: ignore[list-item]
                summary="Apple closed at $232.14 on 2025-08-29; its latest 10-Q was filed on 2025-08-01.",
            )
        )

    model = ScriptedModel(
        [
            reply(
                "Reading the risk factors.",
                [("get_filing_section", {"symbol": "AAPL", "form": "10-K", "item": "1A"})],
            ),
            write_report,
        ]
    )
    run, sink = await _run(settings, "AAPL", model)
    deterministic, _ = await _run(settings, "AAPL")
    report = run.report.output
    assert type(report) is type(deterministic.report.output) is QuoteFilingsReport
    assert run.report.mode == "model" and not run.report.fell_back and run.report.model_turns == 2
    assert report.price == deterministic.report.output.price == 232.14
    # the first request already held the playbook's three results: no round trip spent fetching them
    first = model.requests[0]
    assert sum(len(m.results) for m in first.messages if isinstance(m, ToolResults)) == 3
    section = [e for e in sink.of_type("tool_result") if e.data.name == "get_filing_section"]
    assert section and section[0].data.ok and "10-K" in section[0].data.summary


async def test_a_non_us_listing_is_refused_before_any_tool_call(settings: Settings) -> None:
    context = resolve_context(settings, mode="snapshot", as_of=None).unwrap()
    sink = MemorySink()
    result = await run_workflow(
        agent_spec(ROLE), TickerInput(symbol="BRK.B"), settings=settings, context=context, sinks=[sink]
    )
    assert isinstance(result, Err) and result.code is ErrorCode.OUT_OF_SCOPE
    assert [e.type for e in sink.events] == ["error"]  # recorded, and no tool was called
    assert sink.events[0].data.code == "out_of_scope"


async def test_a_failing_source_degrades_to_a_warning(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from findesk.data.router import DataRouter

    async def down(self: DataRouter, symbol: str, as_of: date) -> Err:
        return Err(ErrorCode.UNAVAILABLE, "quote source is down")

    monkeypatch.setattr(DataRouter, "quote", down)
    run, _ = await _run(settings, "AAPL")
    report = run.report.output
    assert report.price is None and report.recent_filings  # filings still there
    assert report.warnings == ["Live quote unavailable: unavailable: quote source is down"]
    assert "No quote is available" in report.summary


async def test_the_run_is_in_the_audit_log(settings: Settings, tmp_path: Path) -> None:
    audit = AuditLog.open(f"sqlite:///{tmp_path / 'audit.sqlite3'}").unwrap()
    run, sink = await _run(settings, "MSFT", sinks=[audit])
    assert audit.flush(10)
    stored = audit.events(run.run_id)
    assert [e.to_json() for e in stored] == [e.to_json() for e in sink.events]
    summary = audit.find_run(run.run_id).unwrap()
    assert summary.status == "done" and summary.tool_calls == 3
    audit.close()


async def test_model_prose_passes_the_advice_scrub_and_the_number_trace(settings: Settings) -> None:
    """``findesk agents run`` applies the same output guard as the briefing: an advice sentence is
    removed and a number no tool returned is listed, in the report and its warnings."""
    model = ScriptedModel(
        [
            submit(
                QuoteFilingsReport(
                    symbol="AAPL",
                    price=232.14,
                    summary="Apple closed at $232.14. You should buy AAPL now. Revenue grew 37% last year.",
                )
            )
        ]
    )
    run, sink = await _run(settings, "AAPL", model)
    report = run.report
    assert "buy" not in report.output.summary.lower() and "$232.14" in report.output.summary
    assert len(report.guard.advice_removed) == 1
    assert [u.text for u in report.guard.untraced_numbers] == ["37%"]
    assert any(w.startswith("advice_removed: 1") for w in report.warnings)
    assert any("number_trace" in w and "37%" in w for w in report.warnings)
    assert "buy" not in sink.events[-1].data.result["output"]["summary"].lower()  # the recorded result too
