"""Yahoo's day_gainers screener as a ``ListedSession`` (respx serves the bodies; no network): the
hand-written fixture in the recorded shape (``tests/fixtures/yahoo/day_gainers_handwritten.json``)
and the real recorded list (snapshot ``http/yahoo/dailyGainers.json``) give Yahoo's own codes and
ETF flags in the snapshot's shape; an earlier session is ``no_data`` (live vendors never answer for
a past date); a malformed body is an ``Err``, never an exception; a stale cached copy is cited with
its fetch time and says so; and in live mode with Yahoo failing, a chain that names the snapshot
answers with the same shape."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
from collections.abc import AsyncIterator, Callable
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
import respx

from findesk.core.config import HttpSettings, Settings
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.context import resolve_context
from findesk.data.http.client import HttpClient
from findesk.data.models.market_scan import ListedSession
from findesk.data.registry import build_router
from findesk.data.router import DataRouter
from findesk.data.vendors.base import Category
from findesk.data.vendors.yahoo import SCREENER_URL, YahooVendor

FIXTURES = Path(__file__).parents[2] / "fixtures" / "yahoo"
FRIDAY = date(2025, 8, 29)
SCREENER = f"{SCREENER_URL}?scrIds=day_gainers&count=250"
Serve = Callable[[httpx.Response], tuple[YahooVendor, respx.Router]]


def fixture_body() -> dict[str, Any]:
    body: dict[str, Any] = json.loads((FIXTURES / "day_gainers_handwritten.json").read_text())
    return body


def _mock(response: httpx.Response) -> respx.Router:
    router = respx.Router(assert_all_called=False)
    router.get(SCREENER_URL, params={"scrIds": "day_gainers"}).mock(return_value=response)
    return router


@pytest.fixture
async def serve() -> AsyncIterator[Serve]:
    clients: list[HttpClient] = []

    def make(response: httpx.Response) -> tuple[YahooVendor, respx.Router]:
        mocked = _mock(response)
        settings = HttpSettings(retries=0, default_rps=0.0, rate_limits={})
        client = HttpClient(settings, transport=httpx.MockTransport(mocked.async_handler))
        clients.append(client)
        return YahooVendor(client, Settings()), mocked

    yield make
    for client in clients:
        await client.aclose()


async def _gainers(serve: Serve, response: httpx.Response, day: date = FRIDAY) -> Result[ListedSession]:
    vendor, mocked = serve(response)
    got = await vendor.day_gainers(day, day)
    assert mocked.calls.call_count == 1
    return got


# ---- the list as a ListedSession ---------------------------------------------------------------------


async def test_the_fixture_becomes_a_listed_session_with_yahoos_codes(serve: Serve) -> None:
    vendor, mocked = serve(httpx.Response(200, json=fixture_body()))
    got = await vendor.day_gainers(FRIDAY, FRIDAY)
    assert isinstance(got, Ok), got
    s = got.value
    assert s.session == FRIDAY  # 1756497600 = 16:00 New York on 2025-08-29
    assert s.symbols == ("AAOI", "AAPU", "ABAT", "ABLLW", "HOOD", "MP", "OPEN", "SOUN")  # alphabetical
    assert s.exchange_codes == ("NGM", "NGM", "NCM", "NCM", "NMS", "NYQ", "NMS", "NGM")
    assert s.exchanges == ("NASDAQ", "NASDAQ", "NASDAQ", "NASDAQ", "NASDAQ", "NYSE", "NASDAQ", "NASDAQ")
    assert s.etf_flags == (False, True, False, False, False, False, False, False)  # AAPU: quoteType ETF
    i = s.row("OPEN")
    assert i is not None
    assert (s.close[i], s.pct_change[i], s.volume[i], s.market_cap_usd[i]) == (
        4.21,
        18.5915,
        412336877.0,
        3075392512.0,
    )
    assert s.names[i] == "Opendoor Technologies Inc."  # longName before shortName
    warrant = s.row("ABLLW")
    assert warrant is not None and math.isnan(s.market_cap_usd[warrant])  # no marketCap: unknown
    assert s.names[warrant] == "Abacus Global Management, Inc."  # no longName: shortName
    assert s.sectors == (None,) * 8 and s.industries == (None,) * 8
    assert s.directory_date is None and s.market_cap_date == FRIDAY
    assert s.source.vendor == "yahoo" and s.source.ref == SCREENER and s.source.retrieved_at is not None
    assert "day_gainers screener" in s.notes[0] and "not every listed stock" in s.notes[0]
    for array in (s.close, s.pct_change, s.volume, s.market_cap_usd):
        assert array.dtype == np.float64 and not array.flags.writeable
    [call] = mocked.calls
    url = call.request.url
    assert url.host == "query1.finance.yahoo.com" and url.path == "/v1/finance/screener/predefined/saved"
    assert dict(url.params) == {"scrIds": "day_gainers", "count": "250"}


async def test_the_real_recorded_list(serve: Serve, snapshot_dir: Path) -> None:
    recorded = json.loads((snapshot_dir / "http/yahoo/dailyGainers.json").read_text())
    got = await _gainers(serve, httpx.Response(200, json=recorded["response"]["bodyJson"]), date(2025, 2, 21))
    assert isinstance(got, Ok), got
    s = got.value
    assert s.session == date(2025, 2, 20)  # regularMarketTime 1740085202 = 16:00 New York, 2025-02-20
    assert s.symbols == ("DBRG", "FTAI", "GDS", "HAS", "U")
    assert s.exchange_codes == ("NYQ", "NMS", "NGM", "NMS", "NYQ")
    assert s.exchanges == ("NYSE", "NASDAQ", "NASDAQ", "NASDAQ", "NYSE")
    assert s.etf_flags == (False,) * 5
    i = s.row("U")
    assert i is not None and (s.close[i], s.pct_change[i], s.volume[i]) == (28.0, 30.4145, 61661819.0)
    text = " ".join(s.notes)
    assert "Yahoo counts 76 matches; this list holds the first 5" in text
    assert "intradaymarketcap" in text and "intradayprice >= 5" in text  # its own criteria, stated


async def test_formatted_values_and_repeats(serve: Serve) -> None:
    body = fixture_body()
    quotes = body["finance"]["result"][0]["quotes"]
    quotes[1]["regularMarketPrice"] = {"raw": 4.21, "fmt": "4.21"}
    quotes.append(copy.deepcopy(quotes[1]) | {"regularMarketPrice": 9.99})  # a repeat: the first is kept
    got = await _gainers(serve, httpx.Response(200, json=body))
    assert isinstance(got, Ok)
    i = got.value.row("OPEN")
    assert i is not None and got.value.close[i] == 4.21 and got.value.symbols.count("OPEN") == 1


async def test_a_quote_of_an_older_session_is_left_out_with_a_note(serve: Serve) -> None:
    body = fixture_body()
    body["finance"]["result"][0]["quotes"][0]["regularMarketTime"] = 1756497600 - 86400  # Thursday
    got = await _gainers(serve, httpx.Response(200, json=body))
    assert isinstance(got, Ok)
    assert "ABLLW" not in got.value.symbols and len(got.value) == 7
    assert any("dated before 2025-08-29 were left out" in n and "ABLLW" in n for n in got.value.notes)


# ---- which session -----------------------------------------------------------------------------------


async def test_an_earlier_session_is_no_data(serve: Serve) -> None:
    got = await _gainers(serve, httpx.Response(200, json=fixture_body()), date(2025, 8, 28))
    assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA and got.source == "yahoo"
    assert "2025-08-29" in got.reason and "2025-08-28" in got.reason
    vendor, _ = serve(httpx.Response(200, json=fixture_body()))
    capped = await vendor.day_gainers(FRIDAY, date(2025, 8, 28))  # as_of before the list: no_data too
    assert isinstance(capped, Err) and capped.code is ErrorCode.NO_DATA


async def test_a_later_day_gets_the_last_session(serve: Serve) -> None:
    got = await _gainers(serve, httpx.Response(200, json=fixture_body()), date(2025, 8, 30))  # Saturday
    assert isinstance(got, Ok) and got.value.session == FRIDAY


# ---- malformed bodies: an Err, never an exception ----------------------------------------------------


def _without(field: str) -> dict[str, Any]:
    body = fixture_body()
    del body["finance"]["result"][0]["quotes"][2][field]
    return body


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(200, content=b"<html>not json</html>"),
        httpx.Response(200, json=[]),
        httpx.Response(200, json={"finance": "nope"}),
        httpx.Response(200, json={"finance": {"result": None, "error": None}}),
        httpx.Response(200, json={"finance": {"result": [{"quotes": "x"}], "error": None}}),
        httpx.Response(200, json={"finance": {"result": [{"quotes": [3]}], "error": None}}),
        httpx.Response(200, json=_without("symbol")),
        httpx.Response(200, json=_without("exchange")),
        httpx.Response(200, json=_without("regularMarketTime")),
    ],
)
async def test_malformed_bodies_are_bad_response(serve: Serve, response: httpx.Response) -> None:
    got = await _gainers(serve, response)
    assert isinstance(got, Err) and got.code is ErrorCode.BAD_RESPONSE


async def test_an_impossible_time_is_bad_response(serve: Serve) -> None:
    body = fixture_body()
    body["finance"]["result"][0]["quotes"][0]["regularMarketTime"] = 10**20
    got = await _gainers(serve, httpx.Response(200, json=body))
    assert isinstance(got, Err) and got.code is ErrorCode.BAD_RESPONSE


async def test_an_empty_list_is_no_data_and_an_error_body_is_unavailable(serve: Serve) -> None:
    body = fixture_body()
    body["finance"]["result"][0]["quotes"] = []
    empty = await _gainers(serve, httpx.Response(200, json=body))
    assert isinstance(empty, Err) and empty.code is ErrorCode.NO_DATA
    error = {"finance": {"result": None, "error": {"code": "Unauthorized", "description": "Invalid Crumb"}}}
    refused = await _gainers(serve, httpx.Response(200, json=error))
    assert (
        isinstance(refused, Err)
        and refused.code is ErrorCode.UNAVAILABLE
        and "Invalid Crumb" in refused.reason
    )


async def test_http_errors_are_typed(serve: Serve) -> None:
    down = await _gainers(serve, httpx.Response(500, text="oops"))
    assert isinstance(down, Err) and down.code is ErrorCode.UNAVAILABLE and down.source == "yahoo"
    limited = await _gainers(serve, httpx.Response(429, text="Too Many Requests"))
    assert isinstance(limited, Err) and limited.code is ErrorCode.RATE_LIMITED


async def test_a_stale_cached_list_is_cited_with_its_age_and_says_so(tmp_path: Path) -> None:
    now = [1_756_500_000.0]
    mocked = respx.Router(assert_all_called=False)
    mocked.get(SCREENER_URL).mock(
        side_effect=[httpx.Response(200, json=fixture_body()), httpx.Response(503, text="down")]
    )
    settings = HttpSettings(retries=0, default_rps=0.0, rate_limits={})
    client = HttpClient(
        settings,
        cache_dir=tmp_path,
        transport=httpx.MockTransport(mocked.async_handler),
        clock=lambda: now[0],
    )
    vendor = YahooVendor(client, Settings())
    fresh = await vendor.day_gainers(FRIDAY, FRIDAY)
    assert isinstance(fresh, Ok) and not any("HTTP cache" in n for n in fresh.value.notes)
    now[0] += 600  # ten minutes on: past the 60 s quote freshness, Yahoo now fails
    stale = await vendor.day_gainers(FRIDAY, FRIDAY)
    await client.aclose()
    assert isinstance(stale, Ok) and mocked.calls.call_count == 2
    assert any("HTTP cache's copy of the list, fetched 10 min ago" in n for n in stale.value.notes)
    fetched, cited = fresh.value.source.retrieved_at, stale.value.source.retrieved_at
    assert fetched is not None and cited is not None and (fetched - cited).total_seconds() > 500
    assert stale.value.symbols == fresh.value.symbols


# ---- through the router in live mode -----------------------------------------------------------------


def _live_router(snapshot_dir: Path, response: httpx.Response, chains: dict[str, list[str]]) -> DataRouter:
    settings = Settings(
        snapshot_dir=snapshot_dir,
        chains=chains,
        http=HttpSettings(retries=0, default_rps=0.0, rate_limits={}),
    )
    ctx = resolve_context(settings, mode="live", as_of=FRIDAY)
    assert isinstance(ctx, Ok) and ctx.value.mode == "live"
    built = build_router(settings, ctx.value, transport=httpx.MockTransport(_mock(response).async_handler))
    assert isinstance(built, Ok), built
    return built.value


def _same_shape(a: ListedSession, b: ListedSession) -> None:
    """The same field types, element types and array dtypes (values differ: two sources)."""
    for f in dataclasses.fields(ListedSession):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            assert isinstance(y, np.ndarray) and x.dtype == y.dtype == np.float64, f.name
            assert len(x) == len(a.symbols) and len(y) == len(b.symbols) and x.ndim == y.ndim == 1, f.name
            assert not x.flags.writeable and not y.flags.writeable, f.name
        elif isinstance(x, tuple):
            assert isinstance(y, tuple), f.name
            kinds = {type(v) for v in x} | {type(v) for v in y}
            assert kinds <= {str, bool, type(None)} and not ({str, bool} <= kinds), f.name
        elif x is None or y is None:
            assert f.name == "directory_date", f.name  # Yahoo's codes are its own, not a directory's
        else:
            assert type(x) is type(y), f.name
    assert list(a.symbols) == sorted(a.symbols) and list(b.symbols) == sorted(b.symbols)
    assert len(a.exchange_codes) == len(a.symbols) and len(b.exchange_codes) == len(b.symbols)
    assert len(a.etf_flags) == len(a.symbols) and len(b.etf_flags) == len(b.symbols)
    assert set(b.exchanges) <= {"NASDAQ", "NYSE", "AMEX"}


@pytest.mark.parametrize(
    "response",
    [httpx.Response(500, text="Internal Server Error"), httpx.Response(200, json=fixture_body())],
    ids=["yahoo-500", "yahoo-has-only-a-later-session"],
)
async def test_live_mode_falls_back_to_the_snapshot_with_the_same_shape(
    snapshot_dir: Path, serve: Serve, response: httpx.Response
) -> None:
    router = _live_router(snapshot_dir, response, {"day_gainers": ["yahoo", "snapshot"]})
    assert router.chain_names(Category.DAY_GAINERS) == ["yahoo", "snapshot"]
    asked = date(2025, 8, 28)  # the fixture lists 2025-08-29: for 08-28 Yahoo says no_data
    got = await router.day_gainers(asked, FRIDAY)
    assert isinstance(got, Ok), got
    table = got.value
    assert table.source.vendor == "snapshot" and table.session == asked and len(table) > 6000
    assert table.directory_date == date(2025, 8, 11)
    live = await _gainers(serve, httpx.Response(200, json=fixture_body()))
    assert isinstance(live, Ok)
    _same_shape(live.value, table)
    await router.aclose()


async def test_live_mode_default_chain_is_yahoo_alone(snapshot_dir: Path) -> None:
    router = _live_router(snapshot_dir, httpx.Response(200, json=fixture_body()), {})
    assert router.chain_names(Category.DAY_GAINERS) == ["yahoo"]  # live chains never name the snapshot
    today = await router.day_gainers(FRIDAY, FRIDAY)
    assert isinstance(today, Ok) and today.value.source.vendor == "yahoo"
    past = await router.day_gainers(date(2025, 8, 28), FRIDAY)
    assert isinstance(past, Err) and past.code is ErrorCode.NO_DATA and "Do not estimate" in past.reason
    await router.aclose()


async def test_the_live_list_goes_through_the_offline_rules_nyse_etf_and_warrant_dropped(
    serve: Serve,
) -> None:
    from findesk.analytics.movers.gainers import nasdaq_gainers
    from findesk.analytics.movers.models import GainerFilters

    got = await _gainers(serve, httpx.Response(200, json=fixture_body()))
    assert isinstance(got, Ok), got
    board = nasdaq_gainers(got.value, GainerFilters(top=10))
    symbols = [g.symbol for g in board.gainers]
    # by Yahoo's % change, NASDAQ common stock at $5 or more only (OPEN and ABAT trade under $5)
    assert symbols == ["AAOI", "HOOD", "SOUN"]
    assert board.dropped == {"exchange": 1, "etf": 1, "warrant": 1, "price": 2}
    assert board.tier_basis == "the source's own exchange codes: NMS, NGM, NCM"
