"""On-disk HTTP cache: per-class freshness on a fake clock, stale-on-error, hashed keys."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from http_fakes import FakeClock, Recorder, answer

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.http import HttpClient
from findesk.data.http.cache import CachedResponse, HttpCache, cache_key, redact_url

Make = Callable[..., tuple[HttpClient, Recorder]]
URL = "https://query1.example.com/v8/chart/AAPL"


def _all_bytes(directory: Path) -> bytes:
    files = [f for f in directory.rglob("*") if f.is_file()]
    assert any(f.name.startswith("http-cache.sqlite3") for f in files)
    return b"".join(f.read_bytes() for f in files)


async def test_fresh_hit_is_served_without_a_request(
    make_client: Make, tmp_path: Path, clock: FakeClock
) -> None:
    client, rec = make_client(
        answer(200, {"p": 1}, headers={"Cache-Control": "no-cache"}), cache_dir=tmp_path
    )
    first = await client.get(URL, freshness="quote")
    clock.advance(30)
    second = await client.get(URL, freshness="quote")
    assert isinstance(first, Ok) and isinstance(second, Ok)
    assert rec.calls == 1  # our freshness overrides the server's no-cache
    assert not first.value.from_cache
    assert second.value.from_cache and second.value.extra == {"age_s": 30.0}
    assert second.value.content == first.value.content and second.value.status == 200


async def test_quote_expires_after_60s_filings_never(
    make_client: Make, tmp_path: Path, clock: FakeClock
) -> None:
    client, rec = make_client(answer(200, {"v": 1}), cache_dir=tmp_path)
    filing = "https://www.sec.gov/Archives/edgar/data/320193/x.htm"
    await client.get(URL, freshness="quote")
    await client.get(filing, freshness="filings")
    assert rec.calls == 2
    clock.advance(59)
    await client.get(URL, freshness="quote")
    assert rec.calls == 2
    clock.advance(2)
    rec.then(answer(200, {"v": 2}))
    refreshed = await client.get_json(URL, freshness="quote")
    assert refreshed == Ok({"v": 2}) and rec.calls == 3
    clock.advance(10 * 365 * 86400)
    kept = await client.get(filing, freshness="filings")
    assert isinstance(kept, Ok) and kept.value.from_cache and rec.calls == 3


async def test_news_class_is_five_minutes(make_client: Make, tmp_path: Path, clock: FakeClock) -> None:
    client, rec = make_client(cache_dir=tmp_path)
    await client.get(URL, freshness="news")
    clock.advance(299)
    await client.get(URL, freshness="news")
    assert rec.calls == 1
    clock.advance(2)
    await client.get(URL, freshness="news")
    assert rec.calls == 2


async def test_unknown_class_uses_default(make_client: Make, tmp_path: Path, clock: FakeClock) -> None:
    client, rec = make_client(cache_dir=tmp_path)
    await client.get(URL, freshness="no-such-class")
    clock.advance(299)
    await client.get(URL, freshness="no-such-class")
    assert rec.calls == 1


async def test_stale_copy_served_when_refetch_fails(
    make_client: Make, tmp_path: Path, clock: FakeClock
) -> None:
    client, rec = make_client(answer(200, {"p": 1}), cache_dir=tmp_path, retries=1)
    await client.get(URL, freshness="quote")
    clock.advance(61)
    rec.then(answer(503))
    got = await client.get_json(URL, freshness="quote")
    assert got == Ok({"p": 1})
    assert rec.calls == 3  # it did try (1 + 1 retry)
    raw = await client.get(URL, freshness="quote")
    assert isinstance(raw, Ok) and raw.value.from_cache
    assert raw.value.extra["stale"] is True
    assert raw.value.extra["age_s"] >= 61
    assert "503" in raw.value.extra["stale_reason"]


async def test_stale_copy_served_while_circuit_is_open(
    make_client: Make, tmp_path: Path, clock: FakeClock
) -> None:
    client, rec = make_client(answer(200, {"p": 1}), cache_dir=tmp_path, retries=0, breaker_cooldown_s=600)
    await client.get(URL, freshness="quote")
    rec.then(answer(503))
    for i in range(3):
        await client.get(f"https://query1.example.com/other/{i}", freshness="quote")
    clock.advance(61)
    calls = rec.calls
    got = await client.get(URL, freshness="quote")
    assert isinstance(got, Ok) and got.value.extra["stale"] is True
    assert got.value.extra["stale_reason"].startswith("circuit open")
    assert rec.calls == calls


async def test_no_stale_copy_means_the_error(make_client: Make, tmp_path: Path) -> None:
    client, _ = make_client(answer(503), cache_dir=tmp_path, retries=0)
    got = await client.get(URL, freshness="quote")
    assert isinstance(got, Err) and got.code is ErrorCode.UNAVAILABLE


@pytest.mark.parametrize(("status", "code"), [(404, ErrorCode.NOT_FOUND), (403, ErrorCode.UNAVAILABLE)])
async def test_a_4xx_is_not_hidden_by_a_stale_copy(
    make_client: Make, tmp_path: Path, clock: FakeClock, status: int, code: ErrorCode
) -> None:
    client, rec = make_client(cache_dir=tmp_path)
    await client.get(URL, freshness="quote")
    clock.advance(61)
    rec.then(answer(status))
    got = await client.get(URL, freshness="quote")
    assert isinstance(got, Err) and got.code is code


async def test_errors_and_bad_json_are_not_cached(make_client: Make, tmp_path: Path) -> None:
    client, rec = make_client(answer(500), cache_dir=tmp_path, retries=0)
    await client.get(URL)
    rec.then(answer(200, b"not json"))
    assert isinstance(await client.get_json(URL), Err)
    rec.then(answer(200, {"ok": 1}))
    assert await client.get_json(URL) == Ok({"ok": 1})
    assert rec.calls == 3


async def test_no_cache_dir_means_no_cache(make_client: Make) -> None:
    client, rec = make_client()
    await client.get(URL, freshness="filings")
    await client.get(URL, freshness="filings")
    assert rec.calls == 2


async def test_key_ignores_param_order_but_not_values(make_client: Make, tmp_path: Path) -> None:
    client, rec = make_client(cache_dir=tmp_path)
    await client.get(URL, params={"a": "1", "b": "2"})
    await client.get(URL, params={"b": "2", "a": "1"})
    assert rec.calls == 1
    await client.get(URL, params={"a": "1", "b": "3"})
    assert rec.calls == 2
    base = httpx.URL("https://x.example.com/p")
    assert cache_key("GET", base.copy_with(params={"a": 1, "b": 2})) == cache_key(
        "GET", base.copy_with(params={"b": 2, "a": 1})
    )
    assert cache_key("GET", base, {"X-Api-Key": "k1"}) != cache_key("GET", base, {"X-Api-Key": "k2"})
    assert cache_key("GET", base, {"User-Agent": "a"}) == cache_key("GET", base)


async def test_api_keys_are_not_stored_in_clear_text(make_client: Make, tmp_path: Path) -> None:
    client, _ = make_client(
        answer(200, {"ok": 1}, headers={"Set-Cookie": "session=COOKIE-SECRET-9"}), cache_dir=tmp_path
    )
    got = await client.get(
        "https://api.example.com/fred/series",
        params={"series_id": "DGS10", "api_key": "QUERY-SECRET-123"},
        headers={"X-Api-Key": "HEADER-SECRET-456"},
    )
    assert isinstance(got, Ok)
    await client.aclose()
    blob = _all_bytes(tmp_path)
    assert b"DGS10" in blob  # the URL is there (so the search is meaningful) …
    for secret in (b"QUERY-SECRET-123", b"HEADER-SECRET-456", b"COOKIE-SECRET-9"):
        assert secret not in blob  # … but not the secrets


def test_redact_url() -> None:
    url = "https://h.example.com/p?api_key=s1&apikey=s2&token=s3&keyword=ok&q=fine"
    out = redact_url(url)
    assert "s1" not in out and "s2" not in out and "s3" not in out
    assert "keyword=ok" in out and "q=fine" in out
    assert redact_url("https://h.example.com/p?q=1") == "https://h.example.com/p?q=1"


async def test_cache_persists_across_clients(make_client: Make, tmp_path: Path) -> None:
    first, _ = make_client(cache_dir=tmp_path)
    await first.get(URL, freshness="filings")
    await first.aclose()
    second, rec2 = make_client(cache_dir=tmp_path)
    got = await second.get(URL, freshness="filings")
    assert isinstance(got, Ok) and got.value.from_cache and rec2.calls == 0


async def test_concurrent_tasks_share_the_cache(tmp_path: Path) -> None:
    cache = HttpCache(tmp_path)
    entries = [CachedResponse(1.0, 200, f"https://e.com/{i}", {}, bytes([i])) for i in range(40)]
    await asyncio.gather(*(cache.put(f"k{i}", e) for i, e in enumerate(entries)))
    got = await asyncio.gather(*(cache.get(f"k{i}") for i in range(40)))
    assert [g.content if g else None for g in got] == [bytes([i]) for i in range(40)]
    cache.close()


def test_two_processes_write_the_same_cache(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from findesk.data.http.cache import CachedResponse, HttpCache
        cache = HttpCache(Path({str(tmp_path)!r}))
        for i in range(100):
            cache._put_sync(f"child{{i}}", CachedResponse(1.0, 200, "https://e.com/c", {{}}, b"c"))
        cache.close()
        """
    )
    child = subprocess.Popen([sys.executable, "-c", script])
    cache = HttpCache(tmp_path)
    for i in range(100):
        cache._put_sync(f"parent{i}", CachedResponse(1.0, 200, "https://e.com/p", {}, b"p"))
    assert child.wait(timeout=60) == 0
    assert all(cache._get_sync(f"child{i}") is not None for i in range(100))
    assert all(cache._get_sync(f"parent{i}") is not None for i in range(100))
    cache.close()


def test_unusable_cache_dir_degrades_to_no_cache(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    cache = HttpCache(blocker / "sub")
    cache._put_sync("k", CachedResponse(1.0, 200, "https://e.com", {}, b"x"))
    assert cache._get_sync("k") is None
