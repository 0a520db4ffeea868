"""A listed stock's as-traded history from the all-listed-stocks table (``router.listed_bars``), on the real
snapshot: the table's own closes and volumes, nothing after the as-of date, no invented open/high/low,
and ``bars`` unchanged (it never mixes these in)."""

from __future__ import annotations

import asyncio
from datetime import date
from pathlib import Path

import pyarrow.parquet as pq

from findesk.core.config import Settings
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.context import resolve_context
from findesk.data.registry import build_router
from findesk.data.vendors.snapshot.price_tables import MOVERS


def _router(snapshot_dir: Path, tmp_path: Path, as_of: str = "2025-08-29"):  # type: ignore[no-untyped-def]
    settings = Settings(snapshot_dir=snapshot_dir, cache_dir=tmp_path, state_dir=tmp_path, chains={})
    context = resolve_context(settings, mode="snapshot", as_of=as_of)
    assert not isinstance(context, Err)
    router = build_router(settings, context.value)
    assert not isinstance(router, Err)
    return router.value


def test_listed_bars_are_the_tables_own_as_traded_rows_to_the_as_of_date(
    snapshot_dir: Path, tmp_path: Path
) -> None:
    router = _router(snapshot_dir, tmp_path, "2025-08-20")
    got = asyncio.run(router.listed_bars("NEO", date(2025, 8, 1), date(2025, 8, 29), date(2025, 8, 20)))
    assert isinstance(got, Ok), got
    bars = got.value
    assert not bars.adjusted and bars.bars[-1].date == date(2025, 8, 20)  # nothing after the as-of date
    assert all(b.open is None and b.high is None and b.low is None for b in bars.bars)
    t = pq.read_table(snapshot_dir / MOVERS, columns=["date", "symbol", "close", "volume"]).to_pydict()
    raw = {
        d: (c, v)
        for d, s, c, v in zip(t["date"], t["symbol"], t["close"], t["volume"], strict=True)
        if s == "NEO" and "2025-08-01" <= d <= "2025-08-20"
    }
    assert {b.date.isoformat(): (b.close, b.volume) for b in bars.bars} == raw
    assert "as traded" in (bars.source.note or "")
    asyncio.run(router.aclose())


def test_bars_still_never_mix_in_the_as_traded_table(snapshot_dir: Path, tmp_path: Path) -> None:
    router = _router(snapshot_dir, tmp_path)
    got = asyncio.run(router.bars("NEO", date(2025, 8, 1), date(2025, 8, 29), date(2025, 8, 29)))
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_FOUND
    unknown = asyncio.run(router.listed_bars("ZZZZQ", date(2025, 8, 1), date(2025, 8, 29), date(2025, 8, 29)))
    assert isinstance(unknown, Err) and unknown.code is ErrorCode.NOT_FOUND
    asyncio.run(router.aclose())
