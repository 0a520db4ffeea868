"""Where a retrieval index lives: files in a directory (embedded) or tables in PostgreSQL (shared).

Rules this module keeps:
- The one place the backend is chosen: ``open_stores`` takes a target (a directory, or a PostgreSQL URL
  as ``Settings.retrieval_url`` or ``--index`` gives it) and returns the same ``Stores`` either way: a
  catalogue, a lexical (BM25) store, a vector store, the write lock and a size on disk. The index above
  (``index.RetrievalIndex``) never asks which backend it runs on.
- Embedded: ``catalogue.sqlite3`` (SQLite), a tantivy directory, the memory-mapped numpy vectors and an
  ``flock`` on ``write.lock``. PostgreSQL: the ``retrieval_*`` tables of the URL's database (current
  schema), full-text ``tsvector`` + GIN for BM25, pgvector with an HNSW index, and an advisory lock, so
  several servers on several machines build and search one index.
- Opening without ``create`` never creates anything: a directory without a catalogue, or a database
  without the index's tables, is ``IndexNotFoundError`` telling the user to run ``findesk index build``.
- A text target that is not a PostgreSQL URL but has a scheme (``sqlite://…``) is refused with a clear
  error rather than read as a directory name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from findesk.core.config import mask_url
from findesk.knowledge.retrieval.chunks import Chunk
from findesk.knowledge.retrieval.errors import IndexNotFoundError, RetrievalIndexError
from findesk.knowledge.retrieval.locks import FileLock, PgAdvisoryLock, WriteLock
from findesk.knowledge.retrieval.models import DocumentRecord, Filters, ScoredId
from findesk.knowledge.retrieval.vectors import VectorStore

CATALOGUE_FILE = "catalogue.sqlite3"
LOCK_FILE = "write.lock"
BUILD_HINT = "run `findesk index build` first"

PG_SCHEMES = ("postgresql", "postgres", "postgresql+psycopg")
VECTORS_TABLE = "retrieval_vectors"

Target = Path | str  # a directory, or a PostgreSQL URL


class CatalogueStore(Protocol):
    """Documents and chunks with their text and metadata: the source of truth for what is complete."""

    def info(self, key: str) -> str | None: ...
    def set_info(self, values: dict[str, str]) -> None: ...
    def fingerprints(self) -> dict[str, str]: ...
    def incomplete(self) -> list[str]: ...
    def begin(self, docs: Sequence[tuple[str, str]]) -> None: ...
    def complete(self, docs: Sequence[tuple[str, Sequence[Chunk]]]) -> None: ...
    def mark_incomplete(self, doc_ids: Sequence[str]) -> None: ...
    def remove(self, doc_ids: Sequence[str]) -> None: ...
    def documents(self) -> list[DocumentRecord]: ...
    def counts(self) -> tuple[int, int]: ...
    def chunks(self, ids: Sequence[str]) -> dict[str, Chunk]: ...
    def chunk_ids(self) -> list[str]: ...
    def close(self) -> None: ...


class LexicalStore(Protocol):
    """BM25 over chunk text with filters before ranking; writes visible at ``commit``."""

    def add(self, chunks: Sequence[Chunk]) -> None: ...
    def delete_doc(self, doc_id: str) -> None: ...
    def commit(self) -> None: ...
    def rollback(self) -> None: ...
    def search(
        self, text: str, filters: Filters, n: int, *, expansion: str = "", expansion_weight: float = 1.0
    ) -> list[ScoredId]: ...
    def count(self) -> int: ...
    def close(self) -> None: ...


@dataclass
class Stores:
    """Everything one open index is made of."""

    location: str  # for messages: the directory, or the URL with its password masked
    path: Path | None  # the directory of an embedded index
    catalogue: CatalogueStore
    lexical: LexicalStore
    vectors: VectorStore
    lock: WriteLock
    size: Callable[[], int]  # bytes the index takes on disk

    def close(self) -> None:
        """Drop uncommitted writes, release the write lock and close files and connections."""
        try:
            self.lexical.close()
            self.vectors.close()
        finally:
            self.catalogue.close()
            self.lock.release()


def is_postgres_url(target: str) -> bool:
    """Whether ``target`` is a PostgreSQL URL (libpq's ``postgresql://``/``postgres://`` or SQLAlchemy's
    ``postgresql+psycopg://``)."""
    scheme, sep, _ = target.partition("://")
    return bool(sep) and scheme.lower() in PG_SCHEMES


def resolve(target: Target) -> Target:
    """A ``Path`` for a directory, the URL string for PostgreSQL (a string path becomes a ``Path``)."""
    if isinstance(target, Path):
        return target
    if is_postgres_url(target):
        return target
    if "://" in target:
        raise RetrievalIndexError(
            f"{mask_url(target)}: a retrieval index lives in a directory or in PostgreSQL "
            "(postgresql://…); other URLs are not supported"
        )
    return Path(target).expanduser()


def describe(target: Target) -> str:
    """The target as messages show it (a URL's password masked)."""
    text = str(target)
    return mask_url(text) if "://" in text else text


def open_stores(target: Target, *, create: bool, vectors: VectorStore | None = None) -> Stores:
    """The stores of the index at ``target`` (created if missing and ``create``).

    ``vectors`` replaces the backend's own vector store (e.g. a ``PgVectorStore`` beside embedded files).
    """
    where = resolve(target)
    if isinstance(where, Path):
        return _embedded(where, create=create, vectors=vectors)
    return _postgres(where, create=create, vectors=vectors)


def _embedded(path: Path, *, create: bool, vectors: VectorStore | None) -> Stores:
    from findesk.knowledge.retrieval.catalogue import Catalogue
    from findesk.knowledge.retrieval.lexical import LexicalIndex
    from findesk.knowledge.retrieval.vectors import NumpyVectorStore

    catalogue_file = path / CATALOGUE_FILE
    if not catalogue_file.exists():
        if not create:
            what = "does not exist" if not path.exists() else "holds no index"
            raise IndexNotFoundError(f"no retrieval index yet: {path} {what}; {BUILD_HINT}")
        if path.exists() and not path.is_dir():
            raise RetrievalIndexError(f"{path} exists and is not a directory")
        path.mkdir(parents=True, exist_ok=True)
    catalogue = Catalogue(catalogue_file)
    try:
        lexical = LexicalIndex(path / "lexical")
        store = vectors if vectors is not None else NumpyVectorStore(path / "vectors")
    except BaseException:
        catalogue.close()
        raise
    return Stores(
        location=str(path),
        path=path,
        catalogue=catalogue,
        lexical=lexical,
        vectors=store,
        lock=FileLock(path / LOCK_FILE),
        size=lambda: sum(p.stat().st_size for p in path.rglob("*") if p.is_file()),
    )


def _postgres(url: str, *, create: bool, vectors: VectorStore | None) -> Stores:
    import psycopg

    from findesk.knowledge.retrieval import pg, pg_catalogue, pg_lexical
    from findesk.knowledge.retrieval.vectors import PgVectorStore, VectorStoreError

    tables = [*pg_catalogue.TABLES, *pg_lexical.TABLES, VECTORS_TABLE]
    where = pg.location(url)
    conns: list[psycopg.Connection[Any]] = []
    store: VectorStore | None = None
    try:
        conns.append(pg.connect(url, autocommit=True))
        conn = conns[0]
        if pg.missing(conn, tables):
            if not create:
                raise IndexNotFoundError(f"no retrieval index yet in {where}; {BUILD_HINT}")
            with pg.schema_lock(conn):
                if pg.missing(conn, tables):  # another server may have made them while we waited
                    with conn.transaction():
                        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                        for statement in pg_catalogue.DDL + pg_lexical.DDL:
                            conn.execute(statement)
                    # committed first: its own connection's CREATE EXTENSION would wait for ours
                    store = vectors or PgVectorStore(url, table=VECTORS_TABLE, hnsw=True)
        store = store or vectors or PgVectorStore(url, table=VECTORS_TABLE, hnsw=True)
        conns.append(pg.connect(url, autocommit=False))
    except (psycopg.Error, VectorStoreError) as exc:
        _close(conns, store, vectors)
        raise RetrievalIndexError(f"cannot open the retrieval index in {where}: {exc}") from exc
    except BaseException:
        _close(conns, store, vectors)
        raise
    return Stores(
        location=where,
        path=None,
        catalogue=pg_catalogue.PgCatalogue(conns[0]),
        lexical=pg_lexical.PgLexicalIndex(conns[1], conns[0]),
        vectors=store,
        lock=PgAdvisoryLock(url),
        size=lambda: pg_catalogue.size(conns[0], tables),
    )


def _close(conns: list[Any], store: VectorStore | None, given: VectorStore | None) -> None:
    for conn in conns:
        conn.close()
    if store is not None and store is not given:
        store.close()
