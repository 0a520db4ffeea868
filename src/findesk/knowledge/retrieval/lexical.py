"""BM25 over chunk text on a persistent tantivy index, with metadata filters applied before ranking.

Rules this module keeps:
- Filters are MUST clauses of the same boolean query as the text, so BM25 ranks only the chunks that
  pass them and ``n`` results are the best ``n`` among those (``models.Filters`` semantics; ``as_of``
  excludes chunks whose filing date is unknown, because such a chunk has no ``filing_date`` term).
  Filter clauses score zero, so they never change the order.
- Query text never reaches tantivy's query parser: it is cut into terms by the same analyzer that
  indexed the text (lowercase, English stop words dropped, English stemming) and each distinct term is
  a SHOULD clause, so quotes, colons, ``AND``/``OR``, brackets or odd unicode are plain words and
  nothing a user types can raise. A query with no searchable term returns no results. Only the first
  ``MAX_QUERY_TERMS`` distinct terms count, so a pasted 100 KB query stays a bounded query.
- Any ``str`` is accepted: lone surrogates, which tantivy cannot take, become U+FFFD first.
- Equal scores are ordered by chunk id (ties at the cut included), so the same content gives the same
  results however it was written (segments, deletes, resumed builds).
- Filter values are stored upper-case (``Filters`` upper-cases what it is given), so spelling does not
  change what matches.
- Writes happen in ``add``/``delete_doc`` and become visible to searchers at ``commit``; an index
  killed before ``commit`` keeps its last committed state.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import tantivy

from findesk.knowledge.retrieval.chunks import Chunk
from findesk.knowledge.retrieval.embed import scrub
from findesk.knowledge.retrieval.models import Filters, ScoredId

ANALYZER = "findesk_en"
MAX_QUERY_TERMS = 256
_WRITER_HEAP = 64 * 1024 * 1024
_KEYWORDS = ("doc_id", "ticker", "form", "fiscal_period", "item", "kind")


def _analyzer() -> tantivy.TextAnalyzer:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stopword("english"))
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("chunk_id", stored=True, tokenizer_name="raw")
    builder.add_text_field("text", stored=False, tokenizer_name=ANALYZER)
    for name in _KEYWORDS:
        builder.add_text_field(name, stored=False, tokenizer_name="raw")
    builder.add_integer_field("fiscal_year", indexed=True, fast=True)
    builder.add_integer_field("filing_date", indexed=True, fast=True)  # date.toordinal()
    return builder.build()


class LexicalIndex:
    """A tantivy BM25 index of chunks in ``path`` (created if missing)."""

    def __init__(self, path: Path) -> None:
        path.mkdir(parents=True, exist_ok=True)
        self._schema = _schema()
        self._index = tantivy.Index(self._schema, path=str(path), reuse=True)
        self._analyzer = _analyzer()
        self._index.register_tokenizer(ANALYZER, self._analyzer)
        self._writer: tantivy.IndexWriter | None = None

    def _write(self) -> tantivy.IndexWriter:
        if self._writer is None:
            self._writer = self._index.writer(heap_size=_WRITER_HEAP, num_threads=1)
        return self._writer

    def add(self, chunks: Sequence[Chunk]) -> None:
        """Index ``chunks`` (visible after ``commit``)."""
        writer = self._write()
        for chunk in chunks:
            meta = chunk.meta
            doc = tantivy.Document()
            doc.add_text("chunk_id", chunk.id)
            doc.add_text("text", scrub(chunk.text))
            doc.add_text("doc_id", meta.doc_id)
            doc.add_text("kind", meta.kind.upper())
            for name, value in (
                ("ticker", meta.ticker),
                ("form", meta.form),
                ("fiscal_period", meta.fiscal_period),
                ("item", meta.item),
            ):
                if value:
                    doc.add_text(name, value.strip().upper())
            if meta.fiscal_year is not None:
                doc.add_integer("fiscal_year", meta.fiscal_year)
            if meta.filing_date is not None:
                doc.add_integer("filing_date", meta.filing_date.toordinal())
            writer.add_document(doc)

    def delete_doc(self, doc_id: str) -> None:
        """Remove every chunk of ``doc_id`` (visible after ``commit``)."""
        self._write().delete_documents_by_term("doc_id", doc_id)

    def commit(self) -> None:
        """Make the writes so far durable and visible to searches."""
        if self._writer is not None:
            self._writer.commit()
            self._writer.wait_merging_threads()
            self._writer = None  # releases tantivy's writer lock between batches
        self._index.reload()

    def rollback(self) -> None:
        """Drop uncommitted writes."""
        if self._writer is not None:
            self._writer.rollback()
            self._writer = None

    def terms(self, text: str) -> list[str]:
        """The distinct searchable terms of ``text``, in first-seen order, at most ``MAX_QUERY_TERMS``."""
        seen: dict[str, None] = {}
        for term in self._analyzer.analyze(scrub(text)):
            seen.setdefault(term, None)
            if len(seen) >= MAX_QUERY_TERMS:
                break
        return list(seen)

    def _filter_clauses(self, filters: Filters) -> list[tantivy.Query]:
        clauses: list[tantivy.Query] = []

        def any_of(field: str, values: frozenset[str] | frozenset[int]) -> None:
            terms = [(tantivy.Occur.Should, tantivy.Query.term_query(self._schema, field, v)) for v in values]
            clauses.append(tantivy.Query.boolean_query(terms) if terms else tantivy.Query.empty_query())

        if filters.tickers is not None:
            any_of("ticker", filters.tickers)
        if filters.forms is not None:
            any_of("form", filters.forms)
        if filters.fiscal_years is not None:
            any_of("fiscal_year", filters.fiscal_years)
        if filters.fiscal_periods is not None:
            any_of("fiscal_period", filters.fiscal_periods)
        if filters.items is not None:
            any_of("item", filters.items)
        if filters.doc_ids is not None:
            any_of("doc_id", filters.doc_ids)
        if filters.as_of is not None:
            clauses.append(
                tantivy.Query.range_query(
                    self._schema,
                    "filing_date",
                    tantivy.FieldType.Integer,
                    lower_bound=None,
                    upper_bound=filters.as_of.toordinal(),
                )
            )
        return clauses

    def search(
        self, text: str, filters: Filters, n: int, *, expansion: str = "", expansion_weight: float = 1.0
    ) -> list[ScoredId]:
        """The ``n`` best chunks for ``text`` by BM25 among those ``filters`` admit.

        ``expansion`` adds terms the text does not have (a query's filing vocabulary), each weighted by
        ``expansion_weight``; a term of both counts once, at the text's weight.
        """
        terms = self.terms(text)
        extra = [term for term in self.terms(expansion) if term not in terms] if expansion else []
        if n <= 0 or not (terms or extra):
            return []
        should = [
            (tantivy.Occur.Should, tantivy.Query.term_query(self._schema, "text", term, index_option="freq"))
            for term in terms
        ]
        should += [
            (
                tantivy.Occur.Should,
                tantivy.Query.boost_query(
                    tantivy.Query.term_query(self._schema, "text", term, index_option="freq"),
                    expansion_weight,
                ),
            )
            for term in extra[: max(0, MAX_QUERY_TERMS - len(terms))]
        ]
        clauses = [(tantivy.Occur.Must, tantivy.Query.boolean_query(should))]
        clauses += [
            (tantivy.Occur.Must, tantivy.Query.const_score_query(q, 0.0))
            for q in self._filter_clauses(filters)
        ]
        self._index.reload()  # another process may have committed since the last search
        searcher = self._index.searcher()
        query = tantivy.Query.boolean_query(clauses)
        limit = n + 16
        while True:
            hits = searcher.search(query, limit=limit).hits
            # a tie with the n-th score may continue past what was fetched: fetch until it ends, so ties
            # are decided by chunk id below, the same way however the index was written
            if len(hits) < limit or hits[-1][0] < hits[n - 1][0]:
                break
            limit *= 4
        found = sorted((-score, searcher.doc(address)["chunk_id"][0]) for score, address in hits)[:n]
        return [
            ScoredId(chunk_id=cid, score=-neg, rank=rank) for rank, (neg, cid) in enumerate(found, start=1)
        ]

    def count(self) -> int:
        """Committed chunks in the index."""
        self._index.reload()
        return int(self._index.searcher().num_docs)

    def close(self) -> None:
        """Drop uncommitted writes and release the writer."""
        self.rollback()
