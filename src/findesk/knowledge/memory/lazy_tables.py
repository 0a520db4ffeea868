"""Tables in the state database, opened on first use: the memory store and the decision log share
this one way of holding their engines.

Rules:
- ``LazyTables(url)`` connects nothing; the first read or write opens the engines through
  ``core.storage.open_store`` (SQLite by default, PostgreSQL by URL; migrated to the newest schema unless
  read-only),
  and a failed open is retried on the next call. ``close`` releases them; it is idempotent.
- Read-only: ``_reader`` is ``Ok(None)`` while the database or the tables do not exist yet (nothing
  stored), and asking for the writer is a programming error (``RuntimeError``).
- Importing this module costs no SQLAlchemy; opening does.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, ClassVar

from findesk.core.result import Err, ErrorCode, Ok, Result

if TYPE_CHECKING:
    from sqlalchemy import Engine, MetaData

    from findesk.core.storage import OpenStore


class LazyTables:
    what: ClassVar[str] = "store"  # named in errors: "memory store", "decision log"

    def __init__(self, url: str, *, read_only: bool = False, busy_timeout_s: float = 10.0) -> None:
        self.url = url
        self.read_only = read_only
        self.busy_timeout_s = busy_timeout_s
        self._opened: OpenStore | None = None
        self._lock = threading.Lock()

    def _metadata(self) -> MetaData:
        """The tables this store owns."""
        raise NotImplementedError

    @property
    def location(self) -> str:
        return self._opened.location if self._opened is not None else self.url

    def close(self) -> None:
        """Release the database connections. Idempotent."""
        with self._lock:
            opened, self._opened = self._opened, None
        if opened is not None:
            if opened.writer is not None:
                opened.writer.dispose()
            opened.reader.dispose()

    def _open(self) -> Result[OpenStore]:
        with self._lock:
            if self._opened is None:
                from findesk.core.storage import open_store

                opened = open_store(
                    self.url,
                    what=self.what,
                    metadata=self._metadata(),
                    read_only=self.read_only,
                    busy_timeout_s=self.busy_timeout_s,
                )
                if isinstance(opened, Err):
                    return opened
                self._opened = opened.value
            return Ok(self._opened)

    def _reader(self) -> Result[Engine | None]:
        """The reading engine; None for a read-only store whose database or tables do not exist yet."""
        opened = self._open()
        if isinstance(opened, Err):
            return Ok(None) if self.read_only and opened.code is ErrorCode.NOT_FOUND else opened
        return Ok(opened.value.reader)

    def _writer(self) -> Result[Engine]:
        if self.read_only:
            raise RuntimeError(f"the {self.what} {self.url} was opened read-only")
        opened = self._open()
        if isinstance(opened, Err):
            return opened
        assert opened.value.writer is not None  # opened for writing
        return Ok(opened.value.writer)
