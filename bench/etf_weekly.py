"""Weekly ETF analyst: preparation time over the whole universe, whole-run time, and model calls and
input tokens per run with scripted fake models.

For each week given: the preparation (the ETF panel and fund profiles from the data layer, features,
data-quality checks, sectors, candidates and chart series: what ``screen_etf_week`` does), cold (first
call in the process) and warm (median of ``--repeat`` calls); then one whole deterministic run (quant,
news per sector, senior analyst, managing director, run folder written) warm; then one run with a
scripted model for every model-capable role (``findesk.testing.fake_etf_models``), counting model calls
and input tokens (real cl100k_base tokens over what a provider would bill). Targets (issue 18): ≤ 3 s
warm preparation, ≤ 15 s whole deterministic run, about 13 model calls per run.

    python bench/etf_weekly.py [--week-ending 2025-05-16 ...] [--config strategy.yaml] [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

from findesk.core.config import Settings
from findesk.core.result import Err
from findesk.data.context import resolve_context
from findesk.testing.fake_etf_models import etf_models
from findesk.tools.catalog import close_tool_context, open_tool_context
from findesk.tools.etf import ScreenArgs, screen_etf_week
from findesk.workflows.etf_weekly.config import StrategyConfig, load_strategy
from findesk.workflows.etf_weekly.spec import SPEC
from findesk.workflows.runner import run_workflow

DEFAULT_WEEKS = ("2025-05-16", "2025-08-29")


async def _measure(
    weeks: list[date], strategy: StrategyConfig, repeat: int, out: Path
) -> list[dict[str, Any]]:
    settings = Settings()
    rows: list[dict[str, Any]] = []
    first = resolve_context(settings, mode="snapshot", as_of=weeks[0])
    assert not isinstance(first, Err), first
    tools = await open_tool_context(settings, first.value)
    assert not isinstance(tools, Err), tools
    try:
        for week in weeks:
            context = resolve_context(settings, mode="snapshot", as_of=week)
            assert not isinstance(context, Err), context
            ctx = tools.value.with_context(context.value)
            args = ScreenArgs(week_ending=week, prep=strategy.prep, candidates=strategy.candidates)
            times = []
            for _ in range(repeat + 1):
                began = time.perf_counter()
                got = await screen_etf_week.fn(args, ctx)
                times.append((time.perf_counter() - began) * 1000)
                assert not isinstance(got, Err), got
            row: dict[str, Any] = {
                "week_ending": week.isoformat(),
                "prep_first_ms": round(times[0], 1),
                "prep_warm_ms": round(statistics.median(times[1:]), 1),
                "universe": got.value.universe,
                "candidates": len(got.value.candidates),
                "data_flags": len(got.value.data_flags),
            }
            inputs = {
                "week_ending": week.isoformat(),
                "strategy": strategy.model_dump(mode="json"),
                "out": str(out),
            }
            for mode in ("deterministic", "model"):
                resolve = etf_models()[0] if mode == "model" else None
                began = time.perf_counter()
                done = await run_workflow(
                    SPEC,
                    inputs,
                    settings=settings,
                    context=context.value,
                    mode=mode,
                    models=resolve,
                    tools=tools.value,
                )
                wall = (time.perf_counter() - began) * 1000
                assert not isinstance(done, Err), (week, mode, done)
                report = done.value.report
                if mode == "deterministic":
                    row |= {
                        "run_ms": round(wall, 1),
                        "sectors": len(report.sector_groups),
                        "evidence": {
                            e: sum(n.evidence == e for n in report.news.values())
                            for e in ("strong", "weak", "none")
                        },
                        "quality_score": report.director.quality_score,
                        "sent_back": report.director_first is not None,
                    }
                else:
                    row |= {
                        "model_run_ms": round(wall, 1),
                        "model_calls": report.model_calls,
                        "input_tokens": report.input_tokens,
                        "output_tokens": report.output_tokens,
                        "model_sent_back": report.director_first is not None,
                    }
            rows.append(row)
    finally:
        await close_tool_context(tools.value)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--week-ending", action="append", default=[], help="a week's last day (repeatable)")
    parser.add_argument("--config", type=Path, default=None, help="strategy YAML (default: the defaults)")
    parser.add_argument("--repeat", type=int, default=3, help="warm preparation calls per week")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args()
    strategy = StrategyConfig()
    if args.config is not None:
        loaded = load_strategy(args.config)
        if isinstance(loaded, Err):
            raise SystemExit(f"bench/etf_weekly.py: {loaded}")
        strategy = loaded.value
    weeks = [date.fromisoformat(w) for w in (args.week_ending or DEFAULT_WEEKS)]
    with tempfile.TemporaryDirectory() as out:
        rows = asyncio.run(_measure(weeks, strategy, max(1, args.repeat), Path(out)))
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    for r in rows:
        print(
            f"week {r['week_ending']}: universe {r['universe']}, {r['candidates']} candidates in "
            f"{r['sectors']} "
            f"sectors, {r['data_flags']} data flags; evidence {r['evidence']}; quality {r['quality_score']}"
            f"{' (sent back)' if r['sent_back'] else ''}"
        )
        print(
            f"  preparation: first {r['prep_first_ms']:.0f} ms, "
            f"warm {r['prep_warm_ms']:.0f} ms (target ≤ 3000)"
        )
        print(f"  whole deterministic run: {r['run_ms']:.0f} ms (target ≤ 15000)")
        print(
            f"  fake model: {r['model_calls']} model calls, {r['input_tokens']} input tokens, "
            f"{r['output_tokens']} output tokens, {r['model_run_ms']:.0f} ms"
            f"{' (sent back)' if r['model_sent_back'] else ''}"
        )


if __name__ == "__main__":
    main()
