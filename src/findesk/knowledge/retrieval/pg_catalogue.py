"""The retrieval index's catalogue on PostgreSQL: documents and every chunk's text and metadata.

Rules this module keeps (those of ``catalogue``, on a server):
- The catalogue is the source of truth for what is complete: a document row is written with
  ``complete = false`` before its chunks go into the lexical and vector stores, and set to true (with its
  chunk rows) only after both stores committed; a row left at false marks a document to purge.
- Chunk rows exist only for complete documents, so ``chunks`` never returns a half-written document.
- Every write is one transaction; reads run in autocommit, so a reader never holds a transaction open
  and always sees the last commit of any writer, on any machine.
- Chunk text is stored as UTF-8 ``bytea``: PostgreSQL ``text`` cannot hold a NUL character, which a
  document may contain, and the text must come back exactly as indexed. Metadata is the same JSON the
  embedded catalogue keeps.
- Table names are fixed (``retrieval_*``): one index per database schema.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import psycopg

from findesk.knowledge.retrieval.chunks import Chunk, ChunkMeta
from findesk.knowledge.retrieval.models import DocumentRecord

TABLES = ["retrieval_info", "retrieval_documents", "retrieval_chunks"]
DDL = [
    "CREATE TABLE IF NOT EXISTS retrieval_info (key text PRIMARY KEY, value text NOT NULL)",
    "CREATE TABLE IF NOT EXISTS retrieval_documents (doc_id text PRIMARY KEY, fingerprint text NOT NULL, "
    "doc_hash text NOT NULL DEFAULT '', chunks integer NOT NULL DEFAULT 0, meta text, "
    "complete boolean NOT NULL DEFAULT false)",
    "CREATE TABLE IF NOT EXISTS retrieval_chunks (id text PRIMARY KEY, doc_id text NOT NULL, "
    "position integer NOT NULL, text bytea NOT NULL, tokens integer NOT NULL, meta text NOT NULL)",
    "CREATE INDEX IF NOT EXISTS retrieval_chunks_by_doc ON retrieval_chunks (doc_id, position)",
]


class PgCatalogue:
    """The catalogue tables of the database at ``url`` (made by the backend's schema set-up)."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self._conn = conn  # autocommit: every write below opens its own transaction

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()

    # -- info ----------------------------------------------------------------------------------------
    def info(self, key: str) -> str | None:
        """A recorded setting of the index, or None."""
        row = self._conn.execute("SELECT value FROM retrieval_info WHERE key = %s", [key]).fetchone()
        return None if row is None else str(row[0])

    def set_info(self, values: dict[str, str]) -> None:
        """Record settings of the index."""
        with self._conn.transaction(), self._conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO retrieval_info VALUES (%s, %s) "
                "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                list(values.items()),
            )

    # -- documents -----------------------------------------------------------------------------------
    def fingerprints(self) -> dict[str, str]:
        """``doc_id -> fingerprint`` of every complete document."""
        rows = self._conn.execute("SELECT doc_id, fingerprint FROM retrieval_documents WHERE complete")
        return {str(d): str(f) for d, f in rows}

    def incomplete(self) -> list[str]:
        """Documents whose last write did not finish."""
        rows = self._conn.execute("SELECT doc_id FROM retrieval_documents WHERE NOT complete ORDER BY doc_id")
        return [str(r[0]) for r in rows]

    def begin(self, docs: Sequence[tuple[str, str]]) -> None:
        """Mark ``(doc_id, fingerprint)`` documents as being written: old chunk rows go, complete = false."""
        ids = [d for d, _ in docs]
        with self._conn.transaction(), self._conn.cursor() as cur:
            cur.execute("DELETE FROM retrieval_chunks WHERE doc_id = ANY(%s)", [ids])
            cur.executemany(
                "INSERT INTO retrieval_documents (doc_id, fingerprint, complete) VALUES (%s, %s, false) "
                "ON CONFLICT (doc_id) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, complete = false",
                list(docs),
            )

    def complete(self, docs: Sequence[tuple[str, Sequence[Chunk]]]) -> None:
        """Store each document's chunks and mark it complete, in one transaction."""
        with self._conn.transaction(), self._conn.cursor() as cur:
            for doc_id, chunks in docs:
                if chunks:
                    with cur.copy(
                        "COPY retrieval_chunks (id, doc_id, position, text, tokens, meta) FROM STDIN"
                    ) as copy:
                        for c in chunks:
                            copy.write_row(
                                (
                                    c.id,
                                    doc_id,
                                    c.position,
                                    c.text.encode(),
                                    c.tokens,
                                    c.meta.model_dump_json(),
                                )
                            )
                first = chunks[0].meta if chunks else None
                cur.execute(
                    "UPDATE retrieval_documents SET doc_hash = %s, chunks = %s, meta = %s, complete = true "
                    "WHERE doc_id = %s",
                    [
                        first.doc_hash if first else "",
                        len(chunks),
                        first.model_dump_json() if first else None,
                        doc_id,
                    ],
                )

    def mark_incomplete(self, doc_ids: Iterable[str]) -> None:
        """Flag documents about to be removed, so an interrupted removal is finished on the next open."""
        self._conn.execute(
            "UPDATE retrieval_documents SET complete = false WHERE doc_id = ANY(%s)", [list(doc_ids)]
        )

    def remove(self, doc_ids: Iterable[str]) -> None:
        """Forget documents and their chunks."""
        ids = list(doc_ids)
        with self._conn.transaction():
            self._conn.execute("DELETE FROM retrieval_chunks WHERE doc_id = ANY(%s)", [ids])
            self._conn.execute("DELETE FROM retrieval_documents WHERE doc_id = ANY(%s)", [ids])

    def documents(self) -> list[DocumentRecord]:
        """Every complete document, by id."""
        rows = self._conn.execute(
            "SELECT doc_id, doc_hash, chunks, meta FROM retrieval_documents "
            'WHERE complete AND meta IS NOT NULL ORDER BY doc_id COLLATE "C"'
        )
        return [
            DocumentRecord(doc_id=d, doc_hash=h, chunks=n, meta=ChunkMeta.model_validate_json(m))
            for d, h, n, m in rows
        ]

    def counts(self) -> tuple[int, int]:
        """``(complete documents with at least one chunk, chunks)``, as ``documents`` lists them."""
        row = self._conn.execute(
            "SELECT (SELECT count(*) FROM retrieval_documents WHERE complete AND meta IS NOT NULL), "
            "(SELECT count(*) FROM retrieval_chunks)"
        ).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    # -- chunks --------------------------------------------------------------------------------------
    def chunks(self, ids: Sequence[str]) -> dict[str, Chunk]:
        """The chunks with these ids that belong to complete documents (unknown ids are left out)."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        rows = self._conn.execute(
            "SELECT id, position, text, tokens, meta FROM retrieval_chunks WHERE id = ANY(%s)", [wanted]
        )
        out = {
            str(cid): Chunk(
                id=cid,
                position=position,
                text=bytes(text).decode(),
                tokens=tokens,
                meta=ChunkMeta.model_validate_json(meta),
            )
            for cid, position, text, tokens, meta in rows
        }
        return {cid: out[cid] for cid in wanted if cid in out}

    def chunk_ids(self) -> list[str]:
        """Every chunk id, in document and position order."""
        rows = self._conn.execute('SELECT id FROM retrieval_chunks ORDER BY doc_id COLLATE "C", position')
        return [str(r[0]) for r in rows]


def size(conn: psycopg.Connection[Any], tables: Sequence[str]) -> int:
    """Bytes the tables take on the server, with their indexes and TOAST data."""
    row = conn.execute(
        "SELECT coalesce(sum(pg_total_relation_size(to_regclass(t))), 0) FROM unnest(%s::text[]) AS t",
        [list(tables)],
    ).fetchone()
    return int(row[0]) if row else 0
