"""SectionService: picks the right filing as of a date, cites it, caches parses (memory + disk)."""

from __future__ import annotations

import asyncio
from datetime import date
from pathlib import Path

import pytest
from filings_fakes import DEFAULT_AS_OF, SnapshotFilings

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.models.base import Source
from findesk.data.models.filings import Filing
from findesk.knowledge.filings import sections as sections_module
from findesk.knowledge.filings.sections import SectionService


async def test_section_with_citation(snapshot_filings: SnapshotFilings, tmp_path: Path) -> None:
    service = SectionService(snapshot_filings, tmp_path)
    res = await service.section("aapl", "10-K", "item 1a.", DEFAULT_AS_OF)
    assert isinstance(res, Ok)
    sec = res.value
    assert (sec.ticker, sec.form, sec.item, sec.title) == ("AAPL", "10-K", "1A", "Risk Factors")
    assert sec.filing_date == date(2024, 11, 1)
    assert sec.url == "https://www.sec.gov/Archives/edgar/data/320193/000032019324000123/aapl-20240928.htm"
    assert sec.local_path == "sec/filings/AAPL/10-K_2024-11-01.htm"
    assert "global and regional economic conditions" in sec.text
    assert sec.citation() == f"AAPL 10-K filed 2024-11-01, Item 1A (Risk Factors) — {sec.url}"


async def test_point_in_time_choice(snapshot_filings: SnapshotFilings, tmp_path: Path) -> None:
    service = SectionService(snapshot_filings, tmp_path)
    q = await service.section("NVDA", "10-Q", "1A", DEFAULT_AS_OF)  # "1A" means Part II Item 1A
    assert isinstance(q, Ok) and q.value.item == "II-1A" and q.value.filing_date == date(2025, 8, 27)
    early = await service.section("NVDA", "10-Q", "2", date(2025, 8, 26))  # filed the next day
    assert isinstance(early, Err) and early.code is ErrorCode.NO_DATA
    assert "on or before 2025-08-26" in early.reason
    k = await service.section("MSFT", "10-K", "7", DEFAULT_AS_OF)
    assert isinstance(k, Ok) and "Microsoft Cloud revenue" in k.value.text


async def test_8k_item(snapshot_filings: SnapshotFilings, tmp_path: Path) -> None:
    service = SectionService(snapshot_filings, tmp_path)
    res = await service.section("NVDA", "8-K", "502", date(2026, 3, 10))
    assert isinstance(res, Ok)
    assert res.value.item == "5.02" and res.value.title.startswith("Departure of Directors")
    missing = await service.section("NVDA", "8-K", "2.02", date(2026, 3, 10))
    assert isinstance(missing, Err) and missing.code is ErrorCode.NO_DATA
    assert "has no Item 2.02 (Results of Operations and Financial Condition)" in missing.reason


async def test_invalid_and_absent_items(snapshot_filings: SnapshotFilings, tmp_path: Path) -> None:
    service = SectionService(snapshot_filings, tmp_path)
    bad = await service.section("AAPL", "10-K", "17", DEFAULT_AS_OF)
    assert isinstance(bad, Err) and bad.code is ErrorCode.INVALID_INPUT
    assert "1A" in bad.reason and "16" in bad.reason
    form = await service.section("AAPL", "S-1", "1", DEFAULT_AS_OF)
    assert isinstance(form, Err) and form.code is ErrorCode.INVALID_INPUT
    absent = await service.section("NVDA", "10-Q", "II-3", DEFAULT_AS_OF)  # NVDA omits Part II Item 3
    assert isinstance(absent, Err) and absent.code is ErrorCode.NO_DATA
    assert absent.reason == (
        "NVDA 10-Q filed 2025-08-27 has no Item II-3 (Defaults Upon Senior Securities) in its document."
    )
    assert service.parses == 1  # only the NVDA 10-Q was parsed; invalid requests parse nothing


async def test_falls_back_when_newest_document_is_missing(snapshot_dir: Path, tmp_path: Path) -> None:
    planted = Filing(
        ticker="TSLA",
        cik=1318605,
        form="10-K",
        filing_date=date(2025, 6, 1),
        local_path="sec/filings/TSLA/not-there.htm",
        source=Source(vendor="snapshot", ref="planted"),
    )
    source = SnapshotFilings(snapshot_dir, extra=[planted])
    res = await SectionService(source, tmp_path).section("TSLA", "10-K", "7", DEFAULT_AS_OF)
    assert isinstance(res, Ok) and res.value.filing_date == date(2025, 1, 30)
    assert source.document_calls == 2


async def test_sections_refuses_filing_after_as_of(snapshot_filings: SnapshotFilings, tmp_path: Path) -> None:
    listed = await snapshot_filings.filings("NVDA", date(2026, 12, 31), frozenset({"8-K"}))
    assert isinstance(listed, Ok)
    res = await SectionService(snapshot_filings, tmp_path).sections(listed.value[0], DEFAULT_AS_OF)
    assert isinstance(res, Err) and res.code is ErrorCode.NO_DATA and "after the as-of date" in res.reason


async def test_memory_and_disk_cache(
    snapshot_filings: SnapshotFilings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    real = sections_module.parse_document

    def counting(doc):  # type: ignore[no-untyped-def]
        calls.append(doc.filing.ticker)
        return real(doc)

    monkeypatch.setattr(sections_module, "parse_document", counting)
    first = SectionService(snapshot_filings, tmp_path)
    a = await first.section("GOOGL", "10-K", "7", DEFAULT_AS_OF)
    b = await first.section("GOOGL", "10-K", "1A", DEFAULT_AS_OF)  # same document: memory hit
    assert isinstance(a, Ok) and isinstance(b, Ok)
    assert calls == ["GOOGL"] and first.parses == 1
    files = list((tmp_path / "sections").glob("*.json"))
    assert len(files) == 1

    second = SectionService(snapshot_filings, tmp_path)  # fresh memory: served from disk
    c = await second.section("GOOGL", "10-K", "7", DEFAULT_AS_OF)
    assert isinstance(c, Ok) and c.value == a.value
    assert calls == ["GOOGL"] and second.parses == 0

    files[0].write_text('{"key": "truncated', encoding="utf-8")  # corrupt cache file
    third = SectionService(snapshot_filings, tmp_path)
    d = await third.section("GOOGL", "10-K", "7", DEFAULT_AS_OF)
    assert isinstance(d, Ok) and d.value == a.value
    assert calls == ["GOOGL", "GOOGL"] and third.parses == 1
    assert files[0].read_text(encoding="utf-8").startswith('{"key": "')  # rewritten whole

    fourth = SectionService(snapshot_filings, tmp_path)
    assert isinstance(await fourth.section("GOOGL", "10-K", "1", DEFAULT_AS_OF), Ok)
    assert fourth.parses == 0


async def test_parser_version_is_part_of_the_key(
    snapshot_filings: SnapshotFilings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert isinstance(
        await SectionService(snapshot_filings, tmp_path).section("AAPL", "8-K", "2.02", DEFAULT_AS_OF), Ok
    )
    monkeypatch.setattr(sections_module, "PARSER_VERSION", "test-next")
    service = SectionService(snapshot_filings, tmp_path)
    assert isinstance(await service.section("AAPL", "8-K", "2.02", DEFAULT_AS_OF), Ok)
    assert service.parses == 1
    assert len(list((tmp_path / "sections").glob("*.json"))) == 2


async def test_concurrent_requests_parse_once(snapshot_filings: SnapshotFilings, tmp_path: Path) -> None:
    service = SectionService(snapshot_filings, tmp_path)
    results = await asyncio.gather(
        *(service.section("META", "10-K", item, DEFAULT_AS_OF) for item in ("1", "1A", "7", "7A", "8"))
    )
    assert all(isinstance(r, Ok) for r in results)
    assert service.parses == 1


async def test_warm_section_does_not_refetch_the_document(
    snapshot_filings: SnapshotFilings, tmp_path: Path
) -> None:
    service = SectionService(snapshot_filings, tmp_path)
    first = await service.section("AAPL", "10-K", "1A", DEFAULT_AS_OF)
    calls = snapshot_filings.document_calls
    again = await service.section("AAPL", "10-K", "7", DEFAULT_AS_OF)
    assert isinstance(first, Ok) and isinstance(again, Ok)
    assert again.value.title.startswith("Management's Discussion")
    assert snapshot_filings.document_calls == calls  # the parsed filing was remembered
    assert service.parses == 1
