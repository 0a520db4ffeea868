"""Corpus sources: every snapshot filing and call, page corpora with their metadata, content fingerprints."""

from __future__ import annotations

import json
from datetime import date, datetime
from pathlib import Path

import pytest
from retrieval_fakes import HashEncoder

from findesk.core.config import Settings
from findesk.core.result import Err, ErrorCode, Ok
from findesk.knowledge.retrieval.chunks import Chunk, ChunkMeta
from findesk.knowledge.retrieval.corpus import (
    SNAPSHOT,
    filing_source,
    open_corpus,
    page_corpus,
    transcript_source,
)
from findesk.knowledge.retrieval.index import RetrievalIndex, SourceDocument
from findesk.knowledge.retrieval.models import Filters
from search_kit import acme_10k, beta_10k, call, planted_8k


def test_snapshot_corpus_lists_every_stored_filing_and_call(snapshot_dir: Path, tmp_path: Path) -> None:
    got = open_corpus(SNAPSHOT, Settings(snapshot_dir=snapshot_dir, cache_dir=tmp_path))
    assert isinstance(got, Ok), got
    sources = list(got.value)
    assert len(got.value) == len(sources) == 15 + 61  # index.csv's 15 primary documents, 61 stored calls
    ids = [s.doc_id for s in sources]
    assert len(set(ids)) == len(ids)
    filings = [i for i in ids if not i.startswith("transcript:")]
    assert all(i.startswith("https://www.sec.gov/") for i in filings)  # cited by EDGAR, never a local path
    assert "transcript:NVDA:2026Q2" in ids and "transcript:GOOG:2025Q2" in ids
    # listing again reads the same content: same fingerprints, so a rebuild skips everything
    relisted = open_corpus(SNAPSHOT, Settings(snapshot_dir=snapshot_dir, cache_dir=tmp_path))
    assert isinstance(relisted, Ok)
    again = {s.doc_id: s.fingerprint for s in relisted.value}
    assert again == {s.doc_id: s.fingerprint for s in sources}

    eight_k = next(s for s in sources if s.doc_id.endswith("aapl-20241031.htm"))
    chunks = eight_k.load()
    assert chunks and {c.meta.doc_id for c in chunks} == {eight_k.doc_id}
    assert {(c.meta.ticker, c.meta.form, c.meta.filing_date) for c in chunks} == {
        ("AAPL", "8-K", date(2024, 10, 31))
    }
    assert {c.meta.company for c in chunks} == {"Apple Inc."}  # "Apple" in a question finds its filings
    nvda_call = next(s for s in sources if s.doc_id == "transcript:NVDA:2026Q2")
    turns = nvda_call.load()
    assert {c.meta.filing_date for c in turns} == {date(2025, 8, 27)} and turns[
        0
    ].meta.form == "earnings call"


def test_no_snapshot_is_not_configured(tmp_path: Path) -> None:
    got = open_corpus("snapshot", Settings(snapshot_dir=tmp_path))
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_CONFIGURED and "snapshot.json" in got.reason


def test_fingerprint_follows_content_and_metadata_not_identity() -> None:
    first, same = filing_source(acme_10k()), filing_source(acme_10k())
    assert first.fingerprint == same.fingerprint and first.doc_id == same.doc_id
    assert filing_source(acme_10k(risk="A new risk.")).fingerprint != first.fingerprint
    moved = acme_10k()
    refiled = moved.model_copy(
        update={"filing": moved.filing.model_copy(update={"filing_date": date(2024, 2, 2)})}
    )
    assert filing_source(refiled).fingerprint != first.fingerprint  # a corrected date re-chunks it
    held = call("ACME", 2024, 3, datetime(2024, 10, 30, 21), "Hello.")
    assert transcript_source(held).doc_id == "transcript:ACME:2024Q3"


def _counting(source: SourceDocument, loads: list[str]) -> SourceDocument:
    def load() -> list[Chunk]:
        loads.append(source.doc_id)
        return source.load()

    return SourceDocument(source.doc_id, source.fingerprint, load)


def test_rebuild_replaces_a_changed_filing_and_skips_the_rest(tmp_path: Path) -> None:
    loads: list[str] = []
    with RetrievalIndex.open(tmp_path / "i", encoder=HashEncoder()) as index:
        index.build([filing_source(acme_10k()), filing_source(beta_10k()), filing_source(planted_8k())])
        changed = acme_10k(risk="Tariffs on imported anvil steel could cut margins.")
        report = index.build(
            [_counting(filing_source(changed), loads), _counting(filing_source(beta_10k()), loads)],
            remove_missing=True,
        )
        assert (report.added, report.replaced, report.unchanged, report.removed) == (0, 1, 1, 1)
        assert loads == [filing_source(changed).doc_id]  # the unchanged 10-K was never parsed again
        texts = [c.text for c in index.chunks(index.chunk_ids()).values()]
        assert any("Tariffs on imported anvil steel" in t for t in texts)
        assert not any("single supplier" in t for t in texts)  # the old version is gone
        acme = Filters(tickers=frozenset({"ACME"}))
        assert {
            c.meta.form for c in index.chunks([s.chunk_id for s in index.lexical("anvil", acme, 20)]).values()
        } == {"10-K"}


def _pages(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_page_corpus_carries_the_document_list_metadata(tmp_path: Path) -> None:
    corpus = _pages(
        tmp_path / "pages.jsonl",
        [
            {"doc_name": "ACME_2022_10K", "page": 1, "text": "Second page."},
            {"doc_name": "ACME_2022_10K", "page": 0, "text": "First page."},
            {"doc_name": "ACME_2023Q2_EARNINGS", "page": 0, "text": "Call text."},
            {"doc_name": "UNLISTED", "page": 0, "text": "No metadata."},
        ],
    )
    _pages(
        tmp_path / "documents.jsonl",
        [
            {
                "doc_name": "ACME_2022_10K",
                "company": "Acme",
                "doc_type": "10k",
                "doc_period": 2022,
                "doc_link": "https://acme.example/10k.pdf",
                "gics_sector": "Industrials",
            },
            {"doc_name": "ACME_2022_10K", "company": "Wrong", "doc_type": "10q", "doc_period": 2021},
            {
                "doc_name": "ACME_2023Q2_EARNINGS",
                "company": "Acme",
                "doc_type": "Earnings",
                "doc_period": 2023,
            },
        ],
    )
    got = page_corpus(corpus)
    assert isinstance(got, Ok), got
    chunks = {source.doc_id: source.load() for source in got.value}
    tenk = chunks["ACME_2022_10K"]
    assert [c.meta.page for c in tenk] == [0, 1] and tenk[0].text == "First page."
    meta = tenk[0].meta
    assert (meta.company, meta.form, meta.fiscal_year, meta.fiscal_period, meta.source_url) == (
        "Acme",
        "10-K",
        2022,
        "FY",
        "https://acme.example/10k.pdf",
    )
    assert chunks["ACME_2023Q2_EARNINGS"][0].meta.form == "earnings call"
    assert chunks["UNLISTED"][0].meta.form is None and chunks["UNLISTED"][0].meta.filing_date is None


def test_a_bad_document_list_line_is_named(tmp_path: Path) -> None:
    corpus = _pages(tmp_path / "pages.jsonl", [{"doc_name": "A", "page": 0, "text": "x"}])
    (tmp_path / "documents.jsonl").write_text('{"doc_name": "A"}\n{"doc_name": "B", "doc_period": "soon"}\n')
    got = page_corpus(corpus)
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT
    assert "documents.jsonl:2" in got.reason and "nothing was indexed" in got.reason


@pytest.mark.parametrize("name", ["missing.jsonl", "."])
def test_a_corpus_path_that_is_no_file_is_invalid_input(tmp_path: Path, name: str) -> None:
    got = page_corpus(tmp_path / name)
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT and "snapshot" in got.reason


def test_page_corpus_names_give_the_quarter_and_an_8k_its_date(tmp_path: Path) -> None:
    from findesk.knowledge.retrieval.corpus import read_documents

    lines = [
        {"doc_name": "AMCOR_2023Q2_10Q", "company": "Amcor", "doc_type": "10q", "doc_period": 2023},
        {
            "doc_name": "PEPSICO_2023Q1_EARNINGS",
            "company": "PepsiCo",
            "doc_type": "Earnings",
            "doc_period": 2023,
        },
        {
            "doc_name": "PEPSICO_2023_8K_dated-2023-05-30",
            "company": "PepsiCo",
            "doc_type": "8k",
            "doc_period": 2023,
        },
        {"doc_name": "3M_2018_10K", "company": "3M", "doc_type": "10k", "doc_period": 2018},
        {"doc_name": "ODD_8K_dated-2023-02-30", "company": "Odd", "doc_type": "8k", "doc_period": 2023},
    ]
    path = tmp_path / "documents.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    docs = read_documents(path)
    assert docs["AMCOR_2023Q2_10Q"].fiscal_period == "Q2"
    assert docs["PEPSICO_2023Q1_EARNINGS"].fiscal_period == "Q1"
    assert docs["3M_2018_10K"].fiscal_period == "FY"
    assert docs["PEPSICO_2023_8K_dated-2023-05-30"].filing_date == date(2023, 5, 30)
    assert docs["3M_2018_10K"].filing_date is None  # undated: never returned under an as-of date
    assert docs["ODD_8K_dated-2023-02-30"].filing_date is None  # not a real day


def test_a_document_list_may_give_tickers_that_questions_then_match(tmp_path: Path) -> None:
    from findesk.knowledge.retrieval.corpus import read_documents
    from findesk.knowledge.retrieval.query import plan_query

    line = {"doc_name": "JPMORGAN_2023Q2_10Q", "company": "JPMorgan", "ticker": " jpm ", "doc_type": "10q"}
    path = tmp_path / "documents.jsonl"
    path.write_text(json.dumps(line), encoding="utf-8")
    info = read_documents(path)["JPMORGAN_2023Q2_10Q"]
    assert info.ticker == "JPM"
    meta = ChunkMeta(kind="page", doc_id="JPMORGAN_2023Q2_10Q", doc_hash="h", **info.model_dump())
    other = meta.model_copy(update={"doc_id": "OTHER", "ticker": None, "company": "Other"})
    assert plan_query("Did JPM's VaR fall?", [meta, other]).derived.doc_ids == {"JPMORGAN_2023Q2_10Q"}
