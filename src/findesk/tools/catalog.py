"""The tool catalog: every data tool in one registry, and the context tools run in.

Rules:
- ``default_registry`` is the one place tools are registered; later tool families add theirs here,
  and a duplicate name fails at start-up (``ToolRegistry.register``).
- ``open_tool_context`` builds the router for the run's data context and the filing-section
  service on top of it; a wrong vendor chain is an ``Err``, not an exception. Whoever opens a
  context closes it with ``close_tool_context`` (it closes the router's vendors and HTTP client).
"""

from __future__ import annotations

from findesk.core.config import Settings
from findesk.core.result import Err, Ok, Result
from findesk.data.context import DataContext
from findesk.data.registry import build_router
from findesk.knowledge.filings.sections import SectionService
from findesk.tools import earnings, filings, highlights, macro_crypto, market, social
from findesk.tools.base import Tool, ToolContext, ToolRegistry


def data_tools() -> list[Tool]:
    """The data layer's capabilities as tools: market, filings, earnings dates, news/social, macro/crypto."""
    return [
        *market.TOOLS,
        *filings.TOOLS,
        *highlights.TOOLS,
        *earnings.TOOLS,
        *social.TOOLS,
        *macro_crypto.TOOLS,
    ]


def default_registry() -> ToolRegistry:
    return ToolRegistry(data_tools())


async def open_tool_context(settings: Settings, context: DataContext) -> Result[ToolContext]:
    router = build_router(settings, context)
    if isinstance(router, Err):
        return router
    sections = SectionService(router.value, settings.cache_dir)
    return Ok(ToolContext(router=router.value, sections=sections, context=context))


async def close_tool_context(ctx: ToolContext) -> None:
    await ctx.router.aclose()
