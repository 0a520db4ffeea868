"""The tool catalog: every data tool in one registry, and the context tools run in.

Rules:
- ``default_registry`` is the one place tools are registered; later tool families add theirs here,
  and a duplicate name fails at start-up (``ToolRegistry.register``).
- ``open_tool_context`` builds the router for the run's data context and the filing-section
  service on top of it, then every service in ``SERVICE_FACTORIES`` (retrieval, memory, sandbox, mail
  as later issues add them), each registered under its key; a wrong vendor chain or a failing factory
  is an ``Err``, not an exception. Whoever opens a context closes it with ``close_tool_context`` (it
  closes the services in reverse order, then the router's vendors and HTTP client).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from findesk.core.config import Settings
from findesk.core.result import Err, Ok, Result
from findesk.core.sandbox import SandboxLimits
from findesk.data.context import DataContext
from findesk.data.registry import build_router
from findesk.knowledge.filings.sections import SectionService
from findesk.knowledge.memory.decisions import DecisionLog
from findesk.knowledge.memory.store import MemoryStore
from findesk.tools import (
    calculators,
    compliance,
    crypto_research,
    earnings,
    equity_research,
    etf,
    filings,
    highlights,
    macro_crypto,
    market,
    movers,
    news_search,
    report_email,
    scan,
    search_filings,
    social,
    trading_fundamentals,
    trading_market,
    trading_news,
)
from findesk.tools.base import Tool, ToolContext, ToolRegistry
from findesk.tools.report_email import Mailer


def data_tools() -> list[Tool]:
    """The data layer's capabilities as tools: market, filings, earnings dates, news/social, macro/crypto."""
    return [
        *market.TOOLS,
        *filings.TOOLS,
        *search_filings.TOOLS,
        *highlights.TOOLS,
        *earnings.TOOLS,
        *social.TOOLS,
        *macro_crypto.TOOLS,
        *calculators.TOOLS,
        *equity_research.TOOLS,
        *compliance.TOOLS,
        *crypto_research.TOOLS,
        *news_search.TOOLS,
        *etf.TOOLS,
        *trading_market.TOOLS,
        *trading_fundamentals.TOOLS,
        *trading_news.TOOLS,
        *scan.TOOLS,
        *movers.TOOLS,
        *report_email.TOOLS,
    ]


def default_registry() -> ToolRegistry:
    return ToolRegistry(data_tools())


@dataclass(frozen=True)
class ServiceFactory:
    """How one extra service of the tool context is opened and closed. ``key``: its type or name, as
    tools look it up (``ctx.service(key)``)."""

    key: type | str
    open: Callable[[Settings, ToolContext], Awaitable[Result[object]]]
    close: Callable[[object], Awaitable[None]] | None = None


async def _open_filing_index(settings: Settings, _ctx: ToolContext) -> Result[object]:
    from findesk.knowledge.retrieval.service import IndexSearch

    # opened (with tantivy and the embedding model) on the first search, so other runs pay nothing
    return Ok(IndexSearch(settings.index_target()))  # a directory, or PostgreSQL by URL


async def _close_service(service: object) -> None:
    # a blocking close (database connections, an open index) runs off the event loop
    close = getattr(service, "close", None)
    if close is not None:
        await asyncio.to_thread(close)


async def _open_memory(settings: Settings, _ctx: ToolContext) -> Result[object]:
    # connects on first use, so a run that never reads or writes memory creates no database
    return Ok(MemoryStore.from_settings(settings))


async def _open_decision_log(settings: Settings, _ctx: ToolContext) -> Result[object]:
    # the trading desk's decisions and reflections, beside the memory store; connects on first use
    return Ok(DecisionLog.from_settings(settings))


async def _open_mailer(settings: Settings, _ctx: ToolContext) -> Result[object]:
    # nothing connects until a report is sent; the folder is created when an .eml is written
    return Ok(Mailer(settings.email, settings.state_dir / "movers"))


async def _open_sandbox_limits(settings: Settings, _ctx: ToolContext) -> Result[object]:
    return Ok(SandboxLimits.model_validate(settings.sandbox.model_dump()))


# Later issues register their services here (retrieval, memory, sandbox, mail).
SERVICE_FACTORIES: list[ServiceFactory] = [
    ServiceFactory(search_filings.SERVICE, _open_filing_index, _close_service),
    ServiceFactory(MemoryStore, _open_memory, _close_service),
    ServiceFactory(DecisionLog, _open_decision_log, _close_service),
    ServiceFactory(Mailer, _open_mailer),
    ServiceFactory(SandboxLimits, _open_sandbox_limits),
]


async def open_tool_context(
    settings: Settings, context: DataContext, factories: list[ServiceFactory] | None = None
) -> Result[ToolContext]:
    router = build_router(settings, context)
    if isinstance(router, Err):
        return router
    sections = SectionService(router.value, settings.cache_dir)
    ctx = ToolContext(router=router.value, sections=sections, context=context)
    for factory in SERVICE_FACTORIES if factories is None else factories:
        opened = await factory.open(settings, ctx)
        if isinstance(opened, Err):
            await close_tool_context(ctx, factories)
            return Err(opened.code, f"{_name(factory.key)}: {opened.reason}")
        ctx.services[factory.key] = opened.value
    return Ok(ctx)


async def close_tool_context(ctx: ToolContext, factories: list[ServiceFactory] | None = None) -> None:
    for factory in reversed(SERVICE_FACTORIES if factories is None else factories):
        service = ctx.services.pop(factory.key, None)
        if service is not None and factory.close is not None:
            await factory.close(service)
    await ctx.router.aclose()


def _name(key: type | str) -> str:
    return key if isinstance(key, str) else key.__name__
