"""Movers analyzer speed (issue 21): time per step of a whole deterministic run, the sandbox's start-up
overhead per run against plain Python, and the reviewed analysis program's run time.

Target: sandbox start-up overhead < 150 ms per run. Data: the offline snapshot; the email is a dry run
written to a temporary folder; nothing leaves the machine.

    python bench/movers.py [--date 2025-08-29 ...] [--repeat 5] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from findesk.core.config import Settings
from findesk.core.events.trace import MemorySink
from findesk.core.result import Err
from findesk.core.sandbox import run_python
from findesk.data.context import resolve_context
from findesk.tools.catalog import close_tool_context, open_tool_context
from findesk.tools.movers import reviewed_program
from findesk.workflows.movers.chart import render_chart
from findesk.workflows.movers.spec import SPEC
from findesk.workflows.runner import run_workflow

STEPS = (
    "movers_gainers",
    "movers_history",
    "movers_news",
    "movers_coder",
    "movers_python",
    "movers_delivery",
)


async def one_run(settings: Settings, day: str, out: str, tools: Any) -> tuple[float, dict[str, float], Any]:
    context = resolve_context(settings, mode="snapshot", as_of=day)
    if isinstance(context, Err):
        sys.exit(context.message())
    started = time.perf_counter()
    done = await run_workflow(
        SPEC,
        {"date": day, "dry_run": True, "out": out},
        settings=settings,
        context=context.value,
        sinks=[MemorySink()],
        mode="deterministic",
        tools=tools.with_context(context.value),
    )
    total = (time.perf_counter() - started) * 1000
    if isinstance(done, Err):
        sys.exit(done.message())
    report = done.value.report
    steps = {a.name: a.latency_ms for a in report.agents if a.name in STEPS}
    return total, steps, report


async def sandbox_overhead(repeat: int) -> dict[str, float]:
    sandboxed, plain = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        ran = await run_python("print(1)")
        if isinstance(ran, Err):
            sys.exit(f"sandbox unavailable: {ran.reason}")
        sandboxed.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        await asyncio.to_thread(
            subprocess.run, [sys.executable, "-I", "-B", "-c", "print(1)"], check=True, capture_output=True
        )
        plain.append((time.perf_counter() - t) * 1000)
    s, p = statistics.median(sandboxed), statistics.median(plain)
    return {"sandbox_ms": round(s, 1), "plain_python_ms": round(p, 1), "overhead_ms": round(s - p, 1)}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--date", nargs="+", default=["2025-08-29", "2024-09-03"])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    settings = Settings()
    first = resolve_context(settings, mode="snapshot", as_of=args.date[0])
    if isinstance(first, Err):
        sys.exit(first.message())
    opened = await open_tool_context(settings, first.value)
    if isinstance(opened, Err):
        sys.exit(opened.message())
    results: dict[str, Any] = {"runs": {}}
    try:
        await sandbox_overhead(2)  # the sandbox's one-time self-check is not start-up overhead
        results["sandbox"] = await sandbox_overhead(args.repeat * 4)
        with tempfile.TemporaryDirectory() as out:
            for day in args.date:
                cold, _, report = await one_run(settings, day, out, opened.value)
                warm = [await one_run(settings, day, out, opened.value) for _ in range(args.repeat)]
                steps = {s: round(statistics.median(w[1].get(s, 0.0) for w in warm), 1) for s in STEPS}
                payload = (
                    report.history.history.payload if report.history and report.history.history else None
                )
                chart_ms = None
                if payload is not None:
                    t = time.perf_counter()
                    render_chart(payload, adjusted=report.history.history.adjusted)
                    chart_ms = round((time.perf_counter() - t) * 1000, 1)
                results["runs"][day] = {
                    "symbol": report.symbol,
                    "cold_ms": round(cold, 1),
                    "warm_ms": round(statistics.median(w[0] for w in warm), 1),
                    "steps_ms": steps,
                    "chart_ms": chart_ms,
                    "metrics_check": report.metrics_check,
                }
        t = time.perf_counter()
        await run_python(reviewed_program(), inputs={"payload.json": b'{"x": 1}'})
        results["sandbox"]["failing_program_ms"] = round((time.perf_counter() - t) * 1000, 1)
    finally:
        await close_tool_context(opened.value)
    if args.json:
        print(json.dumps(results, indent=1))
        return
    s = results["sandbox"]
    print(
        f"sandbox start-up (print(1), median of {args.repeat * 4}): {s['sandbox_ms']} ms vs plain python "
        f"{s['plain_python_ms']} ms -> overhead {s['overhead_ms']} ms (target < 150 ms)"
    )
    for day, r in results["runs"].items():
        head = f"{day}: {r['symbol']} ({r['metrics_check']})"
        print(f"\n{head} cold {r['cold_ms']} ms, warm median {r['warm_ms']} ms")
        for step, ms in r["steps_ms"].items():
            print(f"  {step:<16} {ms:>8.1f} ms")
        print(f"  {'chart (png)':<16} {r['chart_ms'] or 0:>8.1f} ms")


if __name__ == "__main__":
    asyncio.run(main())
