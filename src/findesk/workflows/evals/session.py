"""One tool context on the snapshot for a whole evaluation, as a server keeps one for its runs.

Rules: never raises; a context that cannot be opened is the ``Err``; the context is closed however the
work ends.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import date
from typing import TypeVar

from findesk.core.config import Settings
from findesk.core.result import Err, Ok, Result
from findesk.data.context import resolve_context
from findesk.tools.base import ToolContext
from findesk.tools.catalog import close_tool_context, open_tool_context

T = TypeVar("T")


async def with_snapshot_tools(
    settings: Settings, as_of: date, work: Callable[[ToolContext], Awaitable[T]]
) -> Result[T]:
    """``work`` given a tool context opened on the snapshot at ``as_of`` (each run still resolves its
    own as-of date), then closed."""
    first = resolve_context(settings, mode="snapshot", as_of=as_of)
    if isinstance(first, Err):
        return first
    opened = await open_tool_context(settings, first.value)
    if isinstance(opened, Err):
        return opened
    try:
        return Ok(await work(opened.value))
    finally:
        await close_tool_context(opened.value)
