"""DefiLlamaVendor through a mock transport serving a hand-written protocol fixture (no recording exists)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path

import httpx
import pytest

from findesk.core.config import HttpSettings, Settings
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.http.client import HttpClient
from findesk.data.vendors.defillama import DefiLlamaVendor

FIXTURE = Path(__file__).parents[2] / "fixtures" / "defillama" / "protocol_examplefi_handwritten.json"
Handler = Callable[[httpx.Request], httpx.Response]


def _vendor(handler: Handler, tmp_path: Path) -> DefiLlamaVendor:
    http = HttpClient(
        HttpSettings(retries=0, rate_limits={}, default_rps=1000.0),
        transport=httpx.MockTransport(handler),
    )
    return DefiLlamaVendor(http, Settings(cache_dir=tmp_path))


async def test_tvl_point_in_time(tmp_path: Path) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=FIXTURE.read_bytes())

    vendor = _vendor(handler, tmp_path)
    got = await vendor.tvl("ExampleFi", date(2025, 8, 28))
    assert str(seen[0].url) == "https://api.llama.fi/protocol/examplefi"
    assert isinstance(got, Ok)
    assert got.value.tvl_usd == 1200000.25  # the 2025-08-30 point (9,900,000) is after as-of
    assert got.value.as_of == datetime(2025, 8, 29, tzinfo=UTC)
    assert got.value.chain_tvls == {"Ethereum": 900000.25, "Arbitrum": 300000.0}
    assert (
        got.value.protocol == "ExampleFi"
        and got.value.source.ref == "https://api.llama.fi/protocol/examplefi"
    )


@pytest.mark.parametrize(
    ("response", "code"),
    [
        (httpx.Response(400, text="Protocol is not in our database"), ErrorCode.NOT_FOUND),
        (httpx.Response(404), ErrorCode.NOT_FOUND),
        (httpx.Response(429), ErrorCode.RATE_LIMITED),
        (httpx.Response(200, content=b"<html>"), ErrorCode.BAD_RESPONSE),
        (httpx.Response(200, json={"name": "x", "tvl": "n/a"}), ErrorCode.BAD_RESPONSE),
    ],
)
async def test_errors(response: httpx.Response, code: ErrorCode, tmp_path: Path) -> None:
    got = await _vendor(lambda r: response, tmp_path).tvl("aave", date(2025, 8, 29))
    assert isinstance(got, Err) and got.code == code


async def test_before_first_point_and_bad_slug(tmp_path: Path) -> None:
    vendor = _vendor(lambda r: httpx.Response(200, content=FIXTURE.read_bytes()), tmp_path)
    early = await vendor.tvl("examplefi", date(2025, 1, 1))
    assert isinstance(early, Err) and early.code == ErrorCode.NO_DATA
    bad = await vendor.tvl("../etc/passwd", date(2025, 8, 29))
    assert isinstance(bad, Err) and bad.code == ErrorCode.INVALID_INPUT
