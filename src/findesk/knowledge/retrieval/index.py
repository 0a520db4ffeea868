"""The retrieval index: one directory with the catalogue, the BM25 index and the vectors, built incrementally.

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
- One writer: ``build`` holds an exclusive lock on ``write.lock`` (released by the OS if the process
  dies); a second writer gets ``IndexLockedError`` at once. Readers never take the lock.
- Bad sources stop the build with ``BuildError`` naming the document, after the batches before it are
  committed, so nothing already indexed is lost and the same build can be run again.
- An index remembers the encoder its vectors came from and refuses to open with another one.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterable, Sequence, Sized
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict
from pydantic_core import PydanticSerializationError

from findesk.knowledge.retrieval.catalogue import Catalogue
from findesk.knowledge.retrieval.chunks import Chunk
from findesk.knowledge.retrieval.embed import Encoder, MiniLMEncoder, default_encoder, scrub
from findesk.knowledge.retrieval.lexical import LexicalIndex
from findesk.knowledge.retrieval.models import DocumentRecord, Filters, IndexStats, ScoredId
from findesk.knowledge.retrieval.vectors import NumpyVectorStore, VectorStore

FORMAT = "1"
CATALOGUE_FILE = "catalogue.sqlite3"
LOCK_FILE = "write.lock"
BATCH_DOCUMENTS = 8  # commit at least this often, so a kill loses little work
BATCH_CHUNKS = 2000


class RetrievalIndexError(RuntimeError):
    """An index that cannot be opened or written as asked."""


class IndexNotFoundError(RetrievalIndexError):
    """No index exists at the path and ``create`` was False."""


class IndexLockedError(RetrievalIndexError):
    """Another process is writing the index."""


class BuildError(RetrievalIndexError):
    """A source document could not be indexed; the message names it. Earlier documents are kept."""


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


class _WriteLock:
    """An exclusive ``flock`` on a file in the index directory, held by one process at a time."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._fh: IO[str] | None = None

    @property
    def held(self) -> bool:
        return self._fh is not None

    def try_acquire(self) -> bool:
        if self._fh is not None:
            return True
        fh = self._path.open("a+", encoding="utf-8")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.close()
            return False
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
        self._fh = fh
        return True

    def owner(self) -> str:
        try:
            return self._path.read_text(encoding="utf-8").strip() or "unknown"
        except OSError:
            return "unknown"

    def release(self) -> None:
        if self._fh is not None:
            fcntl.flock(self._fh, fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None


class RetrievalIndex:
    """Lexical + dense search over chunks, with the catalogue that holds their text and metadata."""

    def __init__(
        self, path: Path, catalogue: Catalogue, encoder: Encoder | None, vectors: VectorStore | None
    ) -> None:
        self.path = path
        self._catalogue = catalogue
        self._encoder = encoder
        self._lexical = LexicalIndex(path / "lexical")
        self._vectors: VectorStore = vectors if vectors is not None else NumpyVectorStore(path / "vectors")
        self._lock = _WriteLock(path / LOCK_FILE)

    @classmethod
    def open(
        cls,
        path: Path,
        *,
        encoder: Encoder | None = None,
        create: bool = True,
        vectors: VectorStore | None = None,
    ) -> RetrievalIndex:
        """Open (or create) the index in directory ``path``; ``encoder`` defaults to MiniLM, loaded lazily.

        ``vectors`` replaces the default memory-mapped store (e.g. a ``PgVectorStore``).
        """
        catalogue_file = path / CATALOGUE_FILE
        if not catalogue_file.exists():
            if not create:
                raise IndexNotFoundError(f"no retrieval index at {path}; run `findesk index build` first")
            if path.exists() and not path.is_dir():
                raise RetrievalIndexError(f"{path} exists and is not a directory")
            path.mkdir(parents=True, exist_ok=True)
        catalogue = Catalogue(catalogue_file)
        try:
            name = encoder.name if encoder is not None else MiniLMEncoder.name
            recorded = catalogue.info("encoder")
            if recorded is None:
                catalogue.set_info({"format": FORMAT, "encoder": name})
            elif recorded != name:
                raise RetrievalIndexError(
                    f"{path} was built with the encoder {recorded!r}; it cannot be searched with {name!r} "
                    "(rebuild it into a new directory)"
                )
            index = cls(path, catalogue, encoder, vectors)
        except BaseException:
            catalogue.close()
            raise
        index._recover()
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
        """Drop uncommitted writes, release the write lock and close the files."""
        self._lexical.close()
        self._vectors.close()
        self._catalogue.close()
        self._lock.release()

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
            if scrub(chunk.text) != chunk.text:  # a lone surrogate: the only thing SQLite cannot store
                chunks[i] = chunk = chunk.model_copy(update={"text": scrub(chunk.text)})
            try:
                f"{chunk.id}{chunk.meta.model_dump_json()}".encode()
            except (UnicodeEncodeError, PydanticSerializationError) as exc:
                raise BuildError(
                    f"{source.doc_id!a}: chunk {chunk.id!a} has metadata that is not valid Unicode"
                ) from exc
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
                f"{self.path} is being built by another process (pid {self._lock.owner()}); "
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
        """Documents, chunks and the bytes the whole index directory takes on disk."""
        docs, chunks = self._catalogue.counts()
        size = sum(p.stat().st_size for p in self.path.rglob("*") if p.is_file())
        return IndexStats(documents=docs, chunks=chunks, bytes_on_disk=size)
