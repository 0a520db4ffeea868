"""Live Yahoo vendor through ``httpx.MockTransport`` serving the snapshot's real recorded Yahoo bodies
(``http/yahoo/``); error bodies are hand-written (``tests/fixtures/yahoo/``) or synthetic statuses."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from findesk.core.config import HttpSettings, Settings
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.http.client import HttpClient
from findesk.data.vendors.yahoo import YahooVendor

FIXTURES = Path(__file__).parents[2] / "fixtures" / "yahoo"
Handler = Callable[[httpx.Request], httpx.Response]


class Fake:
    def __init__(self, answer: Handler) -> None:
        self.answer = answer
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.answer(request)


def body(snapshot_dir: Path, name: str) -> Any:
    return json.loads((snapshot_dir / "http/yahoo" / name).read_text())["response"]["bodyJson"]


@pytest.fixture
async def serve() -> AsyncIterator[Callable[[Handler], tuple[YahooVendor, Fake]]]:
    clients: list[HttpClient] = []

    def make(answer: Handler) -> tuple[YahooVendor, Fake]:
        fake = Fake(answer)
        settings = HttpSettings(retries=0, default_rps=0.0, rate_limits={})
        client = HttpClient(settings, transport=httpx.MockTransport(fake))
        clients.append(client)
        return YahooVendor(client, Settings()), fake

    yield make
    for client in clients:
        await client.aclose()


async def test_quote_from_the_recorded_chart(snapshot_dir: Path, serve: Any) -> None:
    recorded = body(snapshot_dir, "chart-AAPL-2020-08-31-to-2020-11-07.json")
    vendor, fake = serve(lambda r: httpx.Response(200, json=recorded))
    got = await vendor.quote("aapl", date(2020, 9, 5))
    assert isinstance(got, Ok), got
    q = got.value
    assert q.symbol == "AAPL" and q.session_date == date(2020, 9, 4) and q.price == 120.95999908447266
    assert q.source.vendor == "yahoo" and q.source.ref.startswith("https://query1.finance.yahoo.com/v8/")
    [req] = fake.requests
    assert req.url.path == "/v8/finance/chart/AAPL"
    assert req.url.params["interval"] == "1d"
    # period2 ends the day after as_of at 00:00 UTC: nothing later is even asked for
    assert int(req.url.params["period2"]) == int(datetime(2020, 9, 6, tzinfo=UTC).timestamp())
    assert int(req.url.params["period1"]) < int(datetime(2020, 9, 4, tzinfo=UTC).timestamp())


async def test_bars_from_the_recorded_chart_stop_at_as_of(snapshot_dir: Path, serve: Any) -> None:
    recorded = body(snapshot_dir, "chart-AAPL-2020-08-31-to-2020-11-07.json")
    vendor, fake = serve(lambda r: httpx.Response(200, json=recorded))
    got = await vendor.bars("AAPL", date(2020, 9, 1), date(2020, 12, 31), date(2020, 10, 1))
    assert isinstance(got, Ok)
    assert got.value.adjusted and got.value.bars[-1].date == date(2020, 10, 1)
    assert int(fake.requests[0].url.params["period2"]) == int(datetime(2020, 10, 2, tzinfo=UTC).timestamp())


async def test_index_symbol_is_url_encoded(snapshot_dir: Path, serve: Any) -> None:
    vendor, fake = serve(
        lambda r: httpx.Response(200, json=body(snapshot_dir, "chart-QQQ-2020-01-01-to-2020-01-03.json"))
    )
    await vendor.quote("^VIX", date(2020, 1, 3))
    assert fake.requests[0].url.raw_path.startswith(b"/v8/finance/chart/%5EVIX")


async def test_news_from_the_recorded_search(snapshot_dir: Path, serve: Any) -> None:
    vendor, fake = serve(lambda r: httpx.Response(200, json=body(snapshot_dir, "search-AAPL.json")))
    got = await vendor.news("AAPL", date(2025, 3, 1), limit=3)
    assert isinstance(got, Ok) and len(got.value) == 3
    assert fake.requests[0].url.host == "query2.finance.yahoo.com"
    assert fake.requests[0].url.params["q"] == "AAPL"
    old = await vendor.news("AAPL", date(2024, 1, 1))
    assert isinstance(old, Err) and old.code is ErrorCode.NO_DATA


async def test_chart_error_404_is_not_found(serve: Any) -> None:
    err_body = json.loads((FIXTURES / "chart_error_not_found_handwritten.json").read_text())
    vendor, _ = serve(lambda r: httpx.Response(404, json=err_body))
    got = await vendor.quote("ZZZZQ", date(2025, 8, 29))
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_FOUND and got.source == "yahoo"
    assert "ZZZZQ" in got.reason


async def test_chart_error_in_a_200_body_is_not_found(serve: Any) -> None:
    err_body = json.loads((FIXTURES / "chart_error_not_found_handwritten.json").read_text())
    vendor, _ = serve(lambda r: httpx.Response(200, json=err_body))
    got = await vendor.bars("ZZZZQ", date(2025, 8, 1), date(2025, 8, 29), date(2025, 8, 29))
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_FOUND


async def test_429_is_rate_limited(serve: Any) -> None:
    vendor, _ = serve(lambda r: httpx.Response(429, text="Too Many Requests"))
    got = await vendor.quote("AAPL", date(2025, 8, 29))
    assert isinstance(got, Err) and got.code is ErrorCode.RATE_LIMITED


@pytest.mark.parametrize("payload", [b"<html>not json</html>", b'{"chart": "nope"}', b"[]"])
async def test_malformed_body_is_bad_response(serve: Any, payload: bytes) -> None:
    vendor, _ = serve(lambda r: httpx.Response(200, content=payload))
    got = await vendor.quote("AAPL", date(2025, 8, 29))
    assert isinstance(got, Err) and got.code is ErrorCode.BAD_RESPONSE


async def test_non_us_symbol_makes_no_request(serve: Any) -> None:
    vendor, fake = serve(lambda r: httpx.Response(200, json={}))
    got = await vendor.quote("VOD.L", date(2025, 8, 29))
    assert isinstance(got, Err) and got.code is ErrorCode.OUT_OF_SCOPE
    assert fake.requests == []
