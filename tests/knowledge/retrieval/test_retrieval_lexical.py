"""The BM25 index: every filter field, filters before ranking, hostile query text, deletes and persistence.

Every test runs on both lexical stores: tantivy (embedded) and PostgreSQL full-text search ranked by
BM25 in SQL (``pg_lexical``), each opened the way the index opens it (``backends.open_stores``).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
from datetime import date

import pytest
from retrieval_fakes import IndexAt

from findesk.knowledge.retrieval.backends import LexicalStore, Stores, open_stores
from findesk.knowledge.retrieval.chunks import Chunk, ChunkMeta
from findesk.knowledge.retrieval.models import Filters

Open = Callable[[], LexicalStore]  # opens (or reopens) the same lexical store


def chunk(cid: str, text: str, doc_id: str = "doc-a", **meta: object) -> Chunk:
    return Chunk(
        id=cid,
        position=0,
        text=text,
        tokens=len(text.split()),
        meta=ChunkMeta.model_validate({"kind": "filing", "doc_id": doc_id, "doc_hash": "h", **meta}),
    )


def ids(index: LexicalStore, text: str, filters: Filters | None = None, n: int = 10) -> list[str]:
    return [s.chunk_id for s in index.search(text, filters or Filters(), n)]


@pytest.fixture
def open_lexical(index_at: IndexAt) -> Iterator[Open]:
    opened: list[Stores] = []

    def make() -> LexicalStore:
        opened.append(open_stores(index_at("ix"), create=True))
        return opened[-1].lexical

    yield make
    for stores in opened:
        stores.close()


@pytest.fixture
def index(open_lexical: Open) -> LexicalStore:
    lex = open_lexical()
    lex.add(
        [
            chunk(
                "aapl-23",
                "Revenue grew on iPhone demand",
                "aapl-10k-2023",
                ticker="AAPL",
                form="10-K",
                fiscal_year=2023,
                fiscal_period="FY",
                item="7",
                filing_date=date(2023, 11, 3),
            ),
            chunk(
                "aapl-q1",
                "Revenue fell in the quarter",
                "aapl-10q-2024",
                ticker="AAPL",
                form="10-Q",
                fiscal_year=2024,
                fiscal_period="Q1",
                item="II-1A",
                filing_date=date(2024, 2, 2),
            ),
            chunk(
                "msft-23",
                "Revenue from cloud services rose",
                "msft-10k-2023",
                ticker="MSFT",
                form="10-K",
                fiscal_year=2023,
                fiscal_period="FY",
                item="1A",
                filing_date=date(2023, 7, 27),
            ),
            chunk(
                "call",
                "Revenue guidance on the earnings call",
                "call-1",
                kind="transcript",
                ticker="MSFT",
                form="earnings call",
                fiscal_year=2024,
                fiscal_period="Q2",
            ),  # date unknown
            chunk("page", "Revenue table on page three", "bench-doc", kind="page", page=3),
        ]
    )
    lex.commit()
    return lex


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (Filters(tickers=frozenset({"aapl"})), {"aapl-23", "aapl-q1"}),  # lower-case input still matches
        (Filters(forms=frozenset({"10-k"})), {"aapl-23", "msft-23"}),
        (Filters(forms=frozenset({"EARNINGS CALL"})), {"call"}),
        (Filters(fiscal_years=frozenset({2024})), {"aapl-q1", "call"}),
        (Filters(fiscal_periods=frozenset({"q1", "q2"})), {"aapl-q1", "call"}),
        (Filters(items=frozenset({"1a"})), {"msft-23"}),
        (Filters(items=frozenset({"II-1A"})), {"aapl-q1"}),
        (Filters(doc_ids=frozenset({"bench-doc", "msft-10k-2023"})), {"page", "msft-23"}),
        # as_of: on or before the day; the undated call and page chunks are excluded
        (Filters(as_of=date(2023, 11, 3)), {"aapl-23", "msft-23"}),
        (Filters(as_of=date(2023, 11, 2)), {"msft-23"}),
        (Filters(tickers=frozenset({"AAPL"}), fiscal_years=frozenset({2023})), {"aapl-23"}),
        (Filters(tickers=frozenset({"NOPE"})), set()),
        (Filters(tickers=frozenset()), set()),  # an empty set admits nothing, like Filters.admits
        (Filters(), {"aapl-23", "aapl-q1", "msft-23", "call", "page"}),
    ],
)
def test_each_filter_field_narrows_the_results(
    index: LexicalStore, filters: Filters, expected: set[str]
) -> None:
    assert set(ids(index, "revenue", filters)) == expected


def test_filters_apply_before_ranking_so_n_results_come_back(open_lexical: Open) -> None:
    lex = open_lexical()
    # 30 MSFT chunks say "margin" many times; 5 AAPL chunks say it once among other words
    lex.add([chunk(f"m{i}", "margin margin margin margin", f"m{i}", ticker="MSFT") for i in range(30)])
    lex.add([chunk(f"a{i}", f"margin and {i} other words here", f"a{i}", ticker="AAPL") for i in range(5)])
    lex.commit()
    assert set(ids(lex, "margin", n=5)) <= {f"m{i}" for i in range(30)}  # unfiltered top 5 are all MSFT
    filtered = ids(lex, "margin", Filters(tickers=frozenset({"AAPL"})), n=5)
    assert sorted(filtered) == [f"a{i}" for i in range(5)]


def test_scores_are_bm25_and_ranks_follow_them(index: LexicalStore) -> None:
    hits = index.search("revenue iphone demand", Filters(), 10)
    assert hits[0].chunk_id == "aapl-23"
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert all(a.score >= b.score for a, b in itertools.pairwise(hits))
    # stemming: "revenues" finds "Revenue"
    assert "aapl-23" in ids(index, "REVENUES")


@pytest.mark.parametrize(
    "query",
    [
        '"revenue',
        "revenue:grew AND (iphone OR",
        "title:revenue^10 -cloud +[2023 TO 2024]",
        "revenue\x00\u202e\ud800",  # NUL, bidi override, a lone surrogate
        "Revenue 🚀 Über façade 収益",
        "*",
        "~~~ ^^^ \\\\",
    ],
)
def test_query_syntax_is_plain_text_and_never_raises(index: LexicalStore, query: str) -> None:
    hits = ids(index, query)
    if "revenue" in query.lower():
        assert hits  # the plain word still counts
    else:
        assert hits == []


@pytest.mark.parametrize("query", ["", "   \n\t", "the and of a", "!!! ??? ..."])
def test_empty_or_stopword_only_queries_return_nothing(index: LexicalStore, query: str) -> None:
    assert ids(index, query) == []


def test_a_100kb_query_is_answered_quickly(index: LexicalStore) -> None:
    query = "revenue iphone " + " ".join(f"word{i}" for i in range(12_000))
    assert len(query) > 100_000
    started = time.monotonic()
    assert ids(index, query)[0] == "aapl-23"
    assert time.monotonic() - started < 2.0


def test_n_bounds_the_results(index: LexicalStore) -> None:
    assert len(ids(index, "revenue", n=2)) == 2
    assert ids(index, "revenue", n=0) == []


def test_deleting_a_document_removes_only_its_chunks_after_commit(index: LexicalStore) -> None:
    index.delete_doc("aapl-10k-2023")
    assert "aapl-23" in ids(index, "revenue")  # not yet committed
    index.commit()
    assert set(ids(index, "revenue")) == {"aapl-q1", "msft-23", "call", "page"}


def test_committed_chunks_survive_reopening_and_uncommitted_ones_do_not(open_lexical: Open) -> None:
    first = open_lexical()
    first.add([chunk("kept", "durable revenue")])
    first.commit()
    first.add([chunk("lost", "volatile revenue")])
    first.close()  # like a process that died before commit
    again = open_lexical()
    assert ids(again, "revenue") == ["kept"]
    assert again.count() == 1


def test_a_reader_sees_another_writers_commit(open_lexical: Open) -> None:
    writer = open_lexical()
    writer.commit()
    reader = open_lexical()
    writer.add([chunk("new", "fresh revenue")])
    writer.commit()
    assert ids(reader, "revenue") == ["new"]
