"""Retrieval chunks: stable ids, the token cap, overlap, whole table rows, metadata, page-corpus loading."""

from __future__ import annotations

import gzip
import itertools
import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from findesk.data.models.base import Source
from findesk.data.models.filings import Filing, FilingDocument
from findesk.data.models.transcripts import Transcript
from findesk.knowledge.retrieval import (
    DEFAULT_MAX_TOKENS,
    DocumentInfo,
    PageCorpusError,
    PageRecord,
    chunk_filing,
    chunk_pages,
    chunk_transcript,
    count_tokens,
    load_pages,
)

PROSE = " ".join(
    f"Sentence {i} says that segment revenue changed by {i} percent because of pricing and volume."
    for i in range(60)
)
ROWS = [f"Segment {i} | ${i * 10},{i:03d} | ${i * 9},{i:03d} | {i}%" for i in range(60)]


def pages(*texts: str, doc: str = "ACME_2023_10K") -> list[PageRecord]:
    return [PageRecord(doc_name=doc, page=i, text=t) for i, t in enumerate(texts)]


def test_ids_are_stable_across_runs_and_change_with_content() -> None:
    corpus = pages("Revenue was $10 million.", "Net income was $2 million.", "Cash was $5 million.")
    first = chunk_pages(corpus)
    again = chunk_pages(list(corpus))
    assert [c.id for c in first] == [c.id for c in again]
    assert len({c.id for c in first}) == 3

    edited = chunk_pages(
        pages("Revenue was $10 million.", "Net income was $3 million.", "Cash was $5 million.")
    )
    assert [c.id == e.id for c, e in zip(first, edited, strict=True)] == [True, False, True]
    # the document hash changes for every chunk, so an index can replace the whole document
    assert first[0].meta.doc_hash != edited[0].meta.doc_hash


def test_no_chunk_exceeds_the_cap_and_consecutive_chunks_overlap() -> None:
    chunks = chunk_pages(pages(PROSE), max_tokens=64, overlap=16)
    assert len(chunks) > 5
    for chunk in chunks:
        assert count_tokens(chunk.text) <= 64
        assert chunk.tokens == count_tokens(chunk.text)
    for prev, nxt in itertools.pairwise(chunks):
        first_line = nxt.text.splitlines()[0]
        assert first_line in prev.text  # the next chunk starts by repeating the end of the previous one
        assert 0 < count_tokens(first_line) <= 16
    # nothing is lost: every sentence of the page is in some chunk
    joined = "\n".join(c.text for c in chunks)
    assert all(f"Sentence {i} says" in joined for i in range(60))


def test_a_table_that_fits_stays_whole_in_one_chunk() -> None:
    text = "\n".join([PROSE[:400], *ROWS[:6], "After the table."])
    chunks = chunk_pages(pages(text), max_tokens=160, overlap=16)
    holding = [c for c in chunks if ROWS[0] in c.text]
    assert len(holding) == 1
    assert all(row in holding[0].text for row in ROWS[:6])


def test_a_large_table_is_split_on_row_boundaries_only() -> None:
    text = "\n".join(["Segment results", *ROWS])
    chunks = chunk_pages(pages(text), max_tokens=64, overlap=16)
    assert len(chunks) > 3
    seen: set[str] = set()
    for chunk in chunks:
        assert count_tokens(chunk.text) <= 64
        for line in chunk.text.splitlines():
            if " | " in line:
                assert line in ROWS  # a whole row, never half of one
                seen.add(line)
    assert seen == set(ROWS)


def test_page_chunks_carry_document_metadata() -> None:
    info = DocumentInfo(
        ticker="ACME",
        company="Acme Corp",
        form="10-K",
        fiscal_year=2023,
        fiscal_period="FY",
        filing_date=date(2024, 2, 20),
        source_url="https://example.com/acme-10k.pdf",
    )
    chunks = chunk_pages(pages("Intro.", PROSE), {"ACME_2023_10K": info}, max_tokens=64, overlap=8)
    assert [c.position for c in chunks] == list(range(len(chunks)))
    assert chunks[0].meta.page == 0 and {c.meta.page for c in chunks[1:]} == {1}
    for chunk in chunks:
        meta = chunk.meta
        assert (meta.kind, meta.doc_id, meta.ticker, meta.company, meta.form) == (
            "page",
            "ACME_2023_10K",
            "ACME",
            "Acme Corp",
            "10-K",
        )
        assert (meta.fiscal_year, meta.fiscal_period, meta.filing_date) == (2023, "FY", date(2024, 2, 20))
        assert meta.source_url == "https://example.com/acme-10k.pdf"


def test_load_pages_reads_jsonl_and_gzip(tmp_path: Path) -> None:
    lines = [
        json.dumps({"doc_name": "A", "page": 0, "text": "first"}),
        "",
        json.dumps({"doc_name": "A", "page": 1, "text": "second", "extra": 1}),
    ]
    plain = tmp_path / "pages.jsonl"
    plain.write_text("\n".join(lines) + "\n", encoding="utf-8")
    packed = tmp_path / "pages.jsonl.gz"
    with gzip.open(packed, "wt", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    for path in (plain, packed):
        loaded = [(p.doc_name, p.page, p.text) for p in load_pages(path)]
        assert loaded == [("A", 0, "first"), ("A", 1, "second")]


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        ('{"doc_name": "A", "page": 1, "text": "x"', "not valid JSON"),
        ('{"doc_name": "A", "text": "x"}', "page: Field required"),
        ('{"doc_name": "A", "page": -1, "text": "x"}', "page: Input should be greater than or equal to 0"),
        ('{"doc_name": "A", "page": "2", "text": "x"}', "page: Input should be a valid integer"),
        ('["A", 1, "x"]', "expected a JSON object"),
    ],
)
def test_load_pages_names_the_bad_line(tmp_path: Path, bad: str, expected: str) -> None:
    path = tmp_path / "pages.jsonl"
    good = json.dumps({"doc_name": "A", "page": 0, "text": "fine"})
    path.write_text(f"{good}\n{good}\n{bad}\n{good}\n", encoding="utf-8")
    with pytest.raises(PageCorpusError) as err:
        load_pages(path)
    assert f"{path}:3:" in str(err.value)
    assert expected in str(err.value)


def test_load_pages_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(PageCorpusError, match="cannot read the page corpus"):
        load_pages(tmp_path / "nope.jsonl")


def test_transcript_is_cut_into_remarks_and_question_answer_turns() -> None:
    text = (
        "Good afternoon and welcome to the Acme third quarter call. Revenue grew 10 percent. "
        "We will now open the line for questions. Our first question comes from Jane Doe with Big Bank. "
        "Your line is open. How is demand in China? Demand in China remains strong. "
        "Our next question comes from John Roe with Other Bank. What about margins? Margins expanded."
    )
    call = Transcript(
        ticker="ACME",
        company_name="Acme Corp",
        fiscal_year=2024,
        fiscal_quarter=3,
        conference_at=datetime(2024, 10, 30, 21, 0, tzinfo=UTC),
        text=text,
        source=Source(vendor="snapshot", ref="transcripts/ACME/2024Q3_2024-10-30.txt"),
    )
    chunks = chunk_transcript(call)
    assert [c.meta.heading for c in chunks] == ["Prepared remarks", "Question 1", "Question 2"]
    assert chunks[1].text.startswith("Our first question comes from Jane Doe")
    assert "Demand in China remains strong." in chunks[1].text and "margins" not in chunks[1].text
    assert "Margins expanded." in chunks[2].text
    meta = chunks[0].meta
    assert (meta.kind, meta.ticker, meta.company, meta.fiscal_year, meta.fiscal_period) == (
        "transcript",
        "ACME",
        "Acme Corp",
        2024,
        "Q3",
    )
    assert meta.filing_date == date(2024, 10, 30)


def test_real_snapshot_10k_is_chunked_per_item_with_citations(snapshot_dir: Path) -> None:
    rel = "sec/filings/AAPL/10-K_2024-11-01.htm"
    url = "https://www.sec.gov/Archives/edgar/data/320193/000032019324000123/aapl-20240928.htm"
    filing = Filing(
        ticker="AAPL",
        cik=320193,
        form="10-K",
        filing_date=date(2024, 11, 1),
        report_date=date(2024, 9, 28),
        url=url,
        local_path=rel,
        source=Source(vendor="snapshot", ref=rel),
    )
    doc = FilingDocument(
        filing=filing,
        format="html",
        content=(snapshot_dir / rel).read_text(encoding="utf-8"),
        source=filing.source,
    )
    chunks = chunk_filing(doc)
    assert [c.position for c in chunks] == list(range(len(chunks)))
    assert all(count_tokens(c.text) <= DEFAULT_MAX_TOKENS for c in chunks)
    items = [c.meta.item for c in chunks]
    assert {"1", "1A", "7", "7A", "8"} <= set(items)
    # one series per Item: an Item's chunks are contiguous and in the form's order
    assert items.index("1A") < items.index("7") < items.index("8")
    assert len({i for i in items}) == len([i for n, i in enumerate(items) if n == 0 or items[n - 1] != i])
    risk = [c for c in chunks if c.meta.item == "1A"]
    assert risk[0].meta.item_title == "Risk Factors"
    # sub-headings inside Item 1A start their own chunks
    headings = {c.meta.heading for c in risk}
    assert {"Macroeconomic and Industry Risks", "Business Risks", "Financial Risks"} <= headings
    first_of = next(c for c in risk if c.meta.heading == "Financial Risks")
    assert first_of.text.startswith("Financial Risks")
    meta = chunks[0].meta
    assert (meta.kind, meta.ticker, meta.form, meta.fiscal_year, meta.fiscal_period) == (
        "filing",
        "AAPL",
        "10-K",
        2024,
        "FY",
    )
    assert (meta.filing_date, meta.source_url, meta.doc_id) == (date(2024, 11, 1), url, url)
    assert [c.id for c in chunk_filing(doc)] == [c.id for c in chunks]
