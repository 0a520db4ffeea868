"""The retrieval layer's boundary types: filters, scored hits and the records an index keeps.

Rules this module keeps:
- Filters are applied before ranking, never after: every field narrows the candidate set the lexical
  and dense searches score, so ``k`` results are the best ``k`` among the chunks that pass.
- Point in time: with ``as_of`` set, a chunk passes only if its ``filing_date`` is known and on or before
  ``as_of``; a chunk whose date is unknown cannot be shown to have been public, so it is excluded.
- Values are normalised on the way in (tickers and forms upper-case, items upper-case) so a caller's
  spelling does not change what matches.
"""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, ConfigDict, Field, field_validator

from findesk.knowledge.retrieval.chunks import Chunk, ChunkMeta


def _upper_set(values: frozenset[str] | None) -> frozenset[str] | None:
    if values is None:
        return None
    return frozenset(v.strip().upper() for v in values if v.strip())


class Filters(BaseModel):
    """What a search may return. ``None`` means no restriction on that field; a set means any of."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tickers: frozenset[str] | None = None
    forms: frozenset[str] | None = None  # "10-K", "10-Q", "8-K", "EARNINGS CALL", a page corpus's doc type
    fiscal_years: frozenset[int] | None = None
    fiscal_periods: frozenset[str] | None = None  # "FY", "Q1".."Q4"
    items: frozenset[str] | None = None  # "1A", "7", "II-1A", "2.02"
    doc_ids: frozenset[str] | None = None
    as_of: date | None = None  # filed on or before this day

    @field_validator("tickers", "forms", "fiscal_periods", "items")
    @classmethod
    def _upper(cls, value: frozenset[str] | None) -> frozenset[str] | None:
        return _upper_set(value)

    def is_empty(self) -> bool:
        """True when nothing is restricted."""
        return all(getattr(self, name) is None for name in type(self).model_fields)

    def merged(self, other: Filters) -> Filters:
        """Both restrictions at once: a field set on both sides keeps the intersection."""
        values: dict[str, object] = {}
        for name in type(self).model_fields:
            mine, theirs = getattr(self, name), getattr(other, name)
            if mine is None or theirs is None:
                values[name] = mine if theirs is None else theirs
            elif name == "as_of":
                values[name] = min(mine, theirs)
            else:
                values[name] = mine & theirs
        return Filters.model_validate(values)

    def admits(self, meta: ChunkMeta) -> bool:
        """Whether a chunk with this metadata passes every restriction (the reference semantics)."""
        if self.tickers is not None and (meta.ticker or "").upper() not in self.tickers:
            return False
        if self.forms is not None and (meta.form or "").upper() not in self.forms:
            return False
        if self.fiscal_years is not None and meta.fiscal_year not in self.fiscal_years:
            return False
        if self.fiscal_periods is not None and (meta.fiscal_period or "").upper() not in self.fiscal_periods:
            return False
        if self.items is not None and (meta.item or "").upper() not in self.items:
            return False
        if self.doc_ids is not None and meta.doc_id not in self.doc_ids:
            return False
        return self.as_of is None or (meta.filing_date is not None and meta.filing_date <= self.as_of)


class ScoredId(BaseModel):
    """One ranked candidate from one retriever: the chunk id, its raw score and its 1-based rank."""

    model_config = ConfigDict(frozen=True)

    chunk_id: str
    score: float
    rank: int = Field(ge=1)


class Hit(BaseModel):
    """A retrieved chunk with both retrievers' scores and ranks (None when that retriever missed it)."""

    model_config = ConfigDict(frozen=True)

    chunk: Chunk
    score: float  # the fused (reciprocal rank fusion) score the results are ordered by
    bm25: float | None = None
    bm25_rank: int | None = None
    dense: float | None = None  # cosine similarity, in [-1, 1]
    dense_rank: int | None = None


class DocumentRecord(BaseModel):
    """One indexed document as the index's catalogue keeps it."""

    model_config = ConfigDict(frozen=True)

    doc_id: str
    doc_hash: str
    chunks: int
    meta: ChunkMeta  # the first chunk's metadata (item, heading and page are the first chunk's)


class IndexStats(BaseModel):
    """The size of an index on disk."""

    model_config = ConfigDict(frozen=True)

    documents: int
    chunks: int
    bytes_on_disk: int
