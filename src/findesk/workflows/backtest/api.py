"""``findesk.backtest``: the backtester from Python, as ``findesk backtest`` runs it.

Rules:
- One call, one report: the request (a ``BacktestRequest`` or a dict of it) is checked like the CLI's
  (unknown strategy, end before start, an end after the as-of date → ``Err``), then run on the same
  tool context the CLI opens (the desk's memory services off). Never raises on bad input; a look-ahead
  read is the one exception that propagates (``LookAheadError``): it is a bug in a strategy, not data.
- Settings come from the environment unless given; ``as_of`` defaults to the data's (the snapshot's
  2025-08-29 offline).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import date
from typing import Any

from pydantic import ValidationError

from findesk.core.config import Settings
from findesk.core.result import Err, ErrorCode, Result, validation_reason
from findesk.data.context import resolve_context
from findesk.workflows.backtest.models import BacktestReport, BacktestRequest


def backtest(
    request: BacktestRequest | Mapping[str, Any],
    *,
    as_of: str | date | None = None,
    settings: Settings | None = None,
    snapshot: bool | None = None,
) -> Result[BacktestReport]:
    """Run a backtest → ``Ok(BacktestReport)`` or ``Err``. Example:
    ``findesk.backtest({"tickers": ["AAPL"], "start": "2024-01-02", "end": "2024-03-28",
    "strategies": ["macd", "sma"]})``."""
    from findesk.tools.catalog import close_tool_context, open_tool_context
    from findesk.workflows.backtest.desk_strategy import backtest_factories
    from findesk.workflows.backtest.run import run_backtest

    if not isinstance(request, BacktestRequest):
        try:
            request = BacktestRequest.model_validate(dict(request))
        except ValidationError as exc:
            return Err(ErrorCode.INVALID_INPUT, f"backtest: {validation_reason(exc, limit=1)}")
    settings = settings or Settings()
    data_mode: Any = None if snapshot is None else ("snapshot" if snapshot else "live")
    day = as_of.isoformat() if isinstance(as_of, date) else as_of
    context = resolve_context(settings, mode=data_mode, as_of=day)
    if isinstance(context, Err):
        return context
    checked: BacktestRequest = request

    async def go() -> Result[BacktestReport]:
        opened = await open_tool_context(settings, context.value, backtest_factories())
        if isinstance(opened, Err):
            return opened
        try:
            return await run_backtest(checked, settings=settings, tools=opened.value)
        finally:
            await close_tool_context(opened.value, backtest_factories())

    return asyncio.run(go())
