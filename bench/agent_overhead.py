"""Agent-runtime overhead with zero-latency fakes, and parallel fan-out efficiency.

Per tool call: a deterministic role whose playbook issues N independent calls to a tool that
returns at once; overhead = wall time / N (argument validation, summary, result capping, the
tool_call/tool_result events, the memo). Per model turn: a scripted zero-latency model that makes
one tool call a turn for T turns, then submits; overhead = (wall − T × per-tool-call) / T (request
building, the llm_call and token events, usage and cost accounting, validation of the report).
Both are measured with events going to memory, and again with the SQLite audit log attached.
Fan-out: tools that sleep for simulated latencies run in one playbook stage and in one model turn;
the ratio is wall time / slowest branch. Targets (issue #3): < 2 ms per tool call, < 5 ms per model
turn, fan-out ratio ≤ 1.1.

    python bench/agent_overhead.py [--calls 2000] [--turns 200] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel, ConfigDict

from findesk.agents.role import Caps, DeterministicPolicy, Outcomes, PlannedCall, Role
from findesk.agents.runtime import AgentRuntime, Budget
from findesk.core.events import EventBus, MemorySink, Sink, Tracer
from findesk.core.events.audit import AuditLog
from findesk.core.llm.chain import ModelChain
from findesk.core.llm.pricing import PriceTable
from findesk.core.llm.types import TokenUsage
from findesk.core.result import Ok, Result
from findesk.data.context import DataContext
from findesk.testing.fake_models import ScriptedModel, reply, submit
from findesk.tools.base import Tool, ToolContext, ToolRegistry

FANOUT_MS = (40, 80, 120, 160, 200)


class In(BaseModel):
    model_config = ConfigDict(extra="forbid")
    n: int


class Arg(BaseModel):
    model_config = ConfigDict(extra="forbid")
    i: int


class Out(BaseModel):
    count: int
    summary: str


def _registry() -> ToolRegistry:
    async def instant(args: Arg, ctx: ToolContext) -> Result[Any]:
        return Ok({"i": args.i, "price": 101.25, "note": "zero-latency fake"})

    tools = [Tool("instant", "returns at once", Arg, cast(Any, instant))]
    for ms in FANOUT_MS:

        async def sleeper(args: Arg, ctx: ToolContext, _ms: int = ms) -> Result[Any]:
            await asyncio.sleep(_ms / 1000)
            return Ok({"slept_ms": _ms})

        tools.append(Tool(f"sleep_{ms}", f"sleeps {ms} ms", Arg, cast(Any, sleeper)))
    return ToolRegistry(tools)


def _role(stage: Any, name: str = "bench") -> Role[In, Out]:
    def compose(inputs: In, outcomes: Outcomes) -> Out:
        return Out(count=len(outcomes), summary=f"{len(outcomes)} outcomes")

    return Role(
        name=name,
        description="bench",
        system_prompt="bench",
        tools=("instant", *(f"sleep_{ms}" for ms in FANOUT_MS)),
        input_schema=In,
        output_schema=Out,
        policy=DeterministicPolicy(stages=(stage,), compose=compose),
        task=lambda i: "bench",
        caps=Caps(max_iterations=100_000, max_tool_calls_per_turn=16),
        prefetch=False,
    )


def _many(inputs: In, _: Outcomes) -> list[PlannedCall]:
    return [PlannedCall(f"c{i}", "instant", {"i": i}) for i in range(inputs.n)]


def _fan(inputs: In, _: Outcomes) -> list[PlannedCall]:
    return [PlannedCall(f"s{ms}", f"sleep_{ms}", {"i": ms}) for ms in FANOUT_MS]


def _ctx() -> ToolContext:
    return ToolContext(
        cast(Any, None), cast(Any, None), DataContext(mode="snapshot", as_of=date(2025, 8, 29))
    )


def _chain(model: ScriptedModel) -> ModelChain:
    return ModelChain([model], PriceTable(), max_retries=0)


async def _tool_calls(n: int, sinks: list[Sink]) -> float:
    runtime = AgentRuntime(_registry(), _ctx())
    tracer = Tracer(EventBus(sinks))
    started = time.perf_counter()
    await runtime.run(_role(_many), In(n=n), tracer)
    return (time.perf_counter() - started) * 1000 / n


async def _model_turns(turns: int, per_call_ms: float, sinks: list[Sink]) -> float:
    usage = TokenUsage(input_tokens=1200, output_tokens=80)
    steps: list[Any] = [reply("checking", [("instant", {"i": t})], usage=usage) for t in range(turns)]
    steps.append(submit(Out(count=turns, summary="done"), usage=usage))
    model = ScriptedModel(steps)
    runtime = AgentRuntime(_registry(), _ctx(), models=lambda role: Ok(_chain(model)), budget=Budget(1e9))
    tracer = Tracer(EventBus(sinks))
    started = time.perf_counter()
    outcome = await runtime.run(_role(_many), In(n=0), tracer)
    wall = (time.perf_counter() - started) * 1000
    assert outcome.mode == "model" and not outcome.fell_back, outcome.warnings
    return (wall - turns * per_call_ms) / (turns + 1)


async def _fanout(model_driven: bool) -> float:
    slowest = max(FANOUT_MS)
    if model_driven:
        calls = [(f"sleep_{ms}", {"i": ms}) for ms in FANOUT_MS]
        model = ScriptedModel([reply("", calls), submit(Out(count=5, summary="done"))])
        runtime = AgentRuntime(_registry(), _ctx(), models=lambda role: Ok(_chain(model)), budget=Budget(1e9))
    else:
        runtime = AgentRuntime(_registry(), _ctx())
    tracer = Tracer(EventBus([MemorySink()]))
    started = time.perf_counter()
    await runtime.run(_role(_fan), In(n=0), tracer, mode="model" if model_driven else "deterministic")
    return (time.perf_counter() - started) * 1000 / slowest


def _median(values: list[float]) -> float:
    return statistics.median(values)


async def main(calls: int, turns: int, repeat: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        audit = AuditLog.open(f"sqlite:///{Path(tmp) / 'audit.sqlite3'}").unwrap()
        await _tool_calls(200, [MemorySink()])  # warm-up: imports, pydantic schema caches
        rows = []
        for label, sink_factory in (
            ("memory", lambda: [MemorySink()]),
            ("memory + audit log", lambda: [MemorySink(), audit]),
        ):
            tool_ms = _median([await _tool_calls(calls, sink_factory()) for _ in range(repeat)])
            turn_ms = _median([await _model_turns(turns, tool_ms, sink_factory()) for _ in range(repeat)])
            rows.append((label, tool_ms, turn_ms))
        audit.flush()
        audit.close()
    print(
        f"runtime overhead, zero-latency fakes ({calls} tool calls, {turns} model turns, median of {repeat})"
    )
    print(f"{'events to':<20} {'per tool call':>14} {'per model turn':>15}")
    for label, tool_ms, turn_ms in rows:
        print(f"{label:<20} {tool_ms:>11.3f} ms {turn_ms:>12.3f} ms")
    print("targets: < 2 ms per tool call, < 5 ms per model turn")
    print()
    print(f"parallel fan-out: {len(FANOUT_MS)} branches sleeping {', '.join(map(str, FANOUT_MS))} ms")
    det = _median([await _fanout(False) for _ in range(repeat)])
    mod = _median([await _fanout(True) for _ in range(repeat)])
    print(f"playbook stage (deterministic)  wall / slowest branch = {det:.3f}")
    print(f"one model turn (scripted model) wall / slowest branch = {mod:.3f}")
    print("target: ≤ 1.1")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    ns = parser.parse_args()
    asyncio.run(main(ns.calls, ns.turns, ns.repeat))
