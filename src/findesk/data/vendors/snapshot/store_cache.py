"""Parsed snapshot stores kept on disk, so a new process loads them instead of re-parsing the files.

Rules this module keeps:
- Derived data only. An entry's key is: the absolute path, size, modification time (ns) and inode
  of every source file it was built from (a missing file counts too), the entry's kind and variant
  (a ticker, a concept), ``CODE_VERSION``, and a fingerprint of the code that builds it (size and
  modification time of every module of the snapshot vendor, the data formats and the data models,
  plus the Python and pydantic versions; an entry holding numpy arrays names the numpy version in
  its variant). Any change gives another key, so a stale entry is
  never read: it is rebuilt from the source files. Bump ``CODE_VERSION`` when a store's cached shape
  changes without a source edit the fingerprint would see (e.g. a dependency upgrade of the same size).
- Never a wrong answer and never an error: an entry that is missing, truncated, damaged or of an
  unexpected type is ignored and rebuilt; a cache folder that cannot be written means "no cache".
- Atomic: an entry is written to a temporary file in its folder and renamed into place
  (``os.replace``), so a reader sees a whole entry or none; two processes building at once both
  succeed and the last rename wins (both wrote the same bytes). When an entry is written, older
  entries of its kind and variant, and entries of its kind built by other code, are removed, so
  edits of the snapshot or the code do not pile up files.
- Entries are pickles written by this user's findesk into this user's cache folder (the settings'
  ``cache_dir``); they are trusted like the installed code, never taken from elsewhere.
- ``Blobs`` keeps a mapping's values pickled one by one, so a query for one ticker unpickles that
  ticker's rows, not the whole table.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
import struct
import sys
import tempfile
import threading
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

T = TypeVar("T")

CODE_VERSION = "1"
_PROTOCOL = pickle.HIGHEST_PROTOCOL
_SUFFIX = ".pickle"
# every entry starts with a magic tag, the CRC-32 and the length of the pickle that follows
_MAGIC = b"FDSTORE1"
_HEADER = struct.Struct("<8sIQ")


def _package_root() -> Path:
    return Path(__file__).resolve().parents[3]  # .../findesk/data/vendors/snapshot -> .../findesk


# The modules whose code decides what a store builds: the stores themselves, the parsers they call,
# the models they fill, and the few core helpers those use.
_CODE_PATHS = (
    "data/vendors/snapshot",
    "data/formats",
    "data/models",
    "data/symbols.py",
    "core/dates.py",
    "core/result.py",
)


@functools.cache
def code_fingerprint() -> str | None:
    """A digest of the builder code and library versions, or None when it cannot be read (then
    nothing is cached: without it, an edited parser could be served stale rows)."""
    import pydantic  # already loaded by the data models: costs nothing here

    parts = [CODE_VERSION, sys.version, pydantic.VERSION]
    root = _package_root()
    try:
        for rel in _CODE_PATHS:
            path = root / rel
            found = sorted(path.glob("*.py")) if path.is_dir() else [path]
            for module in found:
                stat = module.stat()
                parts.append(f"{module.relative_to(root)}|{stat.st_size}|{stat.st_mtime_ns}")
    except OSError:
        return None
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()


def _source_ids(sources: Sequence[Path]) -> list[str]:
    out = []
    for source in sources:
        try:
            stat = source.stat()
        except OSError:
            out.append(f"{source}|missing")
            continue
        out.append(f"{source}|{stat.st_size}|{stat.st_mtime_ns}|{stat.st_ino}")
    return out


def _slug(text: str) -> str:
    """A file-name-safe, readable prefix for a variant (the digest carries the exact value)."""
    cleaned = "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:40]
    return cleaned or "all"


def entry_path(folder: Path, kind: str, variant: str, sources: Sequence[Path]) -> Path | None:
    """Where the entry for these exact sources and this code lives (None: caching is off)."""
    code = code_fingerprint()
    if code is None:
        return None
    ident = "\n".join([code, kind, variant, *_source_ids(sources)])
    digest = hashlib.sha1(ident.encode()).hexdigest()
    # <variant>-<code>-<digest>: the code part lets a write drop every entry built by other code
    return folder / _slug(kind) / f"{_slug(variant)}-{code[:12]}-{digest}{_SUFFIX}"


def _load(path: Path, expect: type | None) -> tuple[bool, Any]:
    try:
        data = path.read_bytes()
    except OSError:
        return False, None
    head, payload = data[: _HEADER.size], memoryview(data)[_HEADER.size :]
    try:
        magic, crc, size = _HEADER.unpack(head)
        if magic != _MAGIC or size != len(payload) or zlib.crc32(payload) != crc:
            return False, None  # truncated or damaged: checked before unpickling, so no lazy part
            # (``Blobs``) can fail later in a query
        value = pickle.loads(payload)
    except Exception:  # any other damage (a renamed class, bad bytes) means rebuild
        return False, None
    if expect is not None and not isinstance(value, expect):
        return False, None
    return True, value


def _save(path: Path, value: Any) -> None:
    try:
        payload = pickle.dumps(value, protocol=_PROTOCOL)
    except Exception:  # a value pickle cannot write is simply not cached
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".part")
    except OSError:
        return  # no usable cache folder: the caller keeps its in-memory copy
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(_HEADER.pack(_MAGIC, zlib.crc32(payload), len(payload)))
            fh.write(payload)
        Path(tmp).replace(path)  # atomic: readers see the old entry or the whole new one
    except OSError:  # full disk, folder removed meanwhile: no cache this time
        _unlink(Path(tmp))
        return
    # Dead weight now: older entries of this kind and variant (their sources or code changed), and
    # any entry of this kind built by other code (it can never be read again by this code).
    variant, code, _ = path.name.rsplit("-", 2)
    with contextlib.suppress(OSError):
        for other in path.parent.iterdir():
            if other.suffix != _SUFFIX or other == path:
                continue
            parts = other.name.rsplit("-", 2)
            if len(parts) != 3 or parts[0] == variant or parts[1] != code:
                _unlink(other)


def _unlink(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


def load_or_build(
    folder: Path | None,
    kind: str,
    sources: Sequence[Path],
    build: Callable[[], T],
    *,
    variant: str = "",
    expect: type | None = None,
) -> T:
    """``build()``'s result, read from ``folder`` when an entry for these exact sources exists.

    ``sources`` are every file ``build`` reads (a file it looks for but does not find counts too);
    ``variant`` names what else ``build`` depends on (a ticker, a concept); ``expect`` is the type
    the entry must have. Without a folder the value is built every time.
    """
    path = entry_path(folder, kind, variant, sources) if folder is not None else None
    if path is None:
        return build()
    found, value = _load(path, expect)
    if found:
        return value  # type: ignore[no-any-return]
    made = build()
    _save(path, made)
    return made


class Blobs(Generic[T]):
    """A read-only mapping from key to value whose values are pickled one by one when saved and
    unpickled one by one on first use. Thread-safe; insertion order is kept."""

    def __init__(self, values: Mapping[str, T]) -> None:
        self._values: dict[str, T] = dict(values)
        self._blobs: dict[str, bytes] = {}
        self._keys: tuple[str, ...] = tuple(values)
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        blobs = dict(self._blobs)
        for key in self._keys:
            if key not in blobs:
                blobs[key] = pickle.dumps(self._values[key], protocol=_PROTOCOL)
        return {"keys": self._keys, "blobs": blobs}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._keys = tuple(state["keys"])
        self._blobs = dict(state["blobs"])
        self._values = {}
        self._lock = threading.Lock()
        if set(self._keys) != set(self._blobs):
            raise ValueError("damaged Blobs entry")  # the loader treats this as "rebuild"

    def __contains__(self, key: object) -> bool:
        return key in self._values or key in self._blobs

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def get(self, key: str) -> T | None:
        value = self._values.get(key)
        if value is not None or key not in self._blobs:
            return value
        with self._lock:
            if key not in self._values:
                self._values[key] = pickle.loads(self._blobs[key])
            return self._values[key]

    def items(self) -> Iterator[tuple[str, T]]:
        for key in self._keys:
            value = self.get(key)
            yield key, value  # type: ignore[misc]  # every listed key has a value
