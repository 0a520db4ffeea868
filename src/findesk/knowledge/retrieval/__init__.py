"""Hybrid retrieval over filings, transcripts and page corpora (issue 15).

Modules: ``tokens`` (the embedding model's WordPiece tokenizer), ``chunks`` (structure-following
chunkers), ``corpus`` (the snapshot's filings and calls, page-text JSONL corpora), ``embed`` (MiniLM int8
ONNX), ``lexical`` (BM25 on tantivy), ``vectors`` (exact inner product: memory-mapped numpy or pgvector),
``catalogue`` and ``index`` (one incremental, resumable index directory), ``finance_terms`` and ``query``
(query analysis: filing vocabulary and query-derived filters), ``retrieve`` (fusion), ``citations`` and
``service`` (what the CLI and the ``search_filings`` tool use).
"""

from findesk.knowledge.retrieval.chunks import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_OVERLAP,
    Chunk,
    ChunkMeta,
    DocumentInfo,
    PageCorpusError,
    PageRecord,
    chunk_filing,
    chunk_id,
    chunk_pages,
    chunk_transcript,
    load_pages,
    transcript_turns,
)
from findesk.knowledge.retrieval.index import (
    BuildError,
    BuildProgress,
    BuildReport,
    IndexLockedError,
    IndexNotFoundError,
    RetrievalIndex,
    RetrievalIndexError,
    SourceDocument,
)
from findesk.knowledge.retrieval.models import DocumentRecord, Filters, Hit, IndexStats, ScoredId
from findesk.knowledge.retrieval.query import QueryPlan, plan_query
from findesk.knowledge.retrieval.retrieve import Retrieval, retrieve
from findesk.knowledge.retrieval.tokens import TokenizerMissingError, count_tokens, tail, truncate

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_OVERLAP",
    "BuildError",
    "BuildProgress",
    "BuildReport",
    "Chunk",
    "ChunkMeta",
    "DocumentInfo",
    "DocumentRecord",
    "Filters",
    "Hit",
    "IndexLockedError",
    "IndexNotFoundError",
    "IndexStats",
    "PageCorpusError",
    "PageRecord",
    "QueryPlan",
    "Retrieval",
    "RetrievalIndex",
    "RetrievalIndexError",
    "ScoredId",
    "SourceDocument",
    "TokenizerMissingError",
    "chunk_filing",
    "chunk_id",
    "chunk_pages",
    "chunk_transcript",
    "count_tokens",
    "load_pages",
    "plan_query",
    "retrieve",
    "tail",
    "transcript_turns",
    "truncate",
]
