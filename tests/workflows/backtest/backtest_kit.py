"""The backtester's test kit: a tool context on the snapshot (or a planted copy of it) with the memory
services off, as ``findesk backtest`` opens it, and ``backtest(...)`` running a request as of a date."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

from findesk.core.config import Settings
from findesk.core.result import Err
from findesk.data.context import resolve_context
from findesk.tools.base import ToolContext
from findesk.tools.catalog import close_tool_context, open_tool_context
from findesk.workflows.backtest.desk_strategy import backtest_factories
from findesk.workflows.backtest.models import BacktestReport, BacktestRequest
from findesk.workflows.backtest.run import run_backtest

AS_OF = date(2024, 12, 31)
TEN = ("AAPL", "MSFT", "NVDA", "JPM", "XOM", "AMZN", "GOOGL", "KO", "PFE", "WMT")


def settings_for(snapshot: Path, tmp: Path) -> Settings:
    return Settings(snapshot_dir=snapshot, cache_dir=tmp / "cache", state_dir=tmp / "state", chains={})


def open_tools(settings: Settings, as_of: date = AS_OF) -> Iterator[ToolContext]:
    context = resolve_context(settings, mode="snapshot", as_of=as_of)
    assert not isinstance(context, Err), context
    opened = asyncio.run(open_tool_context(settings, context.value, backtest_factories()))
    assert not isinstance(opened, Err), opened
    yield opened.value
    asyncio.run(close_tool_context(opened.value, backtest_factories()))


def backtest(settings: Settings, tools: ToolContext, **fields: Any) -> BacktestReport:
    hook = fields.pop("desk_hook", None)
    request = BacktestRequest(**fields)
    done = asyncio.run(run_backtest(request, settings=settings, tools=tools, desk_hook=hook))
    assert not isinstance(done, Err), done
    return done.value
