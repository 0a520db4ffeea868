"""The retrieval index's catalogue: one SQLite file of documents and every chunk's text and metadata.

Rules this module keeps:
- The catalogue is the index's source of truth for what is complete: a document row is written with
  ``complete = 0`` before its chunks go into the lexical and vector stores, and set to 1 (with its chunk
  rows) only after both stores committed; a row left at 0 marks a document to purge and rebuild.
- Chunk rows exist only for complete documents, so ``chunks`` never returns a half-written document.
- Every write is one transaction (WAL journal, ``synchronous=FULL``): a killed process leaves either the
  state before or the state after it. Readers in other processes are not blocked by a writer.
- The ``info`` table records the encoder that made the vectors, so an index is never searched with a
  different vector space than it was built with.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

from findesk.knowledge.retrieval.chunks import Chunk, ChunkMeta
from findesk.knowledge.retrieval.models import DocumentRecord

_SCHEMA = """
CREATE TABLE IF NOT EXISTS info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    doc_hash TEXT NOT NULL DEFAULT '',
    chunks INTEGER NOT NULL DEFAULT 0,
    meta TEXT,
    complete INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS chunks (
    id TEXT PRIMARY KEY,
    doc_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    text TEXT NOT NULL,
    tokens INTEGER NOT NULL,
    meta TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_by_doc ON chunks (doc_id, position);
"""
_IN_BATCH = 500  # stays far below SQLite's bound-parameter limit


class Catalogue:
    """The SQLite catalogue at ``path``."""

    def __init__(self, path: Path) -> None:
        self._conn = sqlite3.connect(path, timeout=30.0, isolation_level=None, check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode = WAL")
        self._conn.execute("PRAGMA synchronous = FULL")
        # every statement is IF NOT EXISTS, so concurrent openers agree without a transaction
        self._conn.executescript(_SCHEMA)

    def _tx(self) -> _Transaction:
        return _Transaction(self._conn)

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()

    # -- info ----------------------------------------------------------------------------------------
    def info(self, key: str) -> str | None:
        """A recorded setting of the index, or None."""
        row = self._conn.execute("SELECT value FROM info WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_info(self, values: dict[str, str]) -> None:
        """Record settings of the index."""
        with self._tx():
            self._conn.executemany("INSERT OR REPLACE INTO info VALUES (?, ?)", values.items())

    # -- documents -----------------------------------------------------------------------------------
    def fingerprints(self) -> dict[str, str]:
        """``doc_id -> fingerprint`` of every complete document."""
        rows = self._conn.execute("SELECT doc_id, fingerprint FROM documents WHERE complete = 1")
        return {str(d): str(f) for d, f in rows}

    def incomplete(self) -> list[str]:
        """Documents whose last write did not finish."""
        return [str(r[0]) for r in self._conn.execute("SELECT doc_id FROM documents WHERE complete = 0")]

    def begin(self, docs: Sequence[tuple[str, str]]) -> None:
        """Mark ``(doc_id, fingerprint)`` documents as being written: old chunk rows go, complete = 0."""
        with self._tx():
            for doc_id, fingerprint in docs:
                self._conn.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
                self._conn.execute(
                    "INSERT INTO documents (doc_id, fingerprint, complete) VALUES (?, ?, 0) "
                    "ON CONFLICT (doc_id) DO UPDATE SET fingerprint = excluded.fingerprint, complete = 0",
                    (doc_id, fingerprint),
                )

    def complete(self, docs: Sequence[tuple[str, Sequence[Chunk]]]) -> None:
        """Store each document's chunks and mark it complete, in one transaction."""
        with self._tx():
            for doc_id, chunks in docs:
                self._conn.executemany(
                    "INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?)",
                    ((c.id, doc_id, c.position, c.text, c.tokens, c.meta.model_dump_json()) for c in chunks),
                )
                first = chunks[0].meta if chunks else None
                self._conn.execute(
                    "UPDATE documents SET doc_hash = ?, chunks = ?, meta = ?, complete = 1 WHERE doc_id = ?",
                    (
                        first.doc_hash if first else "",
                        len(chunks),
                        first.model_dump_json() if first else None,
                        doc_id,
                    ),
                )

    def mark_incomplete(self, doc_ids: Iterable[str]) -> None:
        """Flag documents about to be removed, so an interrupted removal is finished on the next open."""
        with self._tx():
            self._conn.executemany(
                "UPDATE documents SET complete = 0 WHERE doc_id = ?", ((d,) for d in doc_ids)
            )

    def remove(self, doc_ids: Iterable[str]) -> None:
        """Forget documents and their chunks."""
        with self._tx():
            for doc_id in doc_ids:
                self._conn.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
                self._conn.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))

    def documents(self) -> list[DocumentRecord]:
        """Every complete document, by id."""
        rows = self._conn.execute(
            "SELECT doc_id, doc_hash, chunks, meta FROM documents "
            "WHERE complete = 1 AND meta IS NOT NULL ORDER BY doc_id"
        )
        return [
            DocumentRecord(doc_id=d, doc_hash=h, chunks=n, meta=ChunkMeta.model_validate_json(m))
            for d, h, n, m in rows
        ]

    def counts(self) -> tuple[int, int]:
        """``(complete documents with at least one chunk, chunks)``, as ``documents`` lists them."""
        docs = self._conn.execute(
            "SELECT COUNT(*) FROM documents WHERE complete = 1 AND meta IS NOT NULL"
        ).fetchone()[0]
        chunks = self._conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        return int(docs), int(chunks)

    # -- chunks --------------------------------------------------------------------------------------
    def chunks(self, ids: Sequence[str]) -> dict[str, Chunk]:
        """The chunks with these ids that belong to complete documents (unknown ids are left out)."""
        wanted = list(dict.fromkeys(ids))
        out: dict[str, Chunk] = {}
        for start in range(0, len(wanted), _IN_BATCH):
            part = wanted[start : start + _IN_BATCH]
            marks = ",".join("?" * len(part))
            rows = self._conn.execute(
                f"SELECT id, position, text, tokens, meta FROM chunks WHERE id IN ({marks})", part
            )
            for cid, position, text, tokens, meta in rows:
                out[cid] = Chunk(
                    id=cid,
                    position=position,
                    text=text,
                    tokens=tokens,
                    meta=ChunkMeta.model_validate_json(meta),
                )
        return {cid: out[cid] for cid in wanted if cid in out}

    def chunk_ids(self) -> list[str]:
        """Every chunk id, in document and position order."""
        return [str(r[0]) for r in self._conn.execute("SELECT id FROM chunks ORDER BY doc_id, position")]


class _Transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (or ``ROLLBACK`` on an exception)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def __enter__(self) -> None:
        self._conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self._conn.execute("COMMIT" if exc_type is None else "ROLLBACK")
