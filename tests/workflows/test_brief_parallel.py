"""Eight briefings at once on one cold data context all finish, with no tool error that a sequential
run does not have (issue 12, defect 17: "get_quote failed: ArrowException" under 8 parallel runs; the
snapshot's SEC store could also deadlock when one per-company load needed another)."""

from __future__ import annotations

import asyncio
from datetime import date
from pathlib import Path

from findesk.core.config import Settings
from findesk.core.result import Err, Ok
from findesk.data.context import resolve_context
from findesk.tools.catalog import close_tool_context, open_tool_context
from findesk.workflows.brief.run import BriefingRun, run_briefing

RUNS = [("UNH", date(2024, 11, 15))] * 3 + [("AAPL", date(2025, 8, 29)), ("GOOGL", date(2025, 8, 29))] * 2
RUNS += [("NVDA", date(2024, 11, 15))]


def _errors(run: BriefingRun) -> list[str]:
    return [
        f"{t.name}: {t.summary}" for t in run.briefing.audit.tool_calls if t.status not in ("ok", "no_data")
    ]


def test_eight_parallel_briefings_on_a_cold_context_all_finish_cleanly(
    snapshot_dir: Path, tmp_path: Path
) -> None:
    settings = Settings(snapshot_dir=snapshot_dir, cache_dir=tmp_path / "cache", chains={})

    async def main() -> list[BriefingRun]:
        context = resolve_context(settings, mode="snapshot", as_of=date(2025, 8, 29))
        assert isinstance(context, Ok), context
        tools = await open_tool_context(settings, context.value)
        assert isinstance(tools, Ok), tools
        try:

            async def one(symbol: str, day: date) -> BriefingRun:
                ctx = resolve_context(settings, mode="snapshot", as_of=day)
                assert isinstance(ctx, Ok), ctx
                done = await run_briefing(
                    symbol, settings=settings, context=ctx.value, tools=tools.value, mode="deterministic"
                )
                assert not isinstance(done, Err), done
                return done.value

            jobs = [one(symbol, day) for symbol, day in RUNS]
            return await asyncio.wait_for(asyncio.gather(*jobs), timeout=240)  # a deadlock fails here
        finally:
            await close_tool_context(tools.value)

    runs = asyncio.run(main())
    assert len(runs) == 8
    for (symbol, _), run in zip(RUNS, runs, strict=True):
        assert run.briefing.symbol == symbol
        assert _errors(run) == [], (symbol, _errors(run))
        assert run.briefing.snapshot.quote is not None, symbol
