"""The runs a server process has under way, which may outlive the request that started them.

Rules:
- A run is a task of its own, not part of its request: a client that leaves must not stop the run's
  bookkeeping (its events reaching the audit log, its cost settled against the key).
- Every run task is held here until it ends: the event loop keeps only weak references to tasks, and
  a run collected half-way would never be settled.
- ``settle`` (at server shutdown, before the workers and the databases close) waits up to a grace
  period for the runs to end; the rest are cancelled, and each settles itself as it unwinds
  (``run_stream``: what it spent, or its reservation if a worker may still be spending).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

SETTLE_GRACE_S = 10.0


class RunTasks:
    """Create with no arguments inside or outside a loop; ``start`` and ``settle`` from the loop."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def __len__(self) -> int:
        return len(self._tasks)

    def start(self, work: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        task = asyncio.create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def settle(self, grace_s: float | None = None) -> None:
        """Let the runs under way end within ``grace_s`` (default ``SETTLE_GRACE_S``), cancel the rest,
        and wait for them to unwind."""
        if not self._tasks:
            return
        grace = SETTLE_GRACE_S if grace_s is None else grace_s
        _done, late = await asyncio.wait(set(self._tasks), timeout=grace)
        for task in late:
            task.cancel()
        if late:
            await asyncio.gather(*late, return_exceptions=True)
