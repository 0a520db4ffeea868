"""Vector stores: exact inner-product ranking, filters before ranking, deletes, commits and crashes.

The contract tests run on ``NumpyVectorStore`` and on ``PgVectorStore``, exact and with its HNSW index
(as an index on PostgreSQL uses it), against the session's real PostgreSQL + pgvector (``pg_url``: a
fresh database per test; skipped outside CI only when the wheel or psycopg is not installed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path

import numpy as np
import pytest

from findesk.knowledge.retrieval.chunks import Chunk, ChunkMeta
from findesk.knowledge.retrieval.models import Filters
from findesk.knowledge.retrieval.vectors import NumpyVectorStore, PgVectorStore, VectorStore, VectorStoreError

DIM = 8
Store = Callable[[], VectorStore]  # opens (or reopens) the same store


def chunk(cid: str, doc_id: str, **meta: object) -> Chunk:
    return Chunk(
        id=cid,
        position=0,
        text=cid,
        tokens=1,
        meta=ChunkMeta.model_validate({"kind": "filing", "doc_id": doc_id, "doc_hash": "h", **meta}),
    )


def unit(*values: float) -> np.ndarray:
    vec = np.zeros(DIM, dtype=np.float32)
    vec[: len(values)] = values
    return vec / np.linalg.norm(vec)


def ids(store: VectorStore, query: np.ndarray, filters: Filters | None = None, n: int = 10) -> list[str]:
    return [s.chunk_id for s in store.search(query, filters or Filters(), n)]


@pytest.fixture(params=["numpy", "pgvector", "pgvector-hnsw"])
def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    opened: list[VectorStore] = []

    if request.param == "numpy":

        def make() -> VectorStore:
            opened.append(NumpyVectorStore(tmp_path / "vectors"))
            return opened[-1]

    else:
        url = request.getfixturevalue("pg_url")
        hnsw = request.param == "pgvector-hnsw"

        def make() -> VectorStore:
            opened.append(PgVectorStore(url, table="vectors", hnsw=hnsw))
            return opened[-1]

    yield make
    for store in opened:
        store.close()


CORPUS = [
    (
        chunk(
            "aapl-23",
            "aapl-10k",
            ticker="AAPL",
            form="10-K",
            fiscal_year=2023,
            fiscal_period="FY",
            item="7",
            filing_date=date(2023, 11, 3),
        ),
        unit(1, 0.1),
    ),
    (
        chunk(
            "aapl-q1",
            "aapl-10q",
            ticker="aapl",
            form="10-Q",
            fiscal_year=2024,
            fiscal_period="Q1",
            item="II-1A",
            filing_date=date(2024, 2, 2),
        ),
        unit(1, 0.2),
    ),
    (
        chunk(
            "msft-23",
            "msft-10k",
            ticker="MSFT",
            form="10-K",
            fiscal_year=2023,
            fiscal_period="FY",
            item="1A",
            filing_date=date(2023, 7, 27),
        ),
        unit(1, 0.3),
    ),
    (
        chunk(
            "call",
            "call-1",
            kind="transcript",
            ticker="MSFT",
            form="earnings call",
            fiscal_year=2024,
            fiscal_period="Q2",
        ),
        unit(1, 0.4),
    ),  # date unknown
    (chunk("page", "bench-doc", kind="page", page=3), unit(0, 1)),
]


def filled(open_store: Store) -> VectorStore:
    store = open_store()
    store.add([c for c, _ in CORPUS], np.stack([v for _, v in CORPUS]))
    store.commit()
    return store


def test_results_are_ranked_by_exact_inner_product(open_store: Store) -> None:
    store = filled(open_store)
    hits = store.search(unit(1, 0), Filters(), 10)
    assert [h.chunk_id for h in hits] == ["aapl-23", "aapl-q1", "msft-23", "call", "page"]
    expected = [float(v @ unit(1, 0)) for _, v in CORPUS]
    assert [h.score for h in hits] == pytest.approx(expected, abs=1e-5)
    assert [h.rank for h in hits] == [1, 2, 3, 4, 5]
    assert ids(store, unit(0, 1), n=2) == ["page", "call"]


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (Filters(tickers=frozenset({"AAPL"})), ["aapl-23", "aapl-q1"]),  # stored "aapl" normalised
        (Filters(forms=frozenset({"10-k"})), ["aapl-23", "msft-23"]),
        (Filters(fiscal_years=frozenset({2024})), ["aapl-q1", "call"]),
        (Filters(fiscal_periods=frozenset({"q2"})), ["call"]),
        (Filters(items=frozenset({"ii-1a", "7"})), ["aapl-23", "aapl-q1"]),
        (Filters(doc_ids=frozenset({"bench-doc"})), ["page"]),
        (Filters(as_of=date(2023, 11, 3)), ["aapl-23", "msft-23"]),  # undated chunks never pass
        (Filters(as_of=date(2020, 1, 1)), []),
        (Filters(tickers=frozenset({"MSFT"}), forms=frozenset({"EARNINGS CALL"})), ["call"]),
        (Filters(tickers=frozenset({"UNKNOWN"})), []),
    ],
)
def test_each_filter_field_narrows_the_results(
    open_store: Store, filters: Filters, expected: list[str]
) -> None:
    assert ids(filled(open_store), unit(1, 0), filters) == expected


def test_filters_apply_before_ranking_so_n_results_come_back(open_store: Store) -> None:
    store = open_store()
    near = [chunk(f"near{i}", f"n{i}", ticker="MSFT") for i in range(40)]
    far = [chunk(f"far{i}", f"f{i}", ticker="AAPL") for i in range(5)]
    store.add(near, np.stack([unit(1, 0.01 * i) for i in range(40)]))
    store.add(far, np.stack([unit(0.1 * (i + 1), 1) for i in range(5)]))
    store.commit()
    assert all(cid.startswith("near") for cid in ids(store, unit(1, 0), n=5))
    assert ids(store, unit(1, 0), Filters(tickers=frozenset({"AAPL"})), n=5) == [
        f"far{i}" for i in range(4, -1, -1)
    ]


def test_deleting_a_document_hides_its_rows_after_commit(open_store: Store) -> None:
    store = filled(open_store)
    store.delete_doc("aapl-10k")
    store.delete_doc("never-indexed")
    store.commit()
    assert "aapl-23" not in ids(store, unit(1, 0))
    assert len(ids(store, unit(1, 0))) == 4
    assert "aapl-23" not in ids(open_store(), unit(1, 0))  # and for a fresh reader


def test_uncommitted_rows_are_lost_and_committed_ones_kept_when_the_writer_dies(open_store: Store) -> None:
    store = filled(open_store)
    store.add([chunk("late", "late-doc")], unit(1, 0)[None, :])
    store.close()  # the process ends without commit
    again = open_store()
    assert "late" not in ids(again, unit(1, 0))
    again.add([chunk("next", "next-doc")], unit(1, 0)[None, :])
    again.commit()
    assert ids(open_store(), unit(1, 0), n=1) == ["next"]
    assert len(ids(open_store(), unit(1, 0))) == 6


def test_a_reader_sees_a_later_commit_of_another_writer(open_store: Store) -> None:
    reader = filled(open_store)
    writer = open_store()
    writer.add([chunk("new", "new-doc")], unit(1, 0)[None, :])
    writer.commit()
    assert ids(reader, unit(1, 0), n=1) == ["new"]


def test_bad_vectors_are_refused_with_a_clear_error(open_store: Store) -> None:
    store = filled(open_store)
    with pytest.raises(VectorStoreError, match="one vector per chunk"):
        store.add([chunk("a", "d"), chunk("b", "d")], unit(1)[None, :])
    with pytest.raises(VectorStoreError, match="NaN"):
        store.add([chunk("a", "d")], np.full((1, DIM), np.nan, dtype=np.float32))
    with pytest.raises(VectorStoreError, match="dimension"):
        store.add([chunk("a", "d")], np.ones((1, DIM + 1), dtype=np.float32))
    store.commit()
    assert len(ids(store, unit(1, 0))) == 5  # nothing half-added


def test_numpy_store_refuses_a_query_of_the_wrong_dimension(tmp_path: Path) -> None:
    store = NumpyVectorStore(tmp_path / "v")
    store.add([chunk("a", "d")], unit(1)[None, :])
    store.commit()
    with pytest.raises(VectorStoreError, match="dimension 3"):
        store.search(np.ones(3, dtype=np.float32), Filters(), 5)
    with pytest.raises(VectorStoreError, match="dimension 8, not 16"):
        NumpyVectorStore(tmp_path / "v", dim=16)


def test_numpy_store_cuts_rows_a_dead_writer_appended_past_its_commit(tmp_path: Path) -> None:
    store = NumpyVectorStore(tmp_path / "v")
    store.add([chunk("a", "d")], unit(1)[None, :])
    store.commit()
    with (tmp_path / "v" / "vectors.f32").open("ab") as fh:  # a kill -9 between append and commit
        fh.write(np.ones((3, DIM), dtype=np.float32).tobytes())
    again = NumpyVectorStore(tmp_path / "v")
    again.add([chunk("b", "e")], unit(0, 1)[None, :])
    again.commit()
    assert ids(NumpyVectorStore(tmp_path / "v"), unit(0, 1)) == ["b", "a"]
    assert (tmp_path / "v" / "vectors.f32").stat().st_size == 2 * DIM * 4


def test_pg_store_refuses_an_unsafe_table_name() -> None:
    with pytest.raises(VectorStoreError, match="table name"):
        PgVectorStore("postgresql://unused", table="x; DROP TABLE users")


def test_an_embedded_index_can_keep_its_vectors_in_pgvector(tmp_path: Path, pg_url: str) -> None:
    from retrieval_fakes import HashEncoder, corpus

    from findesk.knowledge.retrieval.index import RetrievalIndex

    store = PgVectorStore(pg_url, table="vectors")
    with RetrievalIndex.open(tmp_path / "ix", encoder=HashEncoder(), vectors=store) as index:
        assert index.build(corpus(10)).added == 10
        assert index.build(corpus(10)[:6], remove_missing=True).removed == 4
        hits = index.dense("doc3 page1", Filters(tickers=frozenset({"T3"})), 3)
        assert hits[0].chunk_id in index.chunks([hits[0].chunk_id])
        assert {c.meta.doc_id for c in index.chunks([h.chunk_id for h in hits]).values()} == {"DOC003"}
        assert index.dense("doc8 page1", Filters(doc_ids=frozenset({"DOC008"}))) == []  # removed


def test_the_hnsw_index_serves_the_ordering_and_is_made_once(pg_url: str) -> None:
    import psycopg

    store = PgVectorStore(pg_url, table="vectors", hnsw=True)
    store.add([c for c, _ in CORPUS], np.stack([v for _, v in CORPUS]))
    store.commit()
    again = PgVectorStore(pg_url, table="vectors", hnsw=True)  # reopened: the dimension is read back
    again.add([chunk("more", "more-doc")], unit(1, 0)[None, :])
    again.commit()
    with psycopg.connect(pg_url.replace("postgresql+psycopg", "postgresql")) as conn:
        [(definition,)] = conn.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'vectors_hnsw'")
        conn.execute("SET enable_seqscan = off")  # what the planner picks at scale
        plan = "\n".join(
            r[0]
            for r in conn.execute(
                "EXPLAIN SELECT chunk_id FROM vectors "
                "ORDER BY embedding::vector(8) <#> %s::vector(8) LIMIT 3",
                [str(unit(1, 0).tolist())],
            )
        )
    assert "hnsw" in definition and "vector_ip_ops" in definition and "vector(8)" in definition
    assert "vectors_hnsw" in plan
    assert ids(again, unit(1, 0), n=2) == ["more", "aapl-23"]
    store.close()
    again.close()
