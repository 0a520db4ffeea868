"""The look-ahead audit of data reads: a read of anything after the session fails, with the method, the
session and the date read named; reads on or before it pass untouched."""

from __future__ import annotations

import asyncio
from datetime import date, timedelta

import pytest

from findesk.analytics.backtest.history import LookAheadError
from findesk.core.result import Ok, Result
from findesk.data.models import PriceBar, PriceBars
from findesk.data.models.base import Source
from findesk.data.router import DataRouter
from findesk.data.vendors.base import Category, Vendor
from findesk.tools.base import ToolContext
from findesk.workflows.backtest.audit import AuditedRouter

SESSION = date(2024, 5, 10)


def test_reads_up_to_the_session_pass_and_are_recorded(bt_tools: ToolContext) -> None:
    audited = AuditedRouter(bt_tools.router, SESSION)
    got = asyncio.run(audited.bars("NVDA", date(2024, 4, 1), SESSION, as_of=SESSION))
    assert isinstance(got, Ok)
    assert got.value.bars[-1].date == SESSION
    news = asyncio.run(audited.news("NVDA", SESSION))
    assert audited.violations == []
    assert audited.reads[0].method == "bars" and audited.reads[0].latest == SESSION
    assert {r.method for r in audited.reads} == {"bars", "news"}
    assert isinstance(news, Ok) or audited.reads[1].latest is None


def test_asking_for_tomorrows_close_is_an_error_naming_method_session_and_date(bt_tools: ToolContext) -> None:
    audited = AuditedRouter(bt_tools.router, SESSION)
    tomorrow = SESSION + timedelta(days=3)  # Monday 2024-05-13
    with pytest.raises(LookAheadError) as raised:
        asyncio.run(audited.bars("NVDA", SESSION, tomorrow, as_of=tomorrow))
    message = str(raised.value)
    assert "router.bars" in message and "2024-05-10" in message and "2024-05-13" in message
    assert audited.violations  # kept even if a tool swallowed the exception
    with pytest.raises(LookAheadError):
        audited.check()


class _LeakyVendor(Vendor):
    """A vendor with a point-in-time bug: it serves the bar after ``as_of`` too."""

    name = "leaky"
    categories = frozenset({Category.BARS})

    async def bars(self, symbol: str, start: date, end: date, as_of: date) -> Result[PriceBars]:
        later = as_of + timedelta(days=1)
        bar = PriceBar(date=later, open=1.0, high=1.0, low=1.0, close=1.0, volume=1)
        return Ok(
            PriceBars(
                symbol=symbol,
                adjusted=True,
                start=start,
                end=later,
                bars=[bar],
                source=Source(vendor="leaky", ref="test"),
            )
        )


def test_an_answer_dated_after_the_session_is_caught_even_with_an_honest_as_of() -> None:
    # the audit looks at what came back, not at what was promised
    audited = AuditedRouter(DataRouter({Category.BARS: [_LeakyVendor()]}), SESSION)
    with pytest.raises(LookAheadError, match="answered with data dated 2024-05-11"):
        asyncio.run(audited.bars("NVDA", SESSION, SESSION, as_of=SESSION))


def test_the_audited_router_shares_the_vendors_and_never_closes_them(bt_tools: ToolContext) -> None:
    audited = AuditedRouter(bt_tools.router, SESSION)
    assert audited.chains is bt_tools.router.chains
    asyncio.run(audited.aclose())
    again = asyncio.run(bt_tools.router.bars("NVDA", SESSION, SESSION, as_of=SESSION))
    assert isinstance(again, Ok)
