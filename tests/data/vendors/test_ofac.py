"""OfacVendor: SDN download through a mock transport (the snapshot's real sdn.csv), dated local copies."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

import httpx
import pytest

from findesk.core.config import HttpSettings, Settings
from findesk.core.dates import today_new_york
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.http.client import HttpClient
from findesk.data.vendors.ofac import SDN_URL, OfacVendor

Handler = Callable[[httpx.Request], httpx.Response]
TORNADO_POOL = "0x12D66f87A04A9E220743712cE6d9bB1B5616B8Fc"


@pytest.fixture
def sdn_bytes(snapshot_dir: Path) -> bytes:
    return (snapshot_dir / "ofac" / "sdn_2024-05-03.csv").read_bytes()


def _vendor(handler: Handler, cache: Path) -> OfacVendor:
    http = HttpClient(
        HttpSettings(retries=0, rate_limits={}, default_rps=1000.0),
        transport=httpx.MockTransport(handler),
    )
    return OfacVendor(http, Settings(cache_dir=cache, sanctions_stale_days=7))


def _counting(response: Callable[[], httpx.Response], seen: list[httpx.Request]) -> Handler:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return response()

    return handler


async def test_download_screen_and_keep_a_dated_copy(sdn_bytes: bytes, tmp_path: Path) -> None:
    seen: list[httpx.Request] = []
    vendor = _vendor(_counting(lambda: httpx.Response(200, content=sdn_bytes), seen), tmp_path)
    today = today_new_york()
    got = await vendor.sanctions("Tornado Cash", today)
    assert isinstance(got, Ok)
    assert str(seen[0].url) == SDN_URL
    assert [(m.entity, m.entry_id, m.program, m.list_date) for m in got.value.matches] == [
        ("TORNADO CASH", "39796", "DPRK3, CYBER2", today)
    ]
    (checked,) = got.value.lists_checked
    assert (checked.list_date, checked.stale_days, checked.stale) == (today, 0, False)
    assert "1,000 characters" in (checked.source.note or "")
    copy = tmp_path / "ofac" / f"sdn_{today.isoformat()}.csv"
    assert copy.read_bytes() == sdn_bytes
    # the same day's copy answers the next question without another download
    again = await vendor.sanctions(TORNADO_POOL.lower(), today)
    assert isinstance(again, Ok) and len(seen) == 1
    assert [(m.asset, m.matched_value, m.entry_id) for m in again.value.matches] == [
        ("ETH", TORNADO_POOL, "39796")
    ]


async def test_failed_download_uses_the_stale_local_copy(sdn_bytes: bytes, tmp_path: Path) -> None:
    today = today_new_york()
    old_day = today - timedelta(days=10)
    (tmp_path / "ofac").mkdir()
    (tmp_path / "ofac" / f"sdn_{old_day.isoformat()}.csv").write_bytes(sdn_bytes)
    vendor = _vendor(lambda r: httpx.Response(503), tmp_path)
    got = await vendor.sanctions("tornado cash", today)
    assert isinstance(got, Ok) and got.value.hit
    (checked,) = got.value.lists_checked
    assert (checked.list_date, checked.stale_days, checked.stale) == (old_day, 10, True)
    assert "download failed (unavailable)" in (checked.source.note or "")


async def test_rate_limited_download_without_copy_is_unavailable(tmp_path: Path) -> None:
    got = await _vendor(lambda r: httpx.Response(429), tmp_path).sanctions("tornado cash", today_new_york())
    assert isinstance(got, Err) and got.code == ErrorCode.UNAVAILABLE
    assert "rate_limited" in got.reason and "no local copy" in got.reason


async def test_a_body_that_is_not_the_sdn_csv_is_never_saved(sdn_bytes: bytes, tmp_path: Path) -> None:
    today = today_new_york()
    vendor = _vendor(lambda r: httpx.Response(200, content=b"<html>maintenance</html>"), tmp_path)
    got = await vendor.sanctions("tornado cash", today)
    assert isinstance(got, Err) and got.code == ErrorCode.UNAVAILABLE and "bad_response" in got.reason
    assert not (tmp_path / "ofac" / f"sdn_{today.isoformat()}.csv").exists()


async def test_past_as_of_uses_only_copies_from_then(sdn_bytes: bytes, tmp_path: Path) -> None:
    seen: list[httpx.Request] = []
    vendor = _vendor(_counting(lambda: httpx.Response(200, content=sdn_bytes), seen), tmp_path)
    past = date(2025, 8, 29)
    got = await vendor.sanctions("tornado cash", past)
    assert isinstance(got, Err) and got.code == ErrorCode.NO_DATA and seen == []
    (tmp_path / "ofac").mkdir()
    (tmp_path / "ofac" / "sdn_2025-08-20.csv").write_bytes(sdn_bytes)
    (tmp_path / "ofac" / "sdn_2025-09-10.csv").write_bytes(b"not read: after the as-of date")
    got = await vendor.sanctions("tornado cash", past)
    assert isinstance(got, Ok) and seen == []
    (checked,) = got.value.lists_checked
    assert (checked.list_date, checked.stale_days, checked.stale) == (date(2025, 8, 20), 9, True)


async def test_invalid_query(tmp_path: Path) -> None:
    got = await _vendor(lambda r: httpx.Response(500), tmp_path).sanctions("0xabc", today_new_york())
    assert isinstance(got, Err) and got.code == ErrorCode.INVALID_INPUT


async def test_stale_http_cache_copy_is_dated_by_its_fetch(sdn_bytes: bytes, tmp_path: Path) -> None:
    now = [time.time()]
    up = [True]

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=sdn_bytes) if up[0] else httpx.Response(503)

    http = HttpClient(
        HttpSettings(retries=0, rate_limits={}, default_rps=1000.0),
        cache_dir=tmp_path / "http",
        transport=httpx.MockTransport(handler),
        clock=lambda: now[0],
    )
    vendor = OfacVendor(http, Settings(cache_dir=tmp_path, sanctions_stale_days=7))
    today = today_new_york()
    assert isinstance(await vendor.sanctions("tornado cash", today), Ok)
    # two days later the source is down, and our own dated copies are gone; only the HTTP cache is left
    now[0] += 2 * 86400
    up[0] = False
    for copy in (tmp_path / "ofac").glob("sdn_*.csv"):
        copy.unlink()
    got = await vendor.sanctions("tornado cash", today)
    await http.aclose()
    assert isinstance(got, Ok) and got.value.hit
    (checked,) = got.value.lists_checked
    assert checked.list_date == today - timedelta(days=2) and checked.stale_days == 2
    assert "download failed" in (checked.source.note or "")
