"""Advisor briefing latency (deterministic) and model-path cost (scripted fake models) on the snapshot.

Cold: each ticker's first briefing in a new process (the run itself, after imports; the on-disk caches
— price index, parsed 10-K sections — may already exist, as on any machine that ran findesk before;
``--clear-cache`` starts from an empty cache directory). Warm: the same process briefs again with its
tool context kept open, as a server would (median of ``--repeat`` runs). Model path: every agent gets a
scripted model that reads its context and submits on its first turn (``findesk.testing.
fake_briefing_models``); reported are the sequential model round trips on the critical path and the
input/output tokens per briefing (real cl100k_base tokens from ``findesk.core.llm.tokens``, the
``bpe-openai`` tokenizer, over everything a provider would bill). Also printed: warm CPU seconds per
briefing (process time, so other load on the machine does not count). Targets (issues #4, #12): warm
< 1 s, ≤ 3 round trips, ≤ 15k input tokens.

    python bench/brief.py [--tickers AAPL,NVDA,...] [--repeat 3] [--as-of 2025-08-29] [--clear-cache]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from findesk.core.config import Settings
from findesk.core.result import Err
from findesk.data.context import resolve_context
from findesk.testing.fake_briefing_models import briefing_models
from findesk.tools.catalog import close_tool_context, open_tool_context
from findesk.workflows.brief.run import run_briefing

TICKERS = ("AAPL", "NVDA", "MSFT", "AMZN", "GOOGL", "TSLA", "META", "F")


async def _cold(symbol: str, as_of: str) -> dict[str, float]:
    settings = Settings()
    context = resolve_context(settings, mode="snapshot", as_of=as_of)
    assert not isinstance(context, Err), context
    started = time.perf_counter()
    done = await run_briefing(symbol, settings=settings, context=context.value, mode="deterministic")
    assert not isinstance(done, Err), done
    return {"cold_s": time.perf_counter() - started}


async def _warm_and_model(tickers: list[str], as_of: str, repeat: int) -> dict[str, dict[str, float]]:
    settings = Settings()
    context = resolve_context(settings, mode="snapshot", as_of=as_of)
    assert not isinstance(context, Err), context
    tools = await open_tool_context(settings, context.value)
    assert not isinstance(tools, Err), tools
    out: dict[str, dict[str, float]] = {}
    try:
        for symbol in tickers:
            await run_briefing(
                symbol, settings=settings, context=context.value, tools=tools.value, mode="deterministic"
            )
            times, cpu = [], []
            for _ in range(repeat):
                started, started_cpu = time.perf_counter(), time.process_time()
                done = await run_briefing(
                    symbol, settings=settings, context=context.value, tools=tools.value, mode="deterministic"
                )
                times.append(time.perf_counter() - started)
                cpu.append(time.process_time() - started_cpu)
                assert not isinstance(done, Err), done
            resolve, _ = briefing_models()
            model_run = await run_briefing(
                symbol, settings=settings, context=context.value, tools=tools.value, models=resolve
            )
            assert not isinstance(model_run, Err), model_run
            audit = model_run.value.briefing.audit
            out[symbol] = {
                "warm_s": statistics.median(times),
                "warm_cpu_s": statistics.median(cpu),
                "round_trips": audit.model_round_trips,
                "input_tokens": sum(a.input_tokens for a in audit.agents),
                "output_tokens": sum(a.output_tokens for a in audit.agents),
                "fell_back": any(a.fell_back for a in audit.agents),
            }
    finally:
        await close_tool_context(tools.value)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tickers", default=",".join(TICKERS))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--as-of", default="2025-08-29")
    parser.add_argument("--clear-cache", action="store_true", help="cold runs start from an empty cache dir")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # child process: one cold briefing, JSON out
    args = parser.parse_args()
    if args.one:
        print(json.dumps(asyncio.run(_cold(args.one, args.as_of))))
        return
    tickers = [t.strip().upper() for t in args.tickers.split(",") if t.strip()]
    env = dict(os.environ)
    if args.clear_cache:
        env["FINDESK_CACHE_DIR"] = tempfile.mkdtemp(prefix="findesk-bench-cache-")
    cold: dict[str, float] = {}
    for symbol in tickers:
        child = subprocess.run(
            [sys.executable, __file__, "--one", symbol, "--as-of", args.as_of],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        cold[symbol] = json.loads(child.stdout.strip().splitlines()[-1])["cold_s"]
    rows = asyncio.run(_warm_and_model(tickers, args.as_of, args.repeat))
    print(
        f"advisor briefing on the snapshot as of {args.as_of} (deterministic latency; model path with fakes)"
    )
    print(
        f"{'ticker':<7}{'cold s':>8}{'warm s':>8}{'warm cpu s':>11}{'round trips':>13}"
        f"{'input tok':>11}{'output tok':>11}"
    )
    for symbol in tickers:
        r = rows[symbol]
        print(
            f"{symbol:<7}{cold[symbol]:>8.2f}{r['warm_s']:>8.3f}{r['warm_cpu_s']:>11.3f}{r['round_trips']:>13.0f}"
            f"{r['input_tokens']:>11,.0f}{r['output_tokens']:>11,.0f}"
            + ("  (fell back)" if r["fell_back"] else "")
        )
    warm = [rows[s]["warm_s"] for s in tickers]
    tokens = [rows[s]["input_tokens"] for s in tickers]
    trips = max(rows[s]["round_trips"] for s in tickers)
    print(
        f"max warm {max(warm):.3f} s (target < 1 s) · max round trips {trips:.0f} (target ≤ 3) · "
        f"max input tokens {max(tokens):,.0f} (target ≤ 15,000)"
    )


if __name__ == "__main__":
    main()
