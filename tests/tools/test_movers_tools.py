"""The movers tools as an agent calls them, on the real snapshot: the history against SPY with a short
history (a shorter window, said), too short a history (no_data), and SPY missing (the relative figures
omitted and the reason given); python_analyzer refuses a payload with unknown keys before anything runs."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import date
from typing import Any

from findesk.core.result import Err, ErrorCode
from findesk.tools.base import ToolContext, ToolOutcome, execute
from findesk.tools.catalog import default_registry

Call = Callable[..., ToolOutcome]


def test_a_short_history_uses_a_shorter_window_and_says_so(call: Call) -> None:
    # the all-listed-stocks table starts 2024-01-02: by 2024-01-10 NEO has 6 (a scrape day is missing)
    out = call("get_history_vs_spy", at=date(2024, 1, 10), symbol="NEO")
    assert out.ok, out.summary
    h = out.result.value  # type: ignore[union-attr]
    assert h.sessions_asked == 21 and h.sessions_used == 5 and len(h.payload.dates) == 5
    assert any("only 6 session(s)" in w and "uses the last 5" in w for w in h.warnings), h.warnings
    too_short = call("get_history_vs_spy", at=date(2024, 1, 5), symbol="NEO")
    assert too_short.error_code == "no_data" and "at least 5" in too_short.summary


class _NoSpy:
    """The real router, except that SPY cannot be read (a vendor outage)."""

    def __init__(self, router: Any) -> None:
        self._router = router

    def __getattr__(self, name: str) -> Any:
        return getattr(self._router, name)

    async def bars(self, symbol: str, *args: Any) -> Any:
        if symbol == "SPY":
            return Err(ErrorCode.UNAVAILABLE, "SPY feed down (planted)")
        return await self._router.bars(symbol, *args)


def test_without_spy_the_relative_figures_are_omitted_and_the_reason_given(tool_ctx: ToolContext) -> None:
    ctx = ToolContext(router=_NoSpy(tool_ctx.router), sections=tool_ctx.sections, context=tool_ctx.context)  # type: ignore[arg-type]
    tool = default_registry().get("get_history_vs_spy")
    out = asyncio.run(execute(tool, "get_history_vs_spy", {"symbol": "NEO"}, ctx))
    assert out.ok, out.summary
    h = out.result.value  # type: ignore[union-attr]
    assert h.payload.spy_close is None
    assert h.spy_note is not None and "SPY feed down (planted)" in h.spy_note and "omitted" in h.spy_note
    assert "comparison with SPY is omitted" in out.summary


def test_python_analyzer_refuses_unknown_payload_keys_before_running(call: Call) -> None:
    payload = {
        "symbol": "NEO", "session": "2025-08-29", "dates": ["2025-08-28", "2025-08-29"], "close": [1.0, 2.0],
        "volume": [1.0, 2.0], "open": [None, None], "high": [None, None], "low": [None, None],
        "api_key": "please print me",
    }  # fmt: skip
    out = call("python_analyzer", payload=payload, program="print('ran')")
    assert out.error_code == "invalid_input" and "api_key" in out.summary
