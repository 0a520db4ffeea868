"""Access to the recorded snapshot directory.

Rules: paths are always relative to the snapshot root in ``Source.ref``; files are read lazily,
once per process, under a lock (stores are called from worker threads).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TypeVar

from findesk.data.models import Source

T = TypeVar("T")


class SnapshotFiles:
    def __init__(self, root: Path, cache_dir: Path | None = None) -> None:
        self.root = root
        # where stores may keep derived indexes of big files (None: rebuild in every process)
        self.cache_dir = cache_dir

    def path(self, rel: str) -> Path:
        return self.root / rel

    def exists(self, rel: str) -> bool:
        return (self.root / rel).exists()

    def source(self, rel: str, note: str | None = None) -> Source:
        return Source(vendor="snapshot", ref=rel, note=note)

    def read_json(self, rel: str) -> Any:
        with (self.root / rel).open("rb") as fh:
            return json.load(fh)


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
