"""The retrieval index: incremental builds, replacement, removal, locking, bad sources and search.

Every test that takes ``index_at`` runs on both backends: embedded files and PostgreSQL (catalogue
tables, full-text BM25, pgvector with HNSW, an advisory write lock). The encoder is the explicit fake
``HashEncoder`` (bag of hashed words) except where a test says so; the kill -9 tests are in
``test_retrieval_index_resume.py``.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from retrieval_fakes import HashEncoder, IndexAt, Loads, corpus, page_source

from findesk.knowledge.retrieval.chunks import Chunk, ChunkMeta
from findesk.knowledge.retrieval.index import (
    BuildError,
    BuildProgress,
    IndexLockedError,
    IndexNotFoundError,
    RetrievalIndex,
    RetrievalIndexError,
    SourceDocument,
)
from findesk.knowledge.retrieval.models import Filters


def open_index(target: Path | str) -> RetrievalIndex:
    return RetrievalIndex.open(target, encoder=HashEncoder())


def test_a_first_build_indexes_every_document_and_reports_progress(index_at: IndexAt) -> None:
    seen: list[BuildProgress] = []
    with open_index(index_at("ix")) as index:
        report = index.build(corpus(5), progress=seen.append)
        assert (report.added, report.replaced, report.unchanged, report.removed) == (5, 0, 0, 0)
        assert report.chunks_embedded == 15
        assert [p.done for p in seen] == [1, 2, 3, 4, 5]
        assert {p.total for p in seen} == {5}
        assert seen[-1].chunks == 15
        stats = index.stats()
        assert (stats.documents, stats.chunks) == (5, 15)
        assert stats.bytes_on_disk > 0
        assert [d.doc_id for d in index.documents()] == [f"DOC{i:03d}" for i in range(5)]
        assert index.documents()[0].chunks == 3


def test_progress_total_is_none_for_a_generator(index_at: IndexAt) -> None:
    seen: list[BuildProgress] = []
    with open_index(index_at("ix")) as index:
        index.build((s for s in corpus(2)), progress=seen.append)
    assert [p.total for p in seen] == [None, None]


def test_unchanged_documents_are_never_loaded_again(index_at: IndexAt) -> None:
    loads = Loads()
    docs = [page_source(f"D{i}", [f"text {i}"], loads) for i in range(3)]
    with open_index(index_at("ix")) as index:
        index.build(docs)
    with open_index(index_at("ix")) as index:
        report = index.build([*docs, page_source("D3", ["new text"], loads)])
    assert (report.added, report.unchanged, report.chunks_embedded) == (1, 3, 1)
    assert loads.counts == {"D0": 1, "D1": 1, "D2": 1, "D3": 1}


def test_a_changed_document_replaces_its_chunks_in_every_store(index_at: IndexAt) -> None:
    with open_index(index_at("ix")) as index:
        index.build(
            [page_source("D", ["old wording about widgets", "second page"]), page_source("E", ["other"])]
        )
        old_ids = {c.id for c in index.chunks(index.chunk_ids()).values() if c.meta.doc_id == "D"}
        report = index.build([page_source("D", ["new wording about gadgets"]), page_source("E", ["other"])])
        assert (report.replaced, report.unchanged) == (1, 1)
        assert index.lexical("widgets") == []
        assert index.dense("old wording about widgets", Filters(doc_ids=frozenset({"D"}))) != []
        assert {s.chunk_id for s in index.dense("anything", Filters(doc_ids=frozenset({"D"})))}.isdisjoint(
            old_ids
        )
        assert index.chunks(list(old_ids)) == {}
        [new] = index.lexical("gadgets")
        assert index.chunks([new.chunk_id])[new.chunk_id].text == "new wording about gadgets"
        assert index.stats().chunks == 2
        assert next(d for d in index.documents() if d.doc_id == "D").chunks == 1


def test_remove_missing_drops_documents_no_longer_in_the_sources(index_at: IndexAt) -> None:
    with open_index(index_at("ix")) as index:
        index.build(corpus(4))
        kept = index.build(corpus(4)[:3])  # without remove_missing nothing goes
        assert (kept.removed, index.stats().documents) == (0, 4)
        report = index.build(corpus(4)[:2], remove_missing=True)
        assert report.removed == 2
        assert [d.doc_id for d in index.documents()] == ["DOC000", "DOC001"]
        assert index.lexical("doc3") == []
        assert all(index.chunks([s.chunk_id]) for s in index.dense("shared revenue report", n=50))


def test_search_applies_filters_and_returns_resolvable_chunks(index_at: IndexAt) -> None:
    with open_index(index_at("ix")) as index:
        index.build(corpus(12))
        hits = index.lexical(
            "revenue", Filters(tickers=frozenset({"t1"}), fiscal_years=frozenset({2021})), 50
        )
        chunks = index.chunks([h.chunk_id for h in hits])
        assert hits
        assert list(chunks) == [h.chunk_id for h in hits]  # in the order asked
        assert {(c.meta.ticker, c.meta.fiscal_year) for c in chunks.values()} == {("T1", 2021)}
        dense = index.dense("shared revenue report", Filters(as_of=date(2021, 1, 3)), 50)
        assert {index.chunks([d.chunk_id])[d.chunk_id].meta.doc_id for d in dense} == {
            "DOC000",
            "DOC001",
            "DOC002",
        }
        assert index.dense("   ") == []
        assert index.chunks(["no-such-id"]) == {}


def test_the_real_encoder_finds_a_paraphrase(index_at: IndexAt) -> None:
    docs = [
        page_source("A", ["The company repurchased $90 billion of its common stock during the year."]),
        page_source("B", ["Our data centers consume large amounts of electricity and water."]),
    ]
    with RetrievalIndex.open(index_at("ix")) as index:  # the default MiniLM encoder
        index.build(docs)
        [top, *_] = index.dense("How much did it spend on share buybacks?")
        assert index.chunks([top.chunk_id])[top.chunk_id].meta.doc_id == "A"


def test_a_second_writer_is_refused_while_readers_keep_working(index_at: IndexAt) -> None:
    with open_index(index_at("ix")) as first:
        first.build(corpus(2))
        blocked: list[str] = []

        def build_elsewhere(_: BuildProgress) -> None:
            with open_index(index_at("ix")) as second:
                assert second.lexical("doc0")  # reading while a build runs is fine
                with pytest.raises(IndexLockedError, match="being built by another process") as err:
                    second.build(corpus(1))
                blocked.append(str(err.value))

        first.build(corpus(3), progress=build_elsewhere)
        assert blocked
        # the lock goes with the build: a later writer gets it
        with open_index(index_at("ix")) as third:
            assert third.build(corpus(3)).unchanged == 3


def test_opening_a_missing_index_without_create_is_a_clear_error_and_creates_nothing(
    index_at: IndexAt,
) -> None:
    for _ in range(2):  # the first attempt left nothing behind that the second would open
        with pytest.raises(IndexNotFoundError, match="findesk index build"):
            RetrievalIndex.open(index_at("nothing"), create=False)


def test_an_index_directory_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(RetrievalIndexError, match="not a directory"):
        RetrievalIndex.open(tmp_path / "file")


@pytest.mark.parametrize("url", ["sqlite:///tmp/x.db", "mysql://user:secret@db/x"])
def test_a_url_that_is_not_postgresql_is_refused_with_the_password_masked(url: str) -> None:
    with pytest.raises(RetrievalIndexError, match="directory or in PostgreSQL") as err:
        RetrievalIndex.open(url)
    assert "secret" not in str(err.value)


def test_an_index_refuses_an_encoder_other_than_the_one_it_was_built_with(index_at: IndexAt) -> None:
    with open_index(index_at("ix")) as index:
        index.build(corpus(1))
    with pytest.raises(RetrievalIndexError, match="test-hash-encoder"):
        RetrievalIndex.open(index_at("ix"))  # MiniLM would put queries in another vector space


def test_a_failing_loader_names_the_document_and_keeps_earlier_ones(index_at: IndexAt) -> None:
    def broken() -> list[Chunk]:
        raise ValueError("corrupt line 7")

    sources = [*corpus(3), SourceDocument("BROKEN", "f", broken), *corpus(5)[3:]]
    with open_index(index_at("ix")) as index:
        with pytest.raises(BuildError, match="BROKEN: cannot load the document: corrupt line 7"):
            index.build(sources)
        assert index.stats().documents == 3  # the good documents before it are committed
        report = index.build([s for s in sources if s.doc_id != "BROKEN"])
        assert (report.unchanged, report.added) == (3, 2)


def test_inconsistent_sources_are_refused(index_at: IndexAt) -> None:
    [doc] = corpus(1)
    with open_index(index_at("ix")) as index:
        with pytest.raises(BuildError, match="listed twice"):
            index.build([doc, doc])
        foreign = SourceDocument("OTHER", "f", doc.load)  # chunks claim to belong to DOC000
        with pytest.raises(BuildError, match="belongs to 'DOC000'"):
            index.build([foreign])
        twice = SourceDocument("DOC000", "g", lambda: doc.load() * 2)
        with pytest.raises(BuildError, match="appears twice"):
            index.build([twice])
        assert [d.doc_id for d in index.documents()] == ["DOC000"]  # from the first attempt


def test_an_empty_document_is_recorded_and_not_reloaded(index_at: IndexAt) -> None:
    loads = Loads()
    with open_index(index_at("ix")) as index:
        index.build([page_source("EMPTY", [], loads)])
        assert index.build([page_source("EMPTY", [], loads)]).unchanged == 1
    assert loads.counts == {"EMPTY": 1}


def test_ctrl_c_while_the_stores_are_written_loses_nothing_committed(
    index_at: IndexAt, monkeypatch: pytest.MonkeyPatch
) -> None:
    with open_index(index_at("clean")) as clean:
        clean.build(corpus(20))
        expected = sorted(clean.chunk_ids()), clean.lexical("doc13 page2"), clean.dense("doc13 page2")

    with open_index(index_at("ix")) as index:
        vectors = index._vectors
        real_commit = vectors.commit
        calls = 0

        def interrupted_commit() -> None:
            nonlocal calls
            calls += 1
            if calls == 2:  # batch 2 is in the lexical store, flagged in the catalogue, vectors not yet
                raise KeyboardInterrupt
            real_commit()

        monkeypatch.setattr(vectors, "commit", interrupted_commit)
        with pytest.raises(KeyboardInterrupt):
            index.build(corpus(20))
        assert {d.doc_id for d in index.documents()} == {f"DOC{i:03d}" for i in range(8)}
        assert all(index.chunks([s.chunk_id]) for s in index.lexical("shared revenue report", n=100))

        report = index.build(corpus(20))  # the same process, the same index object: resumes
        assert (report.unchanged, report.added) == (8, 12)
        assert (
            sorted(index.chunk_ids()),
            index.lexical("doc13 page2"),
            index.dense("doc13 page2"),
        ) == expected


def test_injected_and_malformed_text_is_stored_as_data(index_at: IndexAt) -> None:
    doc_id = "x'); DROP TABLE chunks;--"
    meta = ChunkMeta(kind="page", doc_id=doc_id, doc_hash="h", ticker="A' OR '1'='1")
    text = "null\x00byte revenue \ud800 lone surrogate"  # a lone surrogate (as JSON "\ud800" decodes)
    source = SourceDocument(
        doc_id, "f", lambda: [Chunk(id='a"b', position=0, text=text, tokens=5, meta=meta)]
    )
    with open_index(index_at("ix")) as index:
        assert index.build([source]).added == 1
        [hit] = index.lexical("revenue", Filters(tickers=frozenset({"A' OR '1'='1"})))
        stored = index.chunks([hit.chunk_id])['a"b']
        assert stored.text == "null\x00byte revenue \ufffd lone surrogate"  # only the invalid code point
        assert [d.doc_id for d in index.documents()] == [doc_id]

        bad_meta = meta.model_copy(update={"doc_id": "bad\udc80", "ticker": None})
        bad = SourceDocument(
            "bad\udc80", "f", lambda: [Chunk(id="c", position=0, text="t", tokens=1, meta=bad_meta)]
        )
        with pytest.raises(BuildError, match="not valid Unicode"):
            index.build([bad])
        assert index.stats().documents == 1
