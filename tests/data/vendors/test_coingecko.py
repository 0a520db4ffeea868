"""CoinGeckoVendor through a mock transport serving the snapshot's real CoinGecko recordings."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path

import httpx
import pytest

from findesk.core.config import HttpSettings, Settings
from findesk.core.dates import today_new_york
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.formats.coingecko import MAJOR_SYMBOLS
from findesk.data.http.client import HttpClient
from findesk.data.vendors.coingecko import CoinGeckoVendor

Handler = Callable[[httpx.Request], httpx.Response]


def _vendor(handler: Handler, tmp_path: Path) -> CoinGeckoVendor:
    http = HttpClient(
        HttpSettings(retries=0, rate_limits={}, default_rps=1000.0),
        transport=httpx.MockTransport(handler),
    )
    return CoinGeckoVendor(http, Settings(cache_dir=tmp_path))


def _body(snapshot_dir: Path, name: str) -> bytes:
    return (snapshot_dir / "crypto" / "coingecko" / name).read_bytes()


async def test_current_coin_for_today(snapshot_dir: Path, tmp_path: Path) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=_body(snapshot_dir, "coins_bitcoin.json"))

    got = await _vendor(handler, tmp_path).token("BTC", today_new_york())  # pinned symbol
    assert isinstance(got, Ok)
    assert (got.value.id, got.value.symbol, got.value.name) == ("bitcoin", "btc", "Bitcoin")
    assert seen[0].url.path == "/api/v3/coins/bitcoin" and seen[0].url.params["market_data"] == "true"
    assert got.value.source.vendor == "coingecko" and got.value.source.retrieved_at is not None


async def test_past_as_of_uses_the_daily_history(snapshot_dir: Path, tmp_path: Path) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=_body(snapshot_dir, "coins_ethereum_history_01-01-2024.json"))

    got = await _vendor(handler, tmp_path).token("ethereum", date(2024, 1, 1))
    assert isinstance(got, Ok)
    assert seen[0].url.path == "/api/v3/coins/ethereum/history" and seen[0].url.params["date"] == "01-01-2024"
    assert got.value.price_usd == 2279.9410085689606
    assert got.value.volume_24h_usd == 6715146404.608721
    assert got.value.price_as_of == datetime(2024, 1, 1, tzinfo=UTC)


async def test_unique_symbol_resolved_through_coins_list(snapshot_dir: Path, tmp_path: Path) -> None:
    paths: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        paths.append(request.url.path)
        if request.url.path == "/api/v3/coins/list":
            return httpx.Response(200, content=_body(snapshot_dir, "coins_list.json"))
        if request.url.path == "/api/v3/coins/0chain":
            return httpx.Response(429)
        return httpx.Response(404, json={"error": "coin not found"})

    got = await _vendor(handler, tmp_path).token("zcn", today_new_york())
    assert paths == ["/api/v3/coins/zcn", "/api/v3/coins/list", "/api/v3/coins/0chain"]
    assert isinstance(got, Err) and got.code == ErrorCode.RATE_LIMITED


async def test_ambiguous_symbol(snapshot_dir: Path, tmp_path: Path) -> None:
    coins = json.loads(_body(snapshot_dir, "coins_list.json"))
    ids = {c["id"] for c in coins}
    by_symbol: dict[str, list[str]] = defaultdict(list)
    for coin in coins:
        by_symbol[coin["symbol"]].append(coin["id"])
    symbol = next(
        s
        for s, i in sorted(by_symbol.items())
        if len(i) > 1 and s.isalnum() and s.isascii() and s not in MAJOR_SYMBOLS and s not in ids
    )

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v3/coins/list":
            return httpx.Response(200, json=coins)
        return httpx.Response(404)

    got = await _vendor(handler, tmp_path).token(symbol, today_new_york())
    assert isinstance(got, Err) and got.code == ErrorCode.INVALID_INPUT
    assert by_symbol[symbol][0] in got.reason


@pytest.mark.parametrize(
    ("response", "code"),
    [
        (httpx.Response(429), ErrorCode.RATE_LIMITED),
        (httpx.Response(200, content=b"not json"), ErrorCode.BAD_RESPONSE),
        (httpx.Response(200, json={"unexpected": True}), ErrorCode.BAD_RESPONSE),
        (httpx.Response(503), ErrorCode.UNAVAILABLE),
    ],
)
async def test_errors(response: httpx.Response, code: ErrorCode, tmp_path: Path) -> None:
    got = await _vendor(lambda r: response, tmp_path).token("bitcoin", date(2024, 1, 1))
    assert isinstance(got, Err) and got.code == code


async def test_invalid_id(tmp_path: Path) -> None:
    got = await _vendor(lambda r: httpx.Response(500), tmp_path).token("bit coin/../x", date(2024, 1, 1))
    assert isinstance(got, Err) and got.code == ErrorCode.INVALID_INPUT
