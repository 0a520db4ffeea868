"""Access to the recorded snapshot directory.

Rules: paths are always relative to the snapshot root in ``Source.ref``; files are read lazily,
once per process, under a lock (stores are called from worker threads); what a store parses from
them may be kept on disk between processes (``cached``, see ``store_cache`` for when it is reused).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

from findesk.data.models import Source
from findesk.data.vendors.snapshot import store_cache

T = TypeVar("T")


class SnapshotFiles:
    def __init__(self, root: Path, cache_dir: Path | None = None, index_dir: Path | None = None) -> None:
        self.root = root
        # where stores may keep what they parse (None: rebuild in every process)
        self.cache_dir = cache_dir
        # where the price and listing stores keep their column indexes of the big files (``.npy``
        # only, content-keyed and written atomically, so processes and servers may share one folder)
        self.index_dir = index_dir if index_dir is not None else cache_dir

    def path(self, rel: str) -> Path:
        return self.root / rel

    def exists(self, rel: str) -> bool:
        return (self.root / rel).exists()

    def source(self, rel: str, note: str | None = None) -> Source:
        return Source(vendor="snapshot", ref=rel, note=note)

    def read_json(self, rel: str) -> Any:
        with (self.root / rel).open("rb") as fh:
            return json.load(fh)

    def glob(self, pattern: str) -> list[str]:
        """Snapshot-relative paths of the files matching ``pattern``, sorted."""
        return sorted(p.relative_to(self.root).as_posix() for p in self.root.glob(pattern) if p.is_file())

    def cached(
        self,
        kind: str,
        rels: Sequence[str],
        build: Callable[[], T],
        *,
        variant: str = "",
        expect: type | None = None,
    ) -> T:
        """``build()``'s result, kept under ``cache_dir`` between processes and rebuilt whenever one
        of the files ``rels`` (every file ``build`` reads) or the parsing code changes."""
        folder = self.cache_dir / "stores" if self.cache_dir is not None else None
        sources = [self.path(rel).absolute() for rel in rels]
        return store_cache.load_or_build(folder, kind, sources, build, variant=variant, expect=expect)


class Lazy(Generic[T]):
    """A value computed on first use, at most once, thread-safely."""

    def __init__(self, factory: Callable[[], T]) -> None:
        self._factory = factory
        self._lock = threading.Lock()
        self._value: T | None = None
        self._done = False

    def get(self) -> T:
        if not self._done:
            with self._lock:
                if not self._done:
                    self._value = self._factory()
                    self._done = True
        return self._value  # type: ignore[return-value]
