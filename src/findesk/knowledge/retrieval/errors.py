"""The retrieval index's errors, shared by the index and every backend's stores.

Rules this module keeps:
- Every failure an index caller should handle is a ``RetrievalIndexError``: the embedded files and the
  PostgreSQL server raise the same types, so callers never branch on the backend.
- Messages name the index by its location (a directory, or a PostgreSQL URL with the password masked).
"""

from __future__ import annotations


class RetrievalIndexError(RuntimeError):
    """An index that cannot be opened or written as asked."""


class IndexNotFoundError(RetrievalIndexError):
    """No index exists at the location and ``create`` was False."""


class IndexLockedError(RetrievalIndexError):
    """Another process is writing the index."""


class BuildError(RetrievalIndexError):
    """A source document could not be indexed; the message names it. Earlier documents are kept."""
