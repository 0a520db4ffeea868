"""The tool executor's guarantees: never raises, size caps, timeouts, clear argument errors."""

from __future__ import annotations

import asyncio
from datetime import date
from typing import Any, cast

from pydantic import BaseModel, ConfigDict

from findesk.core.result import Ok, Result
from findesk.data.context import DataContext
from findesk.tools.base import MAX_RESULT_CHARS, MAX_SUMMARY_CHARS, Tool, ToolContext, execute


class Args(BaseModel):
    model_config = ConfigDict(extra="forbid")
    n: int


CTX = ToolContext(cast(Any, None), cast(Any, None), DataContext(mode="snapshot", as_of=date(2025, 8, 29)))


def _tool(fn: Any, **kw: Any) -> Tool:
    return Tool(name="t", description="test tool", args=Args, fn=fn, **kw)


async def test_oversized_results_are_capped_for_the_model_and_the_audit_log() -> None:
    async def big(args: Args, ctx: ToolContext) -> Result[Any]:
        return Ok({"text": "x" * (MAX_RESULT_CHARS + 10)})

    outcome = await execute(_tool(big), "t", {"n": 1}, CTX)
    assert outcome.ok and outcome.truncated
    assert len(outcome.summary) <= MAX_SUMMARY_CHARS and "more characters cut" in outcome.summary
    assert outcome.payload["truncated"] is True and len(outcome.payload["preview"]) == MAX_RESULT_CHARS
    assert outcome.payload["chars"] > MAX_RESULT_CHARS


async def test_a_slow_tool_times_out_as_data() -> None:
    async def slow(args: Args, ctx: ToolContext) -> Result[Any]:
        await asyncio.Event().wait()  # never finishes: only the timeout can end the call
        return Ok(1)

    # the outer wait only guards against a hang if the tool's own timeout were ignored
    outcome = await asyncio.wait_for(execute(_tool(slow, timeout_s=0.05), "t", {"n": 1}, CTX), 60)
    assert outcome.error_code == "timeout" and "did not finish within 0.05 s" in outcome.summary


async def test_a_crash_in_the_tool_or_its_summary_is_contained() -> None:
    async def crash(args: Args, ctx: ToolContext) -> Result[Any]:
        raise KeyError("missing column")

    outcome = await execute(_tool(crash), "t", {"n": 1}, CTX)
    assert outcome.error_code == "unavailable" and "t failed: KeyError" in outcome.summary

    async def fine(args: Args, ctx: ToolContext) -> Result[Any]:
        return Ok({"v": 42})

    def bad_summary(value: Any) -> str:
        raise ValueError("oops")

    outcome = await execute(_tool(fine, summarize=bad_summary), "t", {"n": 1}, CTX)
    assert outcome.ok and '"v":42' in outcome.summary and "summary unavailable" in outcome.summary


async def test_argument_errors_name_the_field() -> None:
    async def fine(args: Args, ctx: ToolContext) -> Result[Any]:
        return Ok(args.n)

    wrong = await execute(_tool(fine), "t", {"n": "many", "extra": 1}, CTX)
    assert wrong.error_code == "invalid_input"
    assert "n:" in wrong.summary and "extra:" in wrong.summary
    assert (await execute(None, "ghost", {}, CTX)).summary.startswith(
        "invalid_input: there is no tool called"
    )
