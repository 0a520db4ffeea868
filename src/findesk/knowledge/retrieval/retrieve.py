"""Hybrid retrieval: BM25 and dense candidates under the same filters, fused by reciprocal rank.

Rules this module keeps:
- Filters come from the caller and, unless turned off, from the query itself (a company or ticker, a
  fiscal year or quarter, a form); both are merged and handed to each retriever, so they apply before
  ranking and a point-in-time ``as_of`` is never widened by anything the query says.
- Every hit carries both retrievers' scores and ranks (None when that retriever did not return it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from findesk.knowledge.retrieval.chunks import ChunkMeta
from findesk.knowledge.retrieval.models import Filters, Hit, ScoredId
from findesk.knowledge.retrieval.query import plan_query

if TYPE_CHECKING:
    from findesk.knowledge.retrieval.index import RetrievalIndex

RRF_K = 60  # the constant of Cormack et al. (2009); damps the head of each list
# Weights of each list in the fusion and of the expansion terms inside BM25; chosen on the FinanceBench dev
# split (bench/financebench.py --ablation), where MiniLM alone trails BM25 with the filing vocabulary.
BM25_WEIGHT = 1.0
DENSE_WEIGHT = 0.5
EXPANSION_WEIGHT = 1.5
CANDIDATES = 100  # how deep each retriever's list goes before fusion
MAX_K = 200

Mode = Literal["fused", "bm25", "dense"]


class Retrieval(BaseModel):
    """The answer to one query: the filters actually applied, those derived from the query, the hits."""

    model_config = ConfigDict(frozen=True)

    query: str
    filters: Filters  # caller's filters merged with the derived ones: what the search applied
    derived: Filters  # what the query itself contributed
    notes: list[str]  # the clues the query gave and whether each narrowed the search
    hits: list[Hit]


def rrf(lists: list[tuple[list[ScoredId], float]], k: int = RRF_K) -> dict[str, float]:
    """Weighted reciprocal rank fusion: each (list, weight) adds weight / (k + rank) for every id it ranks."""
    fused: dict[str, float] = {}
    for ranked, weight in lists:
        for item in ranked:
            fused[item.chunk_id] = fused.get(item.chunk_id, 0.0) + weight / (k + item.rank)
    return fused


def _document_level(filters: Filters) -> Filters:
    """The part of ``filters`` a whole document can be judged on (an Item is a property of a chunk)."""
    return filters.model_copy(update={"items": None})


def retrieve(
    index: RetrievalIndex,
    query: str,
    filters: Filters | None = None,
    k: int = 10,
    *,
    derive: bool = True,
    mode: Mode = "fused",
) -> Retrieval:
    """The ``k`` best chunks for ``query`` under ``filters`` (and filters the query implies, if ``derive``).

    ``mode`` picks one retriever alone ("bm25", "dense") for ablations; "fused" is the product's ranking.
    """
    if not query.strip():
        raise ValueError("the query is empty")
    if not 1 <= k <= MAX_K:
        raise ValueError(f"k must be between 1 and {MAX_K}, got {k}")
    caller = filters or Filters()
    # query clues are matched only among the documents the caller's filters admit, so a clue can narrow
    # the caller's choice but never point outside it
    scope = _document_level(caller)
    documents: list[ChunkMeta] = [d.meta for d in index.documents() if scope.admits(d.meta)]
    plan = plan_query(query, documents, derive=derive)
    applied = caller.merged(plan.derived)
    depth = max(CANDIDATES, k)
    lexical = (
        index.lexical(
            plan.lexical, applied, depth, expansion=plan.expansion, expansion_weight=EXPANSION_WEIGHT
        )
        if mode != "dense"
        else []
    )
    dense = index.dense(plan.dense, applied, depth) if mode != "bm25" else []
    fused = rrf([(lexical, BM25_WEIGHT), (dense, DENSE_WEIGHT)])
    order = sorted(fused, key=lambda cid: -fused[cid])[:k]
    chunks = index.chunks(order)
    by_lex = {s.chunk_id: s for s in lexical}
    by_dense = {s.chunk_id: s for s in dense}
    hits = []
    for cid in order:
        if cid not in chunks:  # removed between the search and the read (a concurrent rebuild)
            continue
        lex, den = by_lex.get(cid), by_dense.get(cid)
        hits.append(
            Hit(
                chunk=chunks[cid],
                score=fused[cid],
                bm25=lex.score if lex else None,
                bm25_rank=lex.rank if lex else None,
                dense=den.score if den else None,
                dense_rank=den.rank if den else None,
            )
        )
    return Retrieval(query=query, filters=applied, derived=plan.derived, notes=plan.notes, hits=hits)
