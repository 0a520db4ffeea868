"""Whole-process speed as a user feels it, on the offline snapshot with warm caches.

Three figures (targets from the speed issue):

1. ``findesk --help``: wall seconds of the whole process (target ≤ 0.25 s).
2. ``findesk brief AAPL -q``: wall seconds of the whole process, caches warm: one unmeasured run
   first fills the on-disk caches (parsed snapshot stores, price index, filing sections), as on any
   machine that ran findesk before (target ≤ 1.2 s).
3. ``findesk.brief()`` once per ticker vs the same briefings over one shared tool context
   (``run_briefing(..., tools=ctx)``), each variant in its own fresh process, imports excluded, the
   shared context's opening included (target: per-call ≤ 1.5 × shared).

Each whole-process figure is the median of ``--runs`` runs (min shown too); CPU is user + system
seconds of the child, which other load on the machine inflates much less than wall time. The
environment is passed on unchanged; ``--bytecode cached`` runs the children with a private
bytecode cache (``PYTHONPYCACHEPREFIX``), as an installed package has, when this environment sets
``PYTHONDONTWRITEBYTECODE`` and so recompiles findesk's own modules in every process.

    python bench/speed.py [--tickers AAPL,MSFT,...] [--runs 5] [--as-of 2025-08-29]
                          [--bytecode env|cached] [--skip-process] [--skip-api]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TICKERS = ("AAPL", "MSFT", "NVDA", "AMZN", "GOOGL", "META", "JPM", "XOM", "JNJ", "PG")


def _findesk() -> list[str]:
    """The installed ``findesk`` command next to this interpreter, else ``python -m findesk``."""
    script = Path(sys.executable).with_name("findesk")
    if script.is_file():
        return [str(script)]
    found = shutil.which("findesk")
    return [found] if found else [sys.executable, "-m", "findesk"]


def _timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one child process; it must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _process(label: str, cmd: list[str], env: dict[str, str], runs: int, target: float) -> None:
    _timed(cmd, env)  # warm: page cache, bytecode cache, findesk's own on-disk caches
    walls, cpus = zip(*(_timed(cmd, env) for _ in range(runs)), strict=True)
    wall = statistics.median(walls)
    print(
        f"{label:<28} wall median {wall:6.2f} s  min {min(walls):5.2f} s  cpu median "
        f"{statistics.median(cpus):5.2f} s  (target ≤ {target} s{', met' if wall <= target else ''})"
    )


def _child(variant: str, tickers: list[str], as_of: str) -> dict[str, list[float]]:
    """Run in a fresh process: the briefings of ``tickers`` one way; seconds after imports, in
    total and per briefing (the shared context's opening counts toward the first)."""
    import asyncio

    from findesk.core.config import Settings
    from findesk.core.result import Err
    from findesk.data.context import resolve_context
    from findesk.tools.catalog import close_tool_context, open_tool_context
    from findesk.workflows.brief.run import brief, run_briefing

    started = time.perf_counter()
    marks: list[float] = []
    if variant == "api":
        for symbol in tickers:
            done = brief(symbol, as_of=as_of, mode="deterministic", snapshot=True)
            assert not isinstance(done, Err), (symbol, done)
            marks.append(time.perf_counter())
    else:

        async def shared() -> None:
            settings = Settings()
            context = resolve_context(settings, mode="snapshot", as_of=as_of)
            assert not isinstance(context, Err), context
            tools = await open_tool_context(settings, context.value)
            assert not isinstance(tools, Err), tools
            try:
                for symbol in tickers:
                    done = await run_briefing(
                        symbol,
                        settings=settings,
                        context=context.value,
                        tools=tools.value,
                        mode="deterministic",
                    )
                    assert not isinstance(done, Err), (symbol, done)
                    marks.append(time.perf_counter())
            finally:
                await close_tool_context(tools.value)

        asyncio.run(shared())
    total = time.perf_counter() - started
    each = [b - a for a, b in zip([started, *marks], marks, strict=False)]
    return {"total": [total], "each": each}


def _api(tickers: list[str], as_of: str, env: dict[str, str]) -> None:
    seconds: dict[str, float] = {}
    each: dict[str, list[float]] = {}
    for variant in ("shared", "api"):
        child = subprocess.run(
            [sys.executable, __file__, "--child", variant, "--tickers", ",".join(tickers), "--as-of", as_of],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        got = json.loads(child.stdout.strip().splitlines()[-1])
        seconds[variant], each[variant] = got["total"][0], got["each"]
    ratio = seconds["api"] / seconds["shared"]
    n = len(tickers)
    for label, key in (("brief() per ticker", "api"), ("one shared tool context", "shared")):
        first, rest = each[key][0], statistics.median(each[key][1:]) if n > 1 else float("nan")
        print(
            f"{label:<28} {seconds[key]:6.2f} s for {n} tickers (first {first:.2f} s, "
            f"then median {rest:.2f} s each)"
        )
    print(f"{'ratio':<28} {ratio:6.2f} ×  (target ≤ 1.5 ×{', met' if ratio <= 1.5 else ''})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tickers", default=",".join(TICKERS), help="comma-separated, for the API figure")
    parser.add_argument("--runs", type=int, default=5, help="whole-process runs per command (median)")
    parser.add_argument("--as-of", default="2025-08-29")
    parser.add_argument("--bytecode", choices=("env", "cached"), default="env")
    parser.add_argument("--skip-process", action="store_true", help="skip the two whole-process figures")
    parser.add_argument("--skip-api", action="store_true", help="skip the brief() vs shared-context figure")
    parser.add_argument("--child", choices=("api", "shared"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    tickers = [t.strip().upper() for t in args.tickers.split(",") if t.strip()]
    if args.child:
        print(json.dumps(_child(args.child, tickers, args.as_of)))
        return
    env = dict(os.environ)
    if args.bytecode == "cached":
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "findesk-bench-pycache")
    bytecode = "cached" if not env.get("PYTHONDONTWRITEBYTECODE") else "not written (PYTHONDONTWRITEBYTECODE)"
    python = sys.version.split()[0]
    print(f"findesk speed on the snapshot as of {args.as_of}; bytecode {bytecode}; python {python}")
    if not args.skip_process:
        findesk = _findesk()
        _process("findesk --help", [*findesk, "--help"], env, args.runs, 0.25)
        _process("findesk brief AAPL -q (warm)", [*findesk, "brief", "AAPL", "-q"], env, args.runs, 1.2)
    if not args.skip_api:
        _api(tickers, args.as_of, env)


if __name__ == "__main__":
    main()
