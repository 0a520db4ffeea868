"""Router behaviour: explicit chains, typed fall-through, no_data that says not to estimate."""

from __future__ import annotations

from datetime import date

import pytest

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import Quote, Source
from findesk.data.router import DataRouter
from findesk.data.vendors.base import Category, Vendor

AS_OF = date(2025, 8, 29)


class ScriptedQuoteVendor(Vendor):
    """A fake vendor that answers quotes from a script and records every call."""

    categories = frozenset({Category.QUOTE})

    def __init__(self, name: str, answer: Result[Quote] | None = None, code: ErrorCode | None = None) -> None:
        self.name = name
        self.calls: list[str] = []
        self._answer = (
            answer if answer is not None else Err(code or ErrorCode.NO_DATA, f"{name} has nothing", name)
        )

    async def quote(self, symbol: str, as_of: date) -> Result[Quote]:
        self.calls.append(symbol)
        return self._answer


def _quote(vendor: str) -> Ok[Quote]:
    return Ok(Quote(symbol="AAPL", session_date=AS_OF, price=232.14, source=Source(vendor=vendor, ref="x")))


@pytest.mark.parametrize(
    "code",
    [
        ErrorCode.UNAVAILABLE,
        ErrorCode.RATE_LIMITED,
        ErrorCode.TIMEOUT,
        ErrorCode.NO_DATA,
        ErrorCode.NOT_CONFIGURED,
    ],
)
async def test_falls_through_on_typed_source_errors(code: ErrorCode) -> None:
    first = ScriptedQuoteVendor("first", code=code)
    second = ScriptedQuoteVendor("second", answer=_quote("second"))
    router = DataRouter({Category.QUOTE: [first, second]})
    got = await router.quote("aapl", AS_OF)
    assert isinstance(got, Ok)
    assert got.value.source.vendor == "second"
    assert first.calls == ["AAPL"] and second.calls == ["AAPL"]


async def test_does_not_fall_through_on_caller_mistakes() -> None:
    first = ScriptedQuoteVendor("first", code=ErrorCode.INVALID_INPUT)
    second = ScriptedQuoteVendor("second", answer=_quote("second"))
    got = await DataRouter({Category.QUOTE: [first, second]}).quote("AAPL", AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT
    assert second.calls == []


async def test_never_uses_a_vendor_outside_the_chain() -> None:
    listed = ScriptedQuoteVendor("listed", code=ErrorCode.UNAVAILABLE)
    unlisted = ScriptedQuoteVendor("unlisted", answer=_quote("unlisted"))
    router = DataRouter({Category.QUOTE: [listed], Category.BARS: [unlisted]})
    got = await router.quote("AAPL", AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.UNAVAILABLE
    assert unlisted.calls == []


async def test_no_vendor_has_data_is_no_data_telling_not_to_estimate() -> None:
    a = ScriptedQuoteVendor("a", code=ErrorCode.NO_DATA)
    b = ScriptedQuoteVendor("b", code=ErrorCode.NOT_FOUND)
    got = await DataRouter({Category.QUOTE: [a, b]}).quote("AAPL", AS_OF)
    assert isinstance(got, Err)
    assert got.code is ErrorCode.NO_DATA
    assert "Do not estimate" in got.reason
    assert "a: no_data" in got.reason and "b: not_found" in got.reason
    assert [t["vendor"] for t in got.details["tried"]] == ["a", "b"]


async def test_source_problem_is_reported_over_no_data() -> None:
    a = ScriptedQuoteVendor("a", code=ErrorCode.TIMEOUT)
    b = ScriptedQuoteVendor("b", code=ErrorCode.NO_DATA)
    got = await DataRouter({Category.QUOTE: [a, b]}).quote("AAPL", AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.TIMEOUT


@pytest.mark.parametrize("symbol", ["VOD.L", "shop.to", "BRK.B"])
async def test_non_us_symbol_is_out_of_scope_before_any_vendor_call(symbol: str) -> None:
    vendor = ScriptedQuoteVendor("v", answer=_quote("v"))
    got = await DataRouter({Category.QUOTE: [vendor]}).quote(symbol, AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.OUT_OF_SCOPE
    assert vendor.calls == []


@pytest.mark.parametrize("symbol", ["", "   ", "AAPL!", "TOOLONGSYMBOL", "$AAPL"])
async def test_malformed_symbol_is_invalid_input(symbol: str) -> None:
    vendor = ScriptedQuoteVendor("v", answer=_quote("v"))
    got = await DataRouter({Category.QUOTE: [vendor]}).quote(symbol, AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT
    assert vendor.calls == []


async def test_empty_chain_is_not_configured() -> None:
    got = await DataRouter({}).quote("AAPL", AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_CONFIGURED


async def test_bars_start_after_end_is_invalid_input() -> None:
    got = await DataRouter({}).bars("SPY", date(2025, 8, 29), date(2025, 8, 1), AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT
