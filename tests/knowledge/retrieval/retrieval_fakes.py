"""Fakes for the retrieval index tests: a hashing encoder, small page-corpus sources, index targets.

Rules: ``HashEncoder`` is a deterministic bag-of-words embedding (each lower-cased word hashed into one of
``dim`` buckets, rows normalised), so texts sharing words are near each other and tests never load the
real model unless they mean to; sources are ``SourceDocument``s over page texts that count their loads.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Protocol

import numpy as np

from findesk.knowledge.retrieval.chunks import Chunk, DocumentInfo, PageRecord, chunk_pages
from findesk.knowledge.retrieval.index import SourceDocument


class IndexAt(Protocol):
    """The ``index_at`` fixtures: where the index called ``name`` lives (a directory or a PostgreSQL URL)."""

    def __call__(self, name: str = "ix") -> Path | str: ...


class HashEncoder:
    """A fake ``Encoder``: hashed bag of words, unit rows."""

    name = "test-hash-encoder"

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        matrix = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                bucket = int.from_bytes(
                    hashlib.blake2b(word.encode("utf-8", "surrogatepass"), digest_size=4).digest(), "big"
                )
                matrix[i, bucket % self.dim] += 1.0
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.maximum(norms, 1e-12)


@dataclass
class Loads:
    """How often each document's ``load`` ran."""

    counts: dict[str, int] = field(default_factory=dict)


def page_source(
    doc_id: str,
    texts: Sequence[str],
    loads: Loads | None = None,
    *,
    ticker: str | None = None,
    form: str | None = None,
    fiscal_year: int | None = None,
    filing_date: date | None = None,
) -> SourceDocument:
    """A document of one page per text, fingerprinted by its texts and metadata."""
    info = DocumentInfo(ticker=ticker, form=form, fiscal_year=fiscal_year, filing_date=filing_date)
    pages = [PageRecord(doc_name=doc_id, page=i, text=t) for i, t in enumerate(texts)]
    fingerprint = hashlib.blake2b(repr((list(texts), info)).encode(), digest_size=8).hexdigest()

    def load() -> list[Chunk]:
        if loads is not None:
            loads.counts[doc_id] = loads.counts.get(doc_id, 0) + 1
        return chunk_pages(pages, {doc_id: info})

    return SourceDocument(doc_id, fingerprint, load)


def corpus(size: int, pages: int = 3) -> list[SourceDocument]:
    """``size`` documents DOC000.. with distinct words per document and page, plus shared words."""
    return [
        page_source(
            f"DOC{d:03d}",
            [
                f"shared revenue report doc{d} page{p} topic{(d * 7 + p) % 11} alpha{d % 5}"
                for p in range(pages)
            ],
            ticker=f"T{d % 4}",
            form="10-K",
            fiscal_year=2020 + d % 3,
            filing_date=date(2021, 1, 1 + d % 28),
        )
        for d in range(size)
    ]
