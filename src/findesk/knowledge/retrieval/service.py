"""The built index as something to search: opened with errors as data, shared safely between threads.

Rules this module keeps:
- Opening never creates: searching a directory or database where no index was built is ``not_found``
  telling the user to run ``findesk index build``; an index that cannot be opened (locked, damaged,
  another encoder, a PostgreSQL server that does not answer) is ``unavailable`` with the reason.
  Nothing raises to the caller; the index is named by its location, a URL's password masked.
- The same on either backend: the target (a directory or a PostgreSQL URL, ``Settings.index_target``)
  is handed to the index, which chooses the backend; this module never asks which one it is.
- ``IndexSearch`` opens the index on first use, so a run that never searches never loads the index or
  the embedding model, and a missing index fails only the search, not the run.
- Light to import: the index (tantivy, numpy, onnxruntime) is imported by the first open or search.
- One search at a time per ``IndexSearch``: the catalogue's SQLite connection and the encoder session
  are shared, so concurrent tool calls (agents run tools concurrently, in worker threads) queue on a
  lock rather than interleave.
- A query is checked before it reaches the index: empty (or whitespace-only) text is ``invalid_input``,
  and a query longer than ``MAX_QUERY_CHARS`` is ``invalid_input`` too, never silently cut.
"""

from __future__ import annotations

import sqlite3
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from findesk.core.result import Err, ErrorCode, Ok, Result

if TYPE_CHECKING:
    from findesk.knowledge.retrieval.index import RetrievalIndex
    from findesk.knowledge.retrieval.models import Filters
    from findesk.knowledge.retrieval.retrieve import Retrieval

MAX_QUERY_CHARS = 2_000
MAX_K = 100
BUILD_HINT = "run `findesk index build` first"


def _store_errors() -> tuple[type[BaseException], ...]:
    """What a store can raise besides ``RetrievalIndexError``: file and SQLite errors, and psycopg's once
    an index on PostgreSQL was opened (psycopg is never imported here just to name its errors)."""
    from findesk.knowledge.retrieval.index import RetrievalIndexError
    from findesk.knowledge.retrieval.vectors import VectorStoreError

    errors: tuple[type[BaseException], ...] = (RetrievalIndexError, VectorStoreError, OSError, sqlite3.Error)
    psycopg = sys.modules.get("psycopg")
    return (*errors, psycopg.Error) if psycopg is not None else errors


def open_index(target: Path | str) -> Result[RetrievalIndex]:
    """The index built at ``target`` (a directory or a PostgreSQL URL), for reading."""
    # Imported on first use: the index brings tantivy, numpy and onnxruntime (~0.6 s), which a tool
    # context that never searches should not pay for.
    from findesk.knowledge.retrieval.backends import describe
    from findesk.knowledge.retrieval.index import IndexNotFoundError, RetrievalIndex

    failures: tuple[type[BaseException], ...] = (*_store_errors(), ValueError)
    try:
        return Ok(RetrievalIndex.open(target, create=False))
    except IndexNotFoundError as exc:
        return Err(ErrorCode.NOT_FOUND, str(exc))
    except failures as exc:
        return Err(ErrorCode.UNAVAILABLE, f"cannot open the retrieval index at {describe(target)}: {exc}")


def check_query(query: str, k: int) -> Result[str]:
    """The query as searched (stripped), or why it cannot be."""
    text = query.strip()
    if not text:
        return Err(ErrorCode.INVALID_INPUT, 'the query is empty; say what to look for, e.g. "risk factors"')
    if len(text) > MAX_QUERY_CHARS:
        return Err(
            ErrorCode.INVALID_INPUT,
            f"the query is {len(text):,} characters long; at most {MAX_QUERY_CHARS:,} are searched",
        )
    if not 1 <= k <= MAX_K:
        return Err(ErrorCode.INVALID_INPUT, f"k must be between 1 and {MAX_K}, got {k}")
    return Ok(text)


def search(
    index: RetrievalIndex, query: str, filters: Filters | None = None, k: int = 10, *, derive: bool = True
) -> Result[Retrieval]:
    """``retrieve`` with the query checked and the index's failures as ``Err``."""
    from findesk.knowledge.retrieval.retrieve import retrieve

    checked = check_query(query, k)
    if isinstance(checked, Err):
        return checked
    try:
        return Ok(retrieve(index, checked.value, filters, k, derive=derive))
    except _store_errors() as exc:
        return Err(ErrorCode.UNAVAILABLE, f"the retrieval index at {index.location} failed: {exc}")


class IndexSearch:
    """The index at ``target`` (a directory or a PostgreSQL URL), opened on first search and shared by
    every caller of this object."""

    def __init__(self, target: Path | str) -> None:
        self.path = target
        self._index: RetrievalIndex | None = None
        self._lock = threading.Lock()

    def search(self, query: str, filters: Filters | None = None, k: int = 10) -> Result[Retrieval]:
        with self._lock:
            if self._index is None:
                opened = open_index(self.path)
                if isinstance(opened, Err):
                    return opened  # not cached: an index built later is found by the next search
                self._index = opened.value
            return search(self._index, query, filters, k)

    def close(self) -> None:
        with self._lock:
            if self._index is not None:
                self._index.close()
                self._index = None
