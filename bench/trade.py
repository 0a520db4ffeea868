"""Trading desk: deterministic latency per run, and with scripted fake models the input tokens per role and
per run and the model round trips made one after another.

For each ticker and date given: one cold deterministic run (the first in the process), then
``--repeat`` warm runs (median); then one run with a scripted model for every model-capable role
(``findesk.testing.fake_trade_models``), counting per role its model calls and input tokens (real
cl100k_base tokens over what a provider would bill, read from the run's events) and the sequential
model round trips: the model calls on the run's critical path (the four analysts run in one superstep,
so they count once, as their longest branch). Target (issue 19): ≤ 35,000 input tokens per run with the
default rounds (the design this replaces: ~98,000).

    python bench/trade.py [--case NVDA:2024-05-10 ...] [--debate-rounds 2] [--risk-rounds 2]
                          [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from findesk.core.config import Settings
from findesk.core.events.trace import MemorySink
from findesk.core.result import Err
from findesk.data.context import resolve_context
from findesk.testing.fake_trade_models import trade_models
from findesk.tools.catalog import close_tool_context, open_tool_context
from findesk.workflows.runner import run_workflow
from findesk.workflows.trading.spec import SPEC

DEFAULT_CASES = ("NVDA:2024-05-10", "AAPL:2025-08-29", "MSFT:2025-08-29", "JPM:2024-05-10")
ANALYSTS = frozenset({"trade_market", "trade_fundamentals", "trade_news", "trade_social"})


def _per_role(events: list[Any]) -> dict[str, dict[str, int]]:
    """Model calls and input/output tokens per agent, from the run's llm_call events (nested under each
    agent's agent_start)."""
    agent_of: dict[str, str] = {}
    for e in events:
        if e.type == "agent_start":
            agent_of[e.id] = e.data.agent
    roles: dict[str, dict[str, int]] = defaultdict(
        lambda: {"calls": 0, "input_tokens": 0, "output_tokens": 0}
    )
    for e in events:
        if e.type == "llm_call" and e.parent_id in agent_of:
            row = roles[agent_of[e.parent_id]]
            row["calls"] += 1
            row["input_tokens"] += e.data.input_tokens
            row["output_tokens"] += e.data.output_tokens
    return dict(roles)


def _sequential(roles: dict[str, dict[str, int]]) -> int:
    """Round trips on the critical path: every non-analyst call, plus the longest analyst's calls."""
    analysts = [r["calls"] for name, r in roles.items() if name in ANALYSTS]
    others = sum(r["calls"] for name, r in roles.items() if name not in ANALYSTS)
    return others + (max(analysts) if analysts else 0)


async def _measure(
    cases: list[tuple[str, str]], rounds: tuple[int, int], repeat: int
) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as state:
        settings = Settings(state_dir=Path(state))
        first = resolve_context(settings, mode="snapshot", as_of=cases[0][1])
        assert not isinstance(first, Err), first
        tools = await open_tool_context(settings, first.value)
        assert not isinstance(tools, Err), tools
        rows: list[dict[str, Any]] = []
        try:
            for ticker, day in cases:
                context = resolve_context(settings, mode="snapshot", as_of=day)
                assert not isinstance(context, Err), context
                inputs = {"ticker": ticker, "date": day, "debate_rounds": rounds[0], "risk_rounds": rounds[1]}
                times = []
                rating = ""
                for _ in range(repeat + 1):
                    began = time.perf_counter()
                    done = await run_workflow(
                        SPEC, inputs, settings=settings, context=context.value, mode="deterministic",
                        tools=tools.value,
                    )  # fmt: skip
                    times.append((time.perf_counter() - began) * 1000)
                    assert not isinstance(done, Err), (ticker, done)
                    rating = done.value.report.final_decision.rating
                sink = MemorySink()
                began = time.perf_counter()
                done = await run_workflow(
                    SPEC, inputs, settings=settings, context=context.value, mode="model",
                    models=trade_models()[0], tools=tools.value, sinks=[sink],
                )  # fmt: skip
                model_ms = (time.perf_counter() - began) * 1000
                assert not isinstance(done, Err), (ticker, done)
                report = done.value.report
                roles = _per_role(list(sink.events))
                rows.append(
                    {
                        "ticker": ticker,
                        "date": day,
                        "rating": rating,
                        "first_ms": round(times[0], 1),
                        "warm_ms": round(statistics.median(times[1:]), 1),
                        "model_rating": report.final_decision.rating,
                        "model_calls": report.model_calls,
                        "input_tokens": report.input_tokens,
                        "output_tokens": report.output_tokens,
                        "sequential_round_trips": _sequential(roles),
                        "model_run_ms": round(model_ms, 1),
                        "roles": roles,
                    }
                )
        finally:
            await close_tool_context(tools.value)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--case", action="append", default=[], help="TICKER:YYYY-MM-DD (repeatable)")
    parser.add_argument("--debate-rounds", type=int, default=2)
    parser.add_argument("--risk-rounds", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="warm deterministic runs per case")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args()
    cases = [tuple(c.split(":", 1)) for c in (args.case or DEFAULT_CASES)]
    if any(len(c) != 2 for c in cases):
        raise SystemExit("bench/trade.py: a case is TICKER:YYYY-MM-DD")
    rows = asyncio.run(
        _measure([(t, d) for t, d in cases], (args.debate_rounds, args.risk_rounds), max(1, args.repeat))
    )
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    for r in rows:
        print(
            f"{r['ticker']} {r['date']}: deterministic {r['rating']}, "
            f"first {r['first_ms']:.0f} ms, warm {r['warm_ms']:.0f} ms"
        )
        print(
            f"  fake model: {r['model_rating']}, {r['model_calls']} model calls "
            f"({r['sequential_round_trips']} sequential), "
            f"{r['input_tokens']:,} input tokens (target ≤ 35,000), "
            f"{r['output_tokens']:,} output tokens, {r['model_run_ms']:.0f} ms"
        )
        for name, role in sorted(r["roles"].items()):
            print(f"    {name:28} {role['calls']} call(s) {role['input_tokens']:>7,} input tokens")


if __name__ == "__main__":
    main()
