"""Retrieval over filings, transcripts and page corpora (issue 15); so far: token counting and chunking.

Modules: ``tokens`` (the embedding model's WordPiece tokenizer: counts and word-boundary cuts),
``chunks`` (structure-following chunkers with a token cap, and the page-corpus loader).
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
from findesk.knowledge.retrieval.tokens import TokenizerMissingError, count_tokens, tail, truncate

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_OVERLAP",
    "Chunk",
    "ChunkMeta",
    "DocumentInfo",
    "PageCorpusError",
    "PageRecord",
    "TokenizerMissingError",
    "chunk_filing",
    "chunk_id",
    "chunk_pages",
    "chunk_transcript",
    "count_tokens",
    "load_pages",
    "tail",
    "transcript_turns",
    "truncate",
]
