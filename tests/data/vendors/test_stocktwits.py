"""Live Stocktwits vendor, served the snapshot's real recorded AAPL stream through MockTransport."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

from live_fakes import FakeUpstream, body

from findesk.core.config import Settings
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.vendors.base import Category
from findesk.data.vendors.stocktwits import STREAM_URL, StocktwitsVendor

AAPL_URL = STREAM_URL.format(symbol="AAPL")


def vendor(upstream: FakeUpstream) -> StocktwitsVendor:
    return StocktwitsVendor(upstream.client(), Settings())


def recorded(snapshot_dir: Path) -> bytes:
    return (snapshot_dir / "social/stocktwits/streams_symbol_AAPL_2020-04-24.json").read_bytes()


async def test_recorded_stream_parses_to_posts_with_authors(snapshot_dir: Path) -> None:
    upstream = FakeUpstream({AAPL_URL: body(recorded(snapshot_dir))})
    v = vendor(upstream)
    assert v.name == "stocktwits" and v.categories == frozenset({Category.STOCKTWITS})
    got = await v.stocktwits_posts("aapl", date(2020, 4, 24), 30)
    assert isinstance(got, Ok), got
    posts = got.value
    assert [str(r.url) for r in upstream.requests] == [AAPL_URL]
    assert len(posts) == 30
    assert (
        sum(p.sentiment == "Bullish" for p in posts) == 9
        and sum(p.sentiment == "Bearish" for p in posts) == 8
    )
    billionaire = next(p for p in posts if p.id == "stocktwits:208434947")
    assert billionaire.text == "$AAPL PIN $280 or $277.50 today ?"
    assert billionaire.author is not None
    assert billionaire.author.username == "Billionaire2025"
    assert billionaire.author.created_at == datetime(2015, 10, 14, tzinfo=UTC)
    assert (billionaire.author.followers, billionaire.author.post_count) == (139, 9678)
    assert billionaire.source.vendor == "stocktwits" and billionaire.source.ref == AAPL_URL
    assert billionaire.source.retrieved_at is not None


async def test_point_in_time_filters_the_live_stream(snapshot_dir: Path) -> None:
    got = await vendor(FakeUpstream({AAPL_URL: body(recorded(snapshot_dir))})).stocktwits_posts(
        "AAPL", date(2020, 4, 23), 30
    )
    assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA
    assert "most recent messages" in got.reason


async def test_429_is_rate_limited() -> None:
    got = await vendor(FakeUpstream({AAPL_URL: body(b"{}", status=429)})).stocktwits_posts(
        "AAPL", date(2020, 4, 24)
    )
    assert isinstance(got, Err) and got.code is ErrorCode.RATE_LIMITED


async def test_malformed_bodies_are_bad_response() -> None:
    for content in (b"<html>maintenance</html>", json.dumps({"response": {"status": 200}}).encode()):
        got = await vendor(FakeUpstream({AAPL_URL: body(content)})).stocktwits_posts(
            "AAPL", date(2020, 4, 24)
        )
        assert isinstance(got, Err) and got.code is ErrorCode.BAD_RESPONSE, got


async def test_unknown_symbol_is_not_found_and_bad_symbol_sends_nothing() -> None:
    upstream = FakeUpstream()
    missing = await vendor(upstream).stocktwits_posts("ZZZZQ", date(2020, 4, 24))
    assert isinstance(missing, Err) and missing.code is ErrorCode.NOT_FOUND and "ZZZZQ" in missing.reason
    upstream.requests.clear()
    bad = await vendor(upstream).stocktwits_posts("AAPL/../x", date(2020, 4, 24))
    assert isinstance(bad, Err) and bad.code is ErrorCode.INVALID_INPUT
    assert upstream.requests == []


async def test_error_status_inside_a_200_body() -> None:
    error = {"response": {"status": 404}, "errors": [{"message": "Symbol not found"}]}
    got = await vendor(FakeUpstream({AAPL_URL: body(json.dumps(error).encode())})).stocktwits_posts(
        "AAPL", date(2020, 4, 24)
    )
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_FOUND and "Symbol not found" in got.reason
