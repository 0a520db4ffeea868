"""Research desk: per-question latency (deterministic), and with scripted fake models the sequential
model round trips on the critical path and the input tokens per question.

Questions come from a golden-cases file (default: the built-in one), so the same script measures any
split. Runs are warm: one process, one tool context kept open (as a server keeps one); the first
question also pays for loading the route tables and the price panels, so it is printed apart. For each
question: its category, the desks routed, the wall time of the run, the slowest desk and the sum of the
desks' times (the desks run concurrently, so the run should be close to the slowest, not the sum).
Model path: every agent gets a scripted model that reads its context and submits on its first turn
(``findesk.testing.fake_research_models``); input tokens are real cl100k_base tokens
(``findesk.core.llm.tokens``, the ``bpe-openai`` tokenizer) over everything a provider would bill.
Targets (issue 16): ≤ 3 round trips on the critical path, ≤ 12k input tokens for a single-domain question.

    python bench/research.py [--cases PATH] [--only equity,macro] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

from findesk.core.config import Settings
from findesk.core.result import Err
from findesk.data.context import resolve_context
from findesk.testing.fake_research_models import research_models
from findesk.tools.catalog import close_tool_context, open_tool_context
from findesk.workflows.research import spec as _spec  # noqa: F401  (imported here: not the first question's time)
from findesk.workflows.research.evaluate import run_case
from findesk.workflows.research.golden import CASES_FILE, GoldenCase, load_cases

DESKS = ("research_equity", "research_macro", "research_crypto", "research_compliance")


async def _measure(cases: list[GoldenCase]) -> list[dict[str, Any]]:
    settings = Settings()
    first = resolve_context(settings, mode="snapshot", as_of=cases[0].as_of)
    assert not isinstance(first, Err), first
    tools = await open_tool_context(settings, first.value)
    assert not isinstance(tools, Err), tools
    rows: list[dict[str, Any]] = []
    try:
        for case in cases:
            context = resolve_context(settings, mode="snapshot", as_of=case.as_of)
            assert not isinstance(context, Err), context
            row: dict[str, Any] = {"id": case.id, "category": case.category}
            for mode in ("deterministic", "model"):
                resolve = research_models()[0] if mode == "model" else None
                began = time.perf_counter()
                done = await run_case(case, settings, context.value, tools.value, mode=mode, models=resolve)
                wall_ms = (time.perf_counter() - began) * 1000
                assert not isinstance(done, Err), (case.id, done)
                report = done.value
                desks = [a.latency_ms for a in report.agents if a.name in DESKS]
                if mode == "deterministic":
                    row |= {
                        "desks": report.intents,
                        "ms": round(wall_ms, 1),
                        "slowest_desk_ms": round(max(desks, default=0.0), 1),
                        "desks_sum_ms": round(sum(desks), 1),
                    }
                else:
                    row |= {
                        "model_ms": round(wall_ms, 1),
                        "round_trips": report.round_trips,
                        "input_tokens": sum(a.input_tokens for a in report.agents),
                        "output_tokens": sum(a.output_tokens for a in report.agents),
                    }
            rows.append(row)
    finally:
        await close_tool_context(tools.value)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--cases", type=Path, default=CASES_FILE, help="golden-cases YAML (questions, as-of)")
    parser.add_argument("--only", default="", help="categories to run, comma-separated")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args()
    loaded = load_cases(args.cases)
    if isinstance(loaded, Err):
        raise SystemExit(f"bench/research.py: {loaded}")
    wanted = {c for c in args.only.split(",") if c}
    cases = [c for c in loaded.value if not wanted or c.category in wanted]
    if not cases:
        raise SystemExit("bench/research.py: no case to run")
    rows = asyncio.run(_measure(cases))
    warm = rows[1:] or rows
    single = [r for r in rows if len(r["desks"]) == 1]
    summary = {
        "questions": len(rows),
        "first_question_ms": rows[0]["ms"],
        "warm_p50_ms": round(statistics.median(r["ms"] for r in warm), 1),
        "warm_max_ms": max(r["ms"] for r in warm),
        "round_trips_max": max(r["round_trips"] for r in rows),
        "input_tokens_single_domain_max": max((r["input_tokens"] for r in single), default=0),
        "input_tokens_p50": statistics.median(r["input_tokens"] for r in rows),
    }
    if args.json:
        print(json.dumps({"summary": summary, "questions": rows}, indent=1))
        return
    print(f"{'case':<34}{'desks':<32}{'ms':>8}{'slowest':>9}{'sum':>8}{'trips':>6}{'in tok':>8}")
    for r in rows:
        print(
            f"{r['id']:<34}{','.join(r['desks']) or '-':<32}{r['ms']:>8.0f}{r['slowest_desk_ms']:>9.0f}"
            f"{r['desks_sum_ms']:>8.0f}{r['round_trips']:>6}{r['input_tokens']:>8}"
        )
    for key, value in summary.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
