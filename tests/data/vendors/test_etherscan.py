"""EtherscanVendor through a mock transport serving the snapshot's real Etherscan recordings."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import httpx
from pydantic import SecretStr

from findesk.core.config import HttpSettings, Settings
from findesk.core.dates import end_of_day
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.http.client import HttpClient
from findesk.data.vendors.etherscan import EtherscanVendor

FIXTURES = Path(__file__).parents[2] / "fixtures" / "etherscan"
B855 = "0xb8553D9ee35dd23BB96fbd679E651B929821969B"
KEY = "TESTKEY1234567890"

Handler = Callable[[httpx.Request], httpx.Response]


def _vendor(handler: Handler, tmp_path: Path, key: str | None = KEY) -> EtherscanVendor:
    http = HttpClient(
        HttpSettings(retries=0, rate_limits={}, default_rps=1000.0),
        transport=httpx.MockTransport(handler),
    )
    settings = Settings(etherscan_api_key=SecretStr(key) if key else None, cache_dir=tmp_path)
    return EtherscanVendor(http, settings)


def _recorded(snapshot_dir: Path, seen: list[httpx.Request]) -> Handler:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        action = request.url.params["action"]
        if action == "getblocknobytime":
            rel = "crypto/etherscan/getblocknobytime_1672380360_before.json"
        else:
            rel = f"crypto/etherscan/{action}_{B855}_blocks0-16295684.json"
        return httpx.Response(200, content=(snapshot_dir / rel).read_bytes())

    return handler


async def test_no_key_is_not_configured_without_a_request(tmp_path: Path) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(500)

    vendor = _vendor(handler, tmp_path, key=None)
    got = await vendor.onchain_txs(B855, date(2022, 12, 30))
    assert isinstance(got, Err) and got.code == ErrorCode.NOT_CONFIGURED
    assert "FINDESK_ETHERSCAN_API_KEY" in got.reason
    assert seen == []


async def test_transactions_capped_at_the_as_of_block(snapshot_dir: Path, tmp_path: Path) -> None:
    seen: list[httpx.Request] = []
    vendor = _vendor(_recorded(snapshot_dir, seen), tmp_path)
    got = await vendor.onchain_txs(B855, date(2022, 12, 30), limit=100)
    assert isinstance(got, Ok)
    block_call = seen[0].url.params
    assert block_call["action"] == "getblocknobytime"
    assert int(block_call["timestamp"]) == int(end_of_day(date(2022, 12, 30)).timestamp())
    for request in seen[1:]:
        assert request.url.host == "api.etherscan.io" and request.url.path == "/v2/api"
        assert request.url.params["chainid"] == "1" and request.url.params["apikey"] == KEY
        assert request.url.params["endblock"] == "16295684"
    assert sorted(r.url.params["action"] for r in seen[1:]) == ["tokentx", "txlist", "txlistinternal"]
    txs = got.value
    assert len(txs) == 19 + 5 + 5
    assert txs[0].hash == "0x375f529c5ed649b257abca3da182c48310e78cbb0ded2c8de264f3f1924144cf"
    assert (txs[0].kind, txs[0].value) == ("normal", Decimal("0.000444264835797091"))
    assert all(KEY not in t.source.ref and t.source.vendor == "etherscan" for t in txs)
    assert txs[0].source.retrieved_at is not None


async def test_rows_after_as_of_are_dropped(snapshot_dir: Path, tmp_path: Path) -> None:
    seen: list[httpx.Request] = []
    vendor = _vendor(_recorded(snapshot_dir, seen), tmp_path)
    got = await vendor.onchain_txs(B855, date(2022, 12, 27), limit=100)  # the bodies reach 2022-12-30
    assert isinstance(got, Ok)
    cutoff = end_of_day(date(2022, 12, 27))
    assert got.value and all(t.timestamp <= cutoff for t in got.value)
    assert len(got.value) < 29
    assert max(t.timestamp for t in got.value) < datetime(2022, 12, 28, 5, tzinfo=UTC)


async def test_notok_rate_limit_body(tmp_path: Path) -> None:
    body = (FIXTURES / "notok_rate_limit_handwritten.json").read_bytes()
    vendor = _vendor(lambda r: httpx.Response(200, content=body), tmp_path)
    got = await vendor.onchain_txs(B855, date(2022, 12, 30))
    assert isinstance(got, Err) and got.code == ErrorCode.RATE_LIMITED
    assert "Max rate limit reached" in got.reason


async def test_http_429_is_rate_limited_and_hides_the_key(tmp_path: Path) -> None:
    vendor = _vendor(lambda r: httpx.Response(429), tmp_path)
    got = await vendor.onchain_txs(B855, date(2022, 12, 30))
    assert isinstance(got, Err) and got.code == ErrorCode.RATE_LIMITED
    assert KEY not in got.reason and KEY not in json.dumps(got.to_dict())


async def test_invalid_key_body(tmp_path: Path) -> None:
    body = (FIXTURES / "notok_invalid_key_handwritten.json").read_bytes()
    got = await _vendor(lambda r: httpx.Response(200, content=body), tmp_path).onchain_txs(
        B855, date(2022, 12, 30)
    )
    assert isinstance(got, Err) and got.code == ErrorCode.NOT_CONFIGURED


async def test_malformed_bodies(snapshot_dir: Path, tmp_path: Path) -> None:
    got = await _vendor(lambda r: httpx.Response(200, content=b"<html>oops"), tmp_path).onchain_txs(
        B855, date(2022, 12, 30)
    )
    assert isinstance(got, Err) and got.code == ErrorCode.BAD_RESPONSE

    block = (snapshot_dir / "crypto/etherscan/getblocknobytime_1672380360_before.json").read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.params["action"] == "getblocknobytime":
            return httpx.Response(200, content=block)
        return httpx.Response(200, json={"status": "1", "message": "OK", "result": [{"hash": "0x1"}]})

    got = await _vendor(handler, tmp_path).onchain_txs(B855, date(2022, 12, 30))
    assert isinstance(got, Err) and got.code == ErrorCode.BAD_RESPONSE


async def test_invalid_address_and_limit(tmp_path: Path) -> None:
    vendor = _vendor(lambda r: httpx.Response(500), tmp_path)
    got = await vendor.onchain_txs("0x1234", date(2022, 12, 30))
    assert isinstance(got, Err) and got.code == ErrorCode.INVALID_INPUT
    got = await vendor.onchain_txs(B855, date(2022, 12, 30), limit=0)
    assert isinstance(got, Err) and got.code == ErrorCode.INVALID_INPUT
