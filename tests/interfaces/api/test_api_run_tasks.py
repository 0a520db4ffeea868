"""Runs under way are held until they end, and server shutdown settles them: those that end within the
grace period end normally, the rest are cancelled and unwind (which is where a run settles its cost)."""

from __future__ import annotations

import asyncio
import gc

from findesk.interfaces.api.run_tasks import RunTasks


async def test_a_run_nobody_else_references_is_held_until_it_ends() -> None:
    tasks = RunTasks()
    finished: list[str] = []

    async def run() -> None:
        await asyncio.sleep(0.05)
        finished.append("run")

    tasks.start(run(), name="run")  # the caller keeps no reference, like a request that has ended
    gc.collect()
    assert len(tasks) == 1
    await asyncio.sleep(0.2)
    assert finished == ["run"] and len(tasks) == 0


async def test_settle_waits_for_quick_runs_and_cancels_the_rest_which_unwind() -> None:
    tasks = RunTasks()
    events: list[str] = []

    async def quick() -> None:
        await asyncio.sleep(0.05)
        events.append("quick ended")

    async def endless() -> None:
        try:
            await asyncio.sleep(3600)
        finally:
            await asyncio.sleep(0)  # a run settles with awaits of its own as it unwinds
            events.append("endless settled")

    tasks.start(quick(), name="quick")
    tasks.start(endless(), name="endless")
    await asyncio.wait_for(tasks.settle(0.3), 5)
    assert events == ["quick ended", "endless settled"] and len(tasks) == 0
    await tasks.settle()  # nothing under way: returns at once
