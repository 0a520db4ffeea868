"""The scanner's phase 1-2 roles on the real snapshot: each runs its playbook and composes its report
at 2025-08-29 and 2024-05-10, the deep dive takes the sectors ``top_sectors`` picks, every figure a
summary states traces to a tool result, a failed source is an honest no_data, and a model may only
write the summary."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from findesk.agents.role import PlannedCall, Role
from findesk.agents.roles.scan import geopolitical, industries, movers, sectors
from findesk.agents.roles.scan.models import MoversReport
from findesk.analytics.scan.sectors import top_sectors
from findesk.core.config import Settings
from findesk.core.result import Err, ErrorCode
from findesk.guardrails.number_trace import collect_numbers, untraced_numbers
from findesk.tools.base import ToolContext, ToolOutcome, execute
from findesk.tools.catalog import default_registry
from snapshot_kit import snapshot_tools

DAY = date(2025, 8, 29)
EARLY = date(2024, 5, 10)


@pytest.fixture(scope="module")
def ctx(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ToolContext]:
    cache = tmp_path_factory.mktemp("scan-roles-cache")
    yield from snapshot_tools(Settings(snapshot_dir=snapshot_dir, cache_dir=cache, chains={}), DAY)


def _at(ctx: ToolContext, day: date) -> ToolContext:
    context = ctx.context.model_copy(update={"as_of": day, "as_of_is_default": False})
    return ToolContext(ctx.router, ctx.sections, context)


def _run(
    role: Role[Any, Any], inputs: Any, ctx: ToolContext, day: date
) -> tuple[Any, dict[str, ToolOutcome]]:
    registry = default_registry()

    async def playbook() -> dict[str, ToolOutcome]:
        outcomes: dict[str, ToolOutcome] = {}
        for stage in role.policy.stages:
            calls = stage(inputs, outcomes)
            assert {c.tool for c in calls} <= set(role.tools)
            done = await asyncio.gather(
                *(execute(registry.get(c.tool), c.tool, c.args, _at(ctx, day)) for c in calls)
            )
            outcomes.update({c.key: o for c, o in zip(calls, done, strict=True)})
        return outcomes

    outcomes = asyncio.run(playbook())
    return role.policy.compose(inputs, outcomes), outcomes


def _traced(report: Any, outcomes: dict[str, ToolOutcome]) -> None:
    pool = collect_numbers(*(o.result.unwrap() for o in outcomes.values() if o.ok))
    assert untraced_numbers(report.summary, pool) == [], report.summary


def _failed(name: str) -> ToolOutcome:
    return ToolOutcome(
        name=name,
        arguments={},
        result=Err(ErrorCode.UNAVAILABLE, f"{name} source down"),
        summary=f"unavailable: {name} source down",
        payload=None,
        truncated=False,
        latency_ms=1.0,
    )


def test_roles_are_named_quick_one_stage_and_use_only_their_tools() -> None:
    roles = {r.name: r for r in (geopolitical.ROLE, movers.ROLE, sectors.ROLE, industries.ROLE)}
    assert set(roles) == {"scan_geopolitical", "scan_movers", "scan_sectors", "scan_industries"}
    assert all(r.tier == "quick" and len(r.policy.stages) == 1 for r in roles.values())
    assert sectors.ROLE.policy.stages[0](sectors.SectorsInput(), {}) == [
        PlannedCall("sectors", "get_sector_performance", {})
    ]
    calls = geopolitical.ROLE.policy.stages[0](geopolitical.GeopoliticalInput(), {})
    assert calls == [PlannedCall("topics", "get_topic_news", {"days": 30})]
    subset = geopolitical.ROLE.policy.stages[0](
        geopolitical.GeopoliticalInput(topics=["rates", "energy"]), {}
    )
    assert [c.args for c in subset] == [{"days": 30, "topic": "rates"}, {"days": 30, "topic": "energy"}]


def test_movers_report_at_2025_08_29(ctx: ToolContext) -> None:
    report, outcomes = _run(movers.ROLE, movers.MoversInput(), ctx, DAY)
    assert report.status == "ok" and report.board is not None and report.board.session == DAY
    assert report.summary.startswith("On 2025-08-29, 2,782 of 6,617 listings passed the screen")
    assert "Top gainers: NEO +21.775% ($8.78)" in report.summary
    assert "Most active by dollar volume: NVDA $42.28B (-3.325%)" in report.summary
    assert any("month-end" in w for w in report.warnings)
    _traced(report, outcomes)


def test_sectors_then_the_deep_dive_on_the_top_three(ctx: ToolContext) -> None:
    for day, leaders in ((DAY, ["XLV", "XLB", "XLY"]), (EARLY, ["XLU", "XLP", "XLF"])):
        sector_report, outcomes = _run(sectors.ROLE, sectors.SectorsInput(), ctx, day)
        assert sector_report.status == "ok" and sector_report.board is not None
        picked = top_sectors(sector_report.board, n=3)
        assert picked == leaders == sector_report.board.leaders
        assert (
            f"On {day.isoformat()}, the sector leaders over one month were {leaders[0]}"
            in sector_report.summary
        )
        _traced(sector_report, outcomes)
        report, outcomes = _run(industries.ROLE, industries.IndustriesInput(sectors=picked), ctx, day)
        assert report.board is not None and [d.etf for d in report.board.sectors] == leaders
        assert report.status in ("ok", "partial") and "best sub-industry" in report.summary
        _traced(report, outcomes)
    # in 2024 some of the list's members are missing from today's panel: partial, and said why
    assert report.status == "partial" and any("no price on 2024-05-10" in w for w in report.warnings)
    assert "1M" not in report.summary  # the number trace reads "1M" as one million: windows in words


def test_geopolitical_report_is_honest_about_thin_news(ctx: ToolContext) -> None:
    report, outcomes = _run(geopolitical.ROLE, geopolitical.GeopoliticalInput(), ctx, DAY)
    assert report.status == "partial"  # only the rates topic had a headline in the 30 days
    assert report.summary.startswith("Topic news published 2025-07-30..2025-08-29: rates: 1 article(s)")
    assert "No headline on conflicts, trade, sanctions, energy in the window." in report.summary
    _traced(report, outcomes)
    early, _ = _run(geopolitical.ROLE, geopolitical.GeopoliticalInput(), ctx, EARLY)
    assert early.status == "no_data" and early.summary.startswith("No topic headline was published")
    assert any(w.startswith("news feeds searched") for w in early.warnings)
    wide, outcomes = _run(
        geopolitical.ROLE, geopolitical.GeopoliticalInput(topics=["trade"], days=120), ctx, DAY
    )
    assert (
        wide.status == "ok" and wide.board is not None and [t.topic for t in wide.board.topics] == ["trade"]
    )
    _traced(wide, outcomes)


def test_a_failed_source_is_no_data_with_its_reason() -> None:
    for module, role, inputs, key in (
        (movers, movers.ROLE, movers.MoversInput(), "movers"),
        (sectors, sectors.ROLE, sectors.SectorsInput(), "sectors"),
        (industries, industries.ROLE, industries.IndustriesInput(sectors=["XLE"]), "industries"),
        (geopolitical, geopolitical.ROLE, geopolitical.GeopoliticalInput(), "topics"),
    ):
        report = module.compose(inputs, {key: _failed(role.tools[0])})
        assert report.status == "no_data" and report.board is None
        assert any(f"{role.tools[0]} source down" in w for w in report.warnings), report.warnings


def test_a_model_may_only_write_the_summary(ctx: ToolContext) -> None:
    basis, _ = _run(sectors.ROLE, sectors.SectorsInput(), ctx, DAY)
    assert basis.board is not None
    said = basis.model_copy(
        update={"summary": "  Health care led.  ", "status": "no_data", "board": None, "warnings": []}
    )
    kept = sectors.normalize(said, sectors.SectorsInput(), basis)
    assert kept.summary == "Health care led."
    assert kept.model_dump(exclude={"summary"}) == basis.model_dump(exclude={"summary"})
    blank = movers.normalize(
        MoversReport(status="ok", summary=" "),
        movers.MoversInput(),
        MoversReport(status="ok", summary="x"),
    )
    assert blank.summary == "x"


def test_same_data_same_report_byte_for_byte(ctx: ToolContext) -> None:
    first, _ = _run(movers.ROLE, movers.MoversInput(), ctx, EARLY)
    second, _ = _run(movers.ROLE, movers.MoversInput(), ctx, EARLY)
    assert first.model_dump_json() == second.model_dump_json()
