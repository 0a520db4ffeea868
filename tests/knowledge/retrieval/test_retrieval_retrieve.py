"""retrieve(): fusion of BM25 and dense lists, query-derived filters that never widen the caller's, and
the filing vocabulary that lets an analyst's word find a statement's caption. Real MiniLM, tiny corpus,
on both backends (embedded files and PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from retrieval_fakes import IndexAt

from findesk.knowledge.retrieval.chunks import DocumentInfo, PageRecord
from findesk.knowledge.retrieval.corpus import page_sources
from findesk.knowledge.retrieval.index import RetrievalIndex
from findesk.knowledge.retrieval.models import Filters, Hit, ScoredId
from findesk.knowledge.retrieval.retrieve import MAX_K, retrieve, rrf

CASH_FLOWS = (
    "Consolidated Statements of Cash Flows | Cash flows from investing activities | "
    "Purchases of property, plant and equipment | (1,577) | (1,699) | Net cash used in investing activities"
)
PAGES = {
    ("ACME_2022_10K", 0): "Acme Corp annual report for fiscal 2022. Our business makes rockets.",
    ("ACME_2022_10K", 1): "Risk factors: a shortage of rocket fuel would hurt our margins.",
    ("ACME_2022_10K", 2): CASH_FLOWS,
    ("ACME_2021_10K", 0): "Acme Corp annual report for fiscal 2021. Our business makes rockets.",
    ("ACME_2021_10K", 1): CASH_FLOWS.replace("1,577", "1,400"),
    ("BETA_2022_10K", 0): "Beta Inc annual report for fiscal 2022. Beta sells garden tools.",
    ("BETA_2022_10K", 1): CASH_FLOWS.replace("1,577", "88"),
}
INFO = {
    "ACME_2022_10K": DocumentInfo(company="Acme Corp", ticker="ACME", form="10-K", fiscal_year=2022),
    "ACME_2021_10K": DocumentInfo(company="Acme Corp", ticker="ACME", form="10-K", fiscal_year=2021),
    "BETA_2022_10K": DocumentInfo(company="Beta Inc", ticker="BETA", form="10-K", fiscal_year=2022),
}


@pytest.fixture(scope="module")
def index(module_index_at: IndexAt) -> Iterator[RetrievalIndex]:
    pages = [PageRecord(doc_name=d, page=p, text=t) for (d, p), t in PAGES.items()]
    with RetrievalIndex.open(module_index_at("index")) as ix:
        ix.build(page_sources(pages, INFO))
        yield ix


def _where(hits: list[Hit]) -> list[tuple[str, int | None]]:
    return [(h.chunk.meta.doc_id, h.chunk.meta.page) for h in hits]


def test_an_analyst_word_finds_the_statement_caption(index: RetrievalIndex) -> None:
    # "capex" is nowhere in the corpus; the cash flow statement says "purchases of property, plant and
    # equipment": the filing vocabulary bridges the two
    result = retrieve(index, "What was Acme's capex in FY2022?", k=3, mode="bm25")
    assert _where(result.hits)[0] == ("ACME_2022_10K", 2)


def test_company_and_year_in_the_question_narrow_the_search_and_say_so(index: RetrievalIndex) -> None:
    result = retrieve(index, "What was Acme's capex in FY2022?", k=10)
    assert {doc for doc, _ in _where(result.hits)} == {"ACME_2022_10K"}
    assert result.derived.doc_ids == {"ACME_2022_10K"}
    assert result.notes == ["company: Acme Corp", "fiscal year 2022"]
    # without derivation the other filings' cash flow statements compete
    loose = retrieve(index, "What was Acme's capex in FY2022?", k=10, derive=False)
    assert {doc for doc, _ in _where(loose.hits)} > {"ACME_2022_10K"}
    assert loose.derived.is_empty()


def test_a_query_clue_never_widens_the_callers_filters(index: RetrievalIndex) -> None:
    # the caller asks for Beta only; the question names Acme: the search stays inside Beta
    result = retrieve(index, "What was Acme's capex in FY2022?", Filters(tickers=frozenset({"BETA"})), k=10)
    assert result.hits
    assert {doc for doc, _ in _where(result.hits)} == {"BETA_2022_10K"}
    assert result.filters.tickers == {"BETA"}


def test_every_hit_carries_both_scores_and_the_fused_order(index: RetrievalIndex) -> None:
    result = retrieve(index, "rocket fuel shortage margins", k=5, derive=False)
    top = result.hits[0]
    assert _where([top]) == [("ACME_2022_10K", 1)]
    assert top.bm25 is not None and top.bm25_rank == 1
    assert top.dense is not None and -1.0 <= top.dense <= 1.0 and top.dense_rank is not None
    assert [h.score for h in result.hits] == sorted((h.score for h in result.hits), reverse=True)


def test_single_retriever_modes_for_ablations(index: RetrievalIndex) -> None:
    bm25 = retrieve(index, "rocket fuel shortage", k=3, mode="bm25", derive=False)
    assert all(h.dense is None and h.bm25 is not None for h in bm25.hits)
    dense = retrieve(index, "rocket fuel shortage", k=3, mode="dense", derive=False)
    assert all(h.bm25 is None and h.dense is not None for h in dense.hits)


def test_bad_calls_get_clear_errors(index: RetrievalIndex) -> None:
    with pytest.raises(ValueError, match="empty"):
        retrieve(index, "   ")
    with pytest.raises(ValueError, match=f"between 1 and {MAX_K}"):
        retrieve(index, "rockets", k=0)


def test_weighted_reciprocal_rank_fusion() -> None:
    a = [ScoredId(chunk_id="x", score=9.0, rank=1), ScoredId(chunk_id="y", score=8.0, rank=2)]
    b = [ScoredId(chunk_id="y", score=0.9, rank=1)]
    fused = rrf([(a, 1.0), (b, 0.5)], k=60)
    assert fused["x"] == pytest.approx(1 / 61)
    assert fused["y"] == pytest.approx(1 / 62 + 0.5 / 61)


def test_expansion_terms_add_weight_only_for_words_the_question_lacks(index: RetrievalIndex) -> None:
    plain = index.lexical("rocket fuel", n=3)
    assert index.lexical("rocket fuel", n=3, expansion="rocket fuel", expansion_weight=5.0) == plain
    boosted = index.lexical("rocket", n=3, expansion="shortage", expansion_weight=3.0)
    assert boosted[0].chunk_id == plain[0].chunk_id  # the risk-factor page has both words
    assert (
        boosted[0].score > index.lexical("rocket", n=3, expansion="shortage", expansion_weight=1.0)[0].score
    )
