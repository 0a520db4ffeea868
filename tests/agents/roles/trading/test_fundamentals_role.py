"""The fundamentals analyst's role on the real snapshot: both tools in one stage, a typed report whose
score and stance follow the documented rules, every figure of its prose and signals traced to a tool
result, an honest no_data for a company without fundamentals, and a model that may only write prose."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from findesk.agents.roles.trading import fundamentals
from findesk.agents.roles.trading.inputs import AnalystInput
from findesk.agents.roles.trading.models import FundamentalsReport, Identity
from findesk.analytics.trading.params import stance_of, weighted_score
from findesk.core.config import Settings
from findesk.core.result import Ok
from findesk.guardrails.number_trace import collect_numbers, untraced_numbers
from findesk.tools.base import ToolContext, ToolOutcome, execute
from findesk.tools.catalog import default_registry
from snapshot_kit import snapshot_tools  # type: ignore[import-not-found]

NVDA = Identity(
    ticker="NVDA", cik=1045810, name="NVIDIA CORP", sector="Information Technology", source="test"
)
MSFT = Identity(
    ticker="MSFT", cik=789019, name="MICROSOFT CORP", sector="Information Technology", source="test"
)
RIVN = Identity(
    ticker="RIVN", cik=1874178, name="Rivian Automotive", sector="Consumer Discretionary", source="test"
)

Run = tuple[FundamentalsReport, dict[str, ToolOutcome]]


@pytest.fixture(scope="module")
def ctx(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ToolContext]:
    cache = tmp_path_factory.mktemp("fundamentals-role-cache")
    yield from snapshot_tools(
        Settings(snapshot_dir=snapshot_dir, cache_dir=cache, chains={}), date(2025, 8, 29)
    )


async def _playbook(inputs: AnalystInput, ctx: ToolContext) -> Run:
    registry = default_registry()
    context = ctx.context.model_copy(update={"as_of": inputs.date, "as_of_is_default": False})
    at = ToolContext(ctx.router, ctx.sections, context)
    outcomes: dict[str, ToolOutcome] = {}
    for stage in fundamentals.ROLE.policy.stages:
        calls = stage(inputs, outcomes)
        assert {c.tool for c in calls} <= set(fundamentals.ROLE.tools)
        done = await asyncio.gather(*(execute(registry.get(c.tool), c.tool, c.args, at) for c in calls))
        outcomes.update({c.key: o for c, o in zip(calls, done, strict=True)})
    return fundamentals.ROLE.policy.compose(inputs, outcomes), outcomes


def run(identity: Identity, day: date, ctx: ToolContext) -> Run:
    return asyncio.run(_playbook(AnalystInput(identity=identity, date=day), ctx))


@pytest.fixture(scope="module")
def nvda(ctx: ToolContext) -> Run:
    return run(NVDA, date(2024, 5, 10), ctx)


def test_one_stage_calls_both_tools(nvda: Run) -> None:
    _report, outcomes = nvda
    assert {o.name for o in outcomes.values()} == {"get_fundamental_trends", "get_sector_alpha"}
    assert fundamentals.ROLE.name == "trade_fundamentals" and fundamentals.ROLE.tier == "quick"
    assert len(fundamentals.ROLE.policy.stages) == 1


def test_nvda_report_scores_by_the_rules(nvda: Run) -> None:
    report, _ = nvda
    assert report.status == "ok" and report.analyst == "fundamentals"
    ids = [s.id for s in report.signals]
    assert ids == [
        "fundamentals.revenue_growth",
        "fundamentals.margin_trend",
        "fundamentals.profitability",
        "fundamentals.roe",
        "fundamentals.leverage",
        "fundamentals.fcf",
        "fundamentals.sector_alpha",
    ]  # no valuation against peers: no peer's quarter was reported by 2024-05-10
    assert report.score == round(weighted_score([(s.score, s.weight) for s in report.signals]), 2)
    assert report.stance == stance_of(report.score, 0.5) == "bullish"
    growth = report.signals[0]
    assert growth.score == 1.5 and "125.9%" in growth.text and "accelerating" in growth.text
    assert len(report.ttm) == 8 and report.ttm[0].quarter_end == date(2024, 1, 28)
    assert report.sector_etf == "XLK" and [r.window for r in report.relative] == [
        "1W",
        "1M",
        "3M",
        "6M",
        "YTD",
    ]
    assert report.peer_rank is not None and report.peer_rank.sub_industry == "Semiconductors"
    assert report.valuation["pe"] == pytest.approx(75.34, abs=0.01)
    assert any("companyfacts" in s for s in report.sources)


def test_every_figure_in_the_prose_and_signals_traces_to_a_tool_result(nvda: Run, ctx: ToolContext) -> None:
    msft = run(MSFT, date(2025, 8, 29), ctx)
    for report, outcomes in (nvda, msft):
        pool = collect_numbers(*(o.result.value for o in outcomes.values() if isinstance(o.result, Ok)))
        for text in [report.summary, *(s.text for s in report.signals)]:
            assert untraced_numbers(text, pool) == [], text


def test_msft_is_partial_with_the_missing_figures_named(ctx: ToolContext) -> None:
    report, _ = run(MSFT, date(2025, 8, 29), ctx)
    assert report.status == "partial"
    assert any("no cash-flow statement" in w for w in report.warnings)
    ids = {s.id for s in report.signals}
    assert "fundamentals.valuation_vs_peers" in ids and "fundamentals.fcf" not in ids
    assert report.ttm[0].revenue_ttm == 281_724_000_000 and report.ttm[0].fcf_ttm is None


def test_a_company_without_fundamentals_is_no_data_with_the_reason(ctx: ToolContext) -> None:
    report, outcomes = run(RIVN, date(2025, 8, 29), ctx)
    assert not outcomes["trends"].ok
    assert report.status == "no_data" and report.score == 0.0 and report.stance == "neutral"
    assert report.signals == [] and report.ttm == []
    assert report.summary.startswith("No fundamentals for Rivian Automotive (RIVN)")
    assert "XBRL" in report.summary and "yfinance" in report.summary


def test_a_bank_without_statements_is_scored_on_its_sector_alpha_alone(ctx: ToolContext) -> None:
    jpm = Identity(ticker="JPM", cik=19617, name="JPMORGAN CHASE & CO", sector="Financials", source="test")
    report, outcomes = run(jpm, date(2024, 5, 10), ctx)
    assert not outcomes["trends"].ok and outcomes["alpha"].ok
    assert report.status == "partial" and report.sector_etf == "XLF"
    assert [s.id for s in report.signals] == ["fundamentals.sector_alpha"]
    assert report.score == report.signals[0].score and "fundamental trends unavailable" in report.summary


def test_a_model_may_only_write_the_summary(nvda: Run) -> None:
    basis, _ = nvda
    forged = basis.model_copy(
        update={"summary": "Growth is strong.", "score": -2.0, "stance": "bearish", "signals": [], "ttm": []}
    )
    kept = fundamentals.normalize(forged, AnalystInput(identity=NVDA, date=date(2024, 5, 10)), basis)
    assert kept.summary == "Growth is strong."
    assert kept.score == basis.score and kept.stance == basis.stance
    assert kept.signals == basis.signals and kept.ttm == basis.ttm
    blank = fundamentals.normalize(
        forged.model_copy(update={"summary": " "}), AnalystInput(identity=NVDA, date=date(2024, 5, 10)), basis
    )
    assert blank == basis


def test_the_same_data_gives_the_same_report_byte_for_byte(nvda: Run, ctx: ToolContext) -> None:
    again, _ = run(NVDA, date(2024, 5, 10), ctx)
    assert again.model_dump_json() == nvda[0].model_dump_json()
