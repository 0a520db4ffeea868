"""DuneVendor through a mock transport: the key in a header only, filters that cannot be injected, results
dated by when the query ran (later than the as-of date is no_data), and not_configured without a key."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import httpx
from live_fakes import FakeUpstream
from pydantic import SecretStr

from findesk.core.config import Settings
from findesk.core.result import Err, Ok
from findesk.data.vendors.dune import DuneVendor, holders_filter

URL = "https://api.dune.com/api/v1/query/4242/results"
KEY = "DUNEKEY123456"
USDC = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
ANSWER = {
    "execution_id": "01H",
    "state": "QUERY_STATE_COMPLETED",
    "execution_ended_at": "2025-08-20T10:00:00.123Z",
    "result": {
        "rows": [
            {"token_address": USDC.lower(), "address": "0x" + "1" * 40, "balance": "1234567.5", "label": "x"},
            {"token_address": USDC.lower(), "address": "0x" + "2" * 40, "balance": 99},
        ]
    },
}


def _vendor(
    upstream: FakeUpstream, tmp_path: Path, key: str | None = KEY, query: int | None = 4242
) -> DuneVendor:
    settings = Settings(
        dune_api_key=SecretStr(key) if key else None, dune_holders_query_id=query, cache_dir=tmp_path
    )
    return DuneVendor(upstream.client(), settings)


async def test_holders_come_sorted_and_dated_by_when_the_query_ran(tmp_path: Path) -> None:
    upstream = FakeUpstream({URL: lambda _r: httpx.Response(200, json=ANSWER)})
    got = await _vendor(upstream, tmp_path).large_holders(USDC, date(2025, 8, 29), limit=5)
    assert isinstance(got, Ok)
    assert [h.balance for h in got.value.holders] == [Decimal("1234567.5"), Decimal(99)]
    assert got.value.observed_at.isoformat().startswith("2025-08-20T10:00:00")
    (request,) = upstream.requests
    assert request.headers["X-Dune-API-Key"] == KEY
    assert request.url.params["filters"] == f"token_address = '{USDC.lower()}'"
    assert request.url.params["sort_by"] == "balance desc" and request.url.params["limit"] == "5"
    assert KEY not in got.value.source.ref


async def test_results_that_ran_after_as_of_are_no_data(tmp_path: Path) -> None:
    upstream = FakeUpstream({URL: lambda _r: httpx.Response(200, json=ANSWER)})
    got = await _vendor(upstream, tmp_path).large_holders("USDC", date(2025, 8, 19))
    assert isinstance(got, Err) and got.code.value == "no_data" and "after the as-of date" in got.reason


async def test_without_key_or_query_nothing_is_sent(tmp_path: Path) -> None:
    upstream = FakeUpstream()
    for vendor in (_vendor(upstream, tmp_path, key=None), _vendor(upstream, tmp_path, query=None)):
        got = await vendor.large_holders("USDC", date(2025, 8, 29))
        assert isinstance(got, Err) and got.code.value == "not_configured"
    assert upstream.requests == []


def test_filter_injection_is_refused() -> None:
    for bad in ("USDC' or 1=1 --", "x y", "0x1234", "a" * 21, ""):
        assert isinstance(holders_filter(bad), Err), bad
    assert holders_filter("usdc").unwrap() == "token_symbol = 'USDC'"


async def test_an_error_body_is_bad_response_without_the_key(tmp_path: Path) -> None:
    upstream = FakeUpstream({URL: lambda _r: httpx.Response(200, json={"error": "No execution found"})})
    got = await _vendor(upstream, tmp_path).large_holders("USDC", date(2025, 8, 29))
    assert isinstance(got, Err) and got.code.value == "bad_response" and KEY not in got.reason
