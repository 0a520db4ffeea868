"""The retrieval index: the catalogue, the BM25 index and the vectors, built incrementally.

It lives in a directory (embedded files) or in a PostgreSQL database shared by several servers; the
backend is chosen in one place (``backends.open_stores``) and everything below is the same on both.

Rules this module keeps:
- Incremental: a source whose fingerprint matches a complete document is skipped without being loaded
  or embedded; a changed one has its old chunks removed from all three stores and the new ones added;
  nothing else is rebuilt.
- Resumable: documents are written in small batches, each in the order catalogue "being written" ->
  lexical + vectors committed -> catalogue "complete". A build killed at any point (Ctrl-C, kill -9)
  leaves only whole batches and at most one batch flagged incomplete; opening the index purges flagged
  documents from all three stores, so the next ``build`` adds them again and the result equals a clean
  build.
- Readers never see a half-written document through ``chunks``: its chunk rows are written last. While
  another process is in the middle of a batch, ``lexical``/``dense`` may name ids that ``chunks`` does
  not resolve yet; callers drop those.
- One writer: ``build`` holds the index's write lock (an ``flock`` on ``write.lock``, or a PostgreSQL
  advisory lock for an index on a server; released if the process dies); a second writer, on any
  machine, gets ``IndexLockedError`` at once. Readers never take the lock.
- Bad sources stop the build with ``BuildError`` naming the document, after the batches before it are
  committed, so nothing already indexed is lost and the same build can be run again.
- An index remembers the encoder its vectors came from and refuses to open with another one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence, Sized
from dataclasses import dataclass
from types import TracebackType
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict
from pydantic_core import PydanticSerializationError

from findesk.knowledge.retrieval.backends import CATALOGUE_FILE, LOCK_FILE, Stores, Target, open_stores
from findesk.knowledge.retrieval.chunks import Chunk
from findesk.knowledge.retrieval.embed import Encoder, MiniLMEncoder, default_encoder, scrub
from findesk.knowledge.retrieval.errors import (
    BuildError,
    IndexLockedError,
    IndexNotFoundError,
    RetrievalIndexError,
)
from findesk.knowledge.retrieval.models import DocumentRecord, Filters, IndexStats, ScoredId
from findesk.knowledge.retrieval.vectors import VectorStore

__all__ = [
    "BATCH_CHUNKS",
    "BATCH_DOCUMENTS",
    "CATALOGUE_FILE",
    "LOCK_FILE",
    "BuildError",
    "BuildProgress",
    "BuildReport",
    "IndexLockedError",
    "IndexNotFoundError",
    "RetrievalIndex",
    "RetrievalIndexError",
    "SourceDocument",
]

FORMAT = "1"
BATCH_DOCUMENTS = 8  # commit at least this often, so a kill loses little work
BATCH_CHUNKS = 2000


@dataclass(frozen=True)
class SourceDocument:
    """A document a corpus offers: its identity, a fingerprint of its content and how to chunk it."""

    doc_id: str
    fingerprint: str  # changes whenever the document's content does (e.g. a content hash)
    load: Callable[[], list[Chunk]]  # called only when the document is new or changed


class BuildProgress(BaseModel):
    """Where a build is: called once per source document."""

    model_config = ConfigDict(frozen=True)

    done: int  # source documents handled so far
    total: int | None  # None when the sources are a generator
    doc_id: str
    action: Literal["added", "replaced", "unchanged"]
    chunks: int  # chunks embedded so far in this build


class BuildReport(BaseModel):
    """What a build did."""

    model_config = ConfigDict(frozen=True)

    added: int
    replaced: int
    unchanged: int
    removed: int
    chunks_embedded: int
    seconds: float


@dataclass(frozen=True)
class _Pending:
    source: SourceDocument
    chunks: list[Chunk]
    matrix: np.ndarray
    replaces: bool


class RetrievalIndex:
    """Lexical + dense search over chunks, with the catalogue that holds their text and metadata."""

    def __init__(self, stores: Stores, encoder: Encoder | None) -> None:
        self.location = stores.location  # for messages: the directory, or the URL with its password masked
        self.path = stores.path  # the directory of an embedded index; None on PostgreSQL
        self._stores = stores
        self._catalogue = stores.catalogue
        self._encoder = encoder
        self._lexical = stores.lexical
        self._vectors = stores.vectors
        self._lock = stores.lock

    @classmethod
    def open(
        cls,
        path: Target,
        *,
        encoder: Encoder | None = None,
        create: bool = True,
        vectors: VectorStore | None = None,
    ) -> RetrievalIndex:
        """Open (or create) the index at ``path``; ``encoder`` defaults to MiniLM, loaded lazily.

        ``path`` is a directory (embedded files) or a PostgreSQL URL (the whole index in that database).
        ``vectors`` replaces the backend's own vector store (e.g. a ``PgVectorStore`` beside files).
        """
        stores = open_stores(path, create=create, vectors=vectors)
        try:
            name = encoder.name if encoder is not None else MiniLMEncoder.name
            recorded = stores.catalogue.info("encoder")
            if recorded is None:
                stores.catalogue.set_info({"format": FORMAT, "encoder": name})
            elif recorded != name:
                raise RetrievalIndexError(
                    f"{stores.location} was built with the encoder {recorded!r}; it cannot be searched with "
                    f"{name!r} (rebuild it into a new location)"
                )
            index = cls(stores, encoder)
            index._recover()
        except BaseException:
            stores.close()
            raise
        return index

    @property
    def encoder(self) -> Encoder:
        """The encoder of the index's vector space (MiniLM by default, loaded on first use)."""
        if self._encoder is None:
            self._encoder = default_encoder()
        return self._encoder

    def __enter__(self) -> RetrievalIndex:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Drop uncommitted writes, release the write lock and close the files or connections."""
        self._stores.close()

    # -- writing -------------------------------------------------------------------------------------
    def _recover(self) -> None:
        """Purge documents a killed build left incomplete, if no other process is writing now."""
        stale = self._catalogue.incomplete()
        if not stale or self._lock.held or not self._lock.try_acquire():
            return
        try:
            self._remove(self._catalogue.incomplete())
        finally:
            self._lock.release()

    def _remove(self, doc_ids: Sequence[str]) -> None:
        if not doc_ids:
            return
        self._catalogue.mark_incomplete(doc_ids)
        for doc_id in doc_ids:
            self._lexical.delete_doc(doc_id)
            self._vectors.delete_doc(doc_id)
        self._lexical.commit()
        self._vectors.commit()
        self._catalogue.remove(doc_ids)

    def _write(self, batch: list[_Pending]) -> None:
        if not batch:
            return
        self._catalogue.begin([(p.source.doc_id, p.source.fingerprint) for p in batch])
        for pending in batch:
            if pending.replaces:
                self._lexical.delete_doc(pending.source.doc_id)
                self._vectors.delete_doc(pending.source.doc_id)
            self._lexical.add(pending.chunks)
            self._vectors.add(pending.chunks, pending.matrix)
        self._lexical.commit()
        self._vectors.commit()
        self._catalogue.complete([(p.source.doc_id, p.chunks) for p in batch])
        batch.clear()

    def _load(self, source: SourceDocument) -> tuple[list[Chunk], np.ndarray]:
        try:
            chunks = list(source.load())
        except Exception as exc:  # a corpus's loader may fail in any way; name the document
            raise BuildError(f"{source.doc_id}: cannot load the document: {exc}") from exc
        ids: set[str] = set()
        for i, chunk in enumerate(chunks):
            if scrub(chunk.text) != chunk.text:  # a lone surrogate: no store can hold it
                chunks[i] = chunk = chunk.model_copy(update={"text": scrub(chunk.text)})
            try:
                f"{chunk.id}{chunk.meta.model_dump_json()}".encode()
            except (UnicodeEncodeError, PydanticSerializationError) as exc:
                raise BuildError(
                    f"{source.doc_id!a}: chunk {chunk.id!a} has metadata that is not valid Unicode"
                ) from exc
            # text may hold NUL (it is stored as bytes where needed); ids and metadata are keys and filter
            # values, which PostgreSQL text cannot hold, so both backends refuse them alike
            if "\x00" in chunk.id or any(
                "\x00" in v for v in chunk.meta.model_dump().values() if isinstance(v, str)
            ):
                raise BuildError(
                    f"{source.doc_id!a}: chunk {chunk.id!a} has a NUL character in its id or metadata"
                )
            if chunk.meta.doc_id != source.doc_id:
                raise BuildError(
                    f"{source.doc_id}: chunk {chunk.id} says it belongs to {chunk.meta.doc_id!r}"
                )
            if chunk.id in ids:
                raise BuildError(f"{source.doc_id}: chunk id {chunk.id} appears twice")
            ids.add(chunk.id)
        matrix = self.encoder.encode([c.text for c in chunks])
        if matrix.shape != (len(chunks), self.encoder.dim):
            raise BuildError(
                f"{source.doc_id}: the encoder returned {matrix.shape} vectors for {len(chunks)}"
            )
        return chunks, matrix

    def build(
        self,
        sources: Iterable[SourceDocument],
        *,
        progress: Callable[[BuildProgress], None] | None = None,
        remove_missing: bool = False,
    ) -> BuildReport:
        """Bring the index up to date with ``sources``: add new documents, replace changed ones.

        With ``remove_missing``, documents not among ``sources`` are removed from the index.
        """
        if not self._lock.try_acquire():
            raise IndexLockedError(
                f"{self.location} is being built by another process ({self._lock.owner()}); "
                "wait for it to finish or stop it"
            )
        started = time.monotonic()
        try:
            self._remove(self._catalogue.incomplete())
            known = self._catalogue.fingerprints()
            total = len(sources) if isinstance(sources, Sized) else None
            counts = {"added": 0, "replaced": 0, "unchanged": 0}
            embedded, seen = 0, set[str]()
            batch: list[_Pending] = []
            try:
                for source in sources:
                    if source.doc_id in seen:
                        raise BuildError(f"{source.doc_id}: the document is listed twice in the sources")
                    seen.add(source.doc_id)
                    action: Literal["added", "replaced", "unchanged"]
                    if known.get(source.doc_id) == source.fingerprint:
                        action = "unchanged"
                    else:
                        chunks, matrix = self._load(source)
                        action = "replaced" if source.doc_id in known else "added"
                        batch.append(_Pending(source, chunks, matrix, replaces=source.doc_id in known))
                        embedded += len(chunks)
                        if len(batch) >= BATCH_DOCUMENTS or sum(len(p.chunks) for p in batch) >= BATCH_CHUNKS:
                            self._write(batch)
                    counts[action] += 1
                    if progress is not None:
                        progress(
                            BuildProgress(
                                done=len(seen),
                                total=total,
                                doc_id=source.doc_id,
                                action=action,
                                chunks=embedded,
                            )
                        )
            except BuildError:
                self._write(batch)  # keep the good documents before the bad one
                raise
            self._write(batch)
            missing = sorted(set(known) - seen) if remove_missing else []
            self._remove(missing)
        except BaseException:
            # Ctrl-C, a bad source or a failed write: drop what the stores hold uncommitted and purge a
            # batch the catalogue flagged as being written (if this is interrupted too, the next open does)
            self._lexical.rollback()
            self._vectors.rollback()
            self._remove(self._catalogue.incomplete())
            raise
        finally:
            self._lock.release()
        return BuildReport(
            **counts,
            removed=len(missing),
            chunks_embedded=embedded,
            seconds=round(time.monotonic() - started, 3),
        )

    # -- reading -------------------------------------------------------------------------------------
    def lexical(
        self,
        text: str,
        filters: Filters | None = None,
        n: int = 10,
        *,
        expansion: str = "",
        expansion_weight: float = 1.0,
    ) -> list[ScoredId]:
        """BM25 top-``n`` among the chunks ``filters`` admit (``expansion``: extra weighted terms)."""
        return self._lexical.search(
            text, filters or Filters(), n, expansion=expansion, expansion_weight=expansion_weight
        )

    def dense(self, text: str, filters: Filters | None = None, n: int = 10) -> list[ScoredId]:
        """Cosine top-``n`` of the encoded query among the chunks ``filters`` admit."""
        if not text.strip() or n <= 0:
            return []
        return self._vectors.search(self.encoder.encode([text])[0], filters or Filters(), n)

    def chunks(self, ids: Sequence[str]) -> dict[str, Chunk]:
        """The chunks with these ids, in the order asked (ids not in the index are left out)."""
        return self._catalogue.chunks(ids)

    def chunk_ids(self) -> list[str]:
        """Every chunk id in the index."""
        return self._catalogue.chunk_ids()

    def documents(self) -> list[DocumentRecord]:
        """Every indexed document."""
        return self._catalogue.documents()

    def stats(self) -> IndexStats:
        """Documents, chunks and the bytes the whole index takes on disk (files, or tables on the server)."""
        docs, chunks = self._catalogue.counts()
        return IndexStats(documents=docs, chunks=chunks, bytes_on_disk=self._stores.size())
