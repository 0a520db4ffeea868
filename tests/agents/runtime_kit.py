"""Runtime test kit: a tiny tool set that records its order and concurrency, a role over it, and a harness."""

from __future__ import annotations

import asyncio
from datetime import date
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field

from findesk.agents.role import (
    Caps,
    DeterministicPolicy,
    Outcomes,
    PlannedCall,
    Role,
    outcome_error,
    outcome_value,
)
from findesk.agents.runtime import AgentRuntime, Budget
from findesk.core.config import ModelPrice
from findesk.core.events import EventBus, MemorySink, Tracer
from findesk.core.llm.chain import ModelChain
from findesk.core.llm.pricing import PriceTable
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.context import DataContext
from findesk.testing.fake_models import ScriptedModel
from findesk.tools.base import Tool, ToolContext, ToolRegistry


class Args(BaseModel):
    model_config = ConfigDict(extra="forbid")
    symbol: str


class NumberArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    x: float


class Lab:
    """Records the order in which tools start and end, and how often each ran.

    ``together`` names tools that must be running at the same moment: a call to one of them waits (at
    most ``meet_timeout_s``, a guard against a hang) until every one of them has started, and notes in
    ``met`` whether they all did. Calls run one after another never meet, so a test sees concurrency
    without measuring time. Other tools yield to the event loop once and return.
    """

    def __init__(self, together: tuple[str, ...] = (), meet_timeout_s: float = 10.0) -> None:
        self.together = frozenset(together)
        self.meet_timeout_s = meet_timeout_s
        self.log: list[tuple[str, str]] = []  # ("start" | "end", tool name), in the order it happened
        self.executions: dict[str, int] = {}
        self.met: dict[str, bool] = {}
        self._arrived: set[str] = set()
        self._all_arrived = asyncio.Event()

    def position(self, event: str, name: str) -> int:
        """Where the first ``event`` ("start" or "end") of tool ``name`` is in the log."""
        return self.log.index((event, name))

    async def _meet(self, name: str) -> bool:
        self._arrived.add(name)
        if self._arrived >= self.together:
            self._all_arrived.set()
        try:
            await asyncio.wait_for(self._all_arrived.wait(), self.meet_timeout_s)
        except TimeoutError:
            return False
        return True

    def tool(self, name: str, value: Any, *, fail: ErrorCode | None = None, crash: bool = False) -> Tool:
        async def fn(args: BaseModel, ctx: ToolContext) -> Result[Any]:
            self.log.append(("start", name))
            self.executions[name] = self.executions.get(name, 0) + 1
            if name in self.together:
                met = await self._meet(name)
                self.met.setdefault(name, met)
            else:
                await asyncio.sleep(0)
            self.log.append(("end", name))
            if crash:
                raise RuntimeError("boom")
            if fail is not None:
                return Err(fail, f"{name} is down")
            return Ok(value(args) if callable(value) else value)

        args = NumberArgs if name == "double" else Args
        return Tool(name=name, description=f"the {name} tool", args=args, fn=fn)

    def registry(self, *, price_fails: bool = False) -> ToolRegistry:
        return ToolRegistry(
            [
                self.tool("price", {"price": 101.5}, fail=ErrorCode.UNAVAILABLE if price_fails else None),
                self.tool("volume", {"volume": 12345}),
                self.tool("double", lambda a: {"value": a.x * 2}),
                self.tool("broken", None, crash=True),
            ]
        )


class Q(BaseModel):
    model_config = ConfigDict(extra="forbid")
    symbol: str


class Report(BaseModel):
    symbol: str
    price: float | None = None
    volume: int | None = None
    doubled: float | None = None
    summary: str = Field(min_length=5)
    warnings: list[str] = Field(default_factory=list)


def _stage1(q: Q, _: Outcomes) -> list[PlannedCall]:
    return [
        PlannedCall("price", "price", {"symbol": q.symbol}),
        PlannedCall("volume", "volume", {"symbol": q.symbol}),
    ]


def _stage2(q: Q, done: Outcomes) -> list[PlannedCall]:
    price = outcome_value(done, "price")
    return [PlannedCall("doubled", "double", {"x": price["price"]})] if price else []


def _compose(q: Q, done: Outcomes) -> Report:
    price, volume, doubled = (outcome_value(done, k) for k in ("price", "volume", "doubled"))
    warnings = [e for e in (outcome_error(done, "price"),) if e]
    return Report(
        symbol=q.symbol,
        price=price["price"] if price else None,
        volume=volume["volume"] if volume else None,
        doubled=doubled["value"] if doubled else None,
        summary=f"deterministic report for {q.symbol}",
        warnings=warnings,
    )


def make_role(**overrides: Any) -> Role[Q, Report]:
    fields: dict[str, Any] = {
        "name": "tester",
        "description": "test role",
        "system_prompt": "You test.",
        "tools": ("price", "volume", "double", "broken"),
        "input_schema": Q,
        "output_schema": Report,
        "policy": DeterministicPolicy(stages=(_stage1, _stage2), compose=_compose),
        "task": lambda q: f"Report on {q.symbol}",
        "tier": "quick",
        "caps": Caps(max_iterations=4),
    }
    fields.update(overrides)
    return Role(**fields)


def tool_context() -> ToolContext:
    context = DataContext(mode="snapshot", as_of=date(2025, 8, 29))
    return ToolContext(router=cast(Any, None), sections=cast(Any, None), context=context)


PRICES = PriceTable(
    {"fake:scripted": ModelPrice(input=1.0, output=2.0), "fake:backup": ModelPrice(input=1.0, output=2.0)}
)


async def _no_sleep(seconds: float) -> None:
    SLEEPS.append(seconds)


SLEEPS: list[float] = []


def chain(*models: ScriptedModel, max_retries: int = 0) -> ModelChain:
    return ModelChain(list(models), PRICES, max_retries=max_retries, backoff_base_s=0.5, sleep=_no_sleep)


class Harness:
    def __init__(self, lab: Lab, registry: ToolRegistry, budget_usd: float = 1.0) -> None:
        self.lab = lab
        self.sink = MemorySink()
        self.tracer = Tracer(EventBus([self.sink]))
        self.registry = registry
        self.budget = Budget(limit_usd=budget_usd)

    def runtime(self, model_chain: ModelChain | None = None) -> AgentRuntime:
        if model_chain is None:
            return AgentRuntime(self.registry, tool_context(), budget=self.budget)
        return AgentRuntime(
            self.registry, tool_context(), models=lambda role: Ok(model_chain), budget=self.budget
        )

    def types(self) -> list[str]:
        return [e.data.type for e in self.sink.events]
