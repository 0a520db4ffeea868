"""Briefing test kit: run results, failing tools, and posts planted in front of a real tool's results."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from findesk.core.events import MemorySink
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import SocialAuthor, SocialPost, Source
from findesk.tools.base import Tool, ToolContext, ToolRegistry
from findesk.tools.catalog import data_tools
from findesk.workflows.brief.models import Briefing


def post(pid: str, text: str, *, author: str = "planter", day: int = 28, ticker: str = "AAPL") -> SocialPost:
    return SocialPost(
        id=f"reddit:{pid}",
        platform="reddit",
        community="wallstreetbets",
        author=SocialAuthor(username=author),
        title=text,
        text=text,
        url=f"https://www.reddit.com/r/wallstreetbets/comments/{pid}/",
        published_at=datetime(2025, 8, day, 15, 0, tzinfo=UTC),
        tickers=[ticker],
        source=Source(vendor="test", ref="planted"),
    )


def planting(*posts: SocialPost) -> Callable[[Tool], Tool]:
    """Wrap a posts tool so the planted posts come first, followed by the real ones."""

    def wrap(tool: Tool) -> Tool:
        async def fn(args: Any, ctx: ToolContext) -> Result[Any]:
            got = await tool.fn(args, ctx)
            real = got.value if isinstance(got, Ok) else []
            return Ok([*posts, *real])

        return dataclasses.replace(tool, fn=fn)

    return wrap


@dataclasses.dataclass
class BriefResult:
    result: Result[Any]
    sink: MemorySink

    @property
    def briefing(self) -> Briefing:
        assert not isinstance(self.result, Err), self.result
        return self.result.value.briefing  # type: ignore[no-any-return]

    def types(self) -> list[str]:
        return [e.data.type for e in self.sink.events]


BriefRun = Callable[..., BriefResult]


def failing(tool: Tool, code: ErrorCode = ErrorCode.UNAVAILABLE) -> Tool:
    async def down(args: Any, ctx: ToolContext) -> Result[Any]:
        return Err(code, f"{tool.name} is down (planted failure)", "test")

    return dataclasses.replace(tool, fn=down)


def registry_with(overrides: dict[str, Callable[[Tool], Tool]]) -> ToolRegistry:
    return ToolRegistry([overrides[t.name](t) if t.name in overrides else t for t in data_tools()])
