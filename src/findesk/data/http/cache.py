"""The on-disk HTTP cache: one SQLite table, freshness chosen by us per source class.

Why our own ~150 lines instead of hishel 2.0: we need (1) a freshness per source class that overrides
the server's cache headers (Yahoo sends ``no-cache`` but quotes are good for 60 s; filings forever),
(2) stale copies kept after they expire so they can be served when the source is down, and (3) an
injectable clock so expiry is tested without sleeping. hishel's ``ttl`` *evicts* an entry when it
expires (no stale-on-error once the TTL has passed) and its storages read ``time.time()`` directly.
A primary-key table in SQLite gives all three and stays easy to read.

Rules this module keeps:
- Keys are SHA-256 hashes of method, URL (query parameters sorted) and the caller's request headers
  other than User-Agent, so API keys in a query string or header never reach the file in clear text.
- The stored URL has secret-looking query values redacted (``redact_url``); ``Set-Cookie`` and
  transport headers that no longer describe the decoded body are not stored.
- An entry is never deleted for being old: age is judged on read against the class's freshness, and a
  stale entry is still returned (the client decides whether to serve it).
- Safe across tasks and processes: WAL journal, a busy timeout, ``INSERT OR REPLACE`` (last writer
  wins), and each call runs in a worker thread so the event loop never waits on the disk.
- Never raises: a cache that cannot be opened or read behaves as empty and logs a warning.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import sqlite3
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx

from findesk.core.config import SECRET_NAME

log = logging.getLogger(__name__)

CACHE_FILE = "http-cache.sqlite3"
# api_key, apikey, x-api-key, key, access_token, client_secret, sig … but not "keyword" or "monkey"
_SECRET_PARAM = SECRET_NAME  # the same names ``config show`` masks
_UNSTORED_HEADERS = frozenset(
    {"set-cookie", "content-encoding", "content-length", "transfer-encoding", "connection"}
)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    stored_at REAL NOT NULL,
    status INTEGER NOT NULL,
    url TEXT NOT NULL,
    headers TEXT NOT NULL,
    content BLOB NOT NULL
)
"""


@dataclass(frozen=True, slots=True)
class CachedResponse:
    stored_at: float
    status: int
    url: str
    headers: dict[str, str]
    content: bytes


def cache_key(method: str, url: httpx.URL, headers: Mapping[str, str] | None = None) -> str:
    """A hash of what determines the response; parameter and header order do not matter."""
    params = sorted(url.params.multi_items())
    base = url.copy_with(query=None, fragment=None)
    varying = sorted((k.lower(), v) for k, v in (headers or {}).items() if k.lower() != "user-agent")
    material = json.dumps([method.upper(), str(base), params, varying], separators=(",", ":"))
    return hashlib.sha256(material.encode()).hexdigest()


def redact_url(url: httpx.URL | str) -> str:
    """The URL with the values of secret-looking query parameters (api_key, token …) replaced."""
    parsed = httpx.URL(url)
    items = parsed.params.multi_items()
    if not any(_SECRET_PARAM.search(name) for name, _ in items):
        return str(parsed)
    redacted: list[tuple[str, str | int | float | bool | None]] = [
        (name, "REDACTED" if _SECRET_PARAM.search(name) else value) for name, value in items
    ]
    return str(parsed.copy_with(params=httpx.QueryParams(redacted)))


class HttpCache:
    def __init__(self, directory: Path) -> None:
        self.path = directory / CACHE_FILE
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._broken = False

    def _connect(self) -> sqlite3.Connection | None:
        if self._conn is None and not self._broken:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self.path, timeout=10.0, check_same_thread=False)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute(_SCHEMA)
                conn.commit()
                self._conn = conn
            except (OSError, sqlite3.Error) as exc:
                self._broken = True
                log.warning("HTTP cache at %s is unusable, continuing without it: %s", self.path, exc)
        return self._conn

    def _get_sync(self, key: str) -> CachedResponse | None:
        with self._lock:
            conn = self._connect()
            if conn is None:
                return None
            try:
                row = conn.execute(
                    "SELECT stored_at, status, url, headers, content FROM responses WHERE key = ?", (key,)
                ).fetchone()
            except sqlite3.Error as exc:
                log.warning("HTTP cache read failed (%s); treating as a miss", exc)
                return None
        if row is None:
            return None
        stored_at, status, url, headers, content = row
        return CachedResponse(float(stored_at), int(status), str(url), json.loads(headers), bytes(content))

    def _put_sync(self, key: str, entry: CachedResponse) -> None:
        headers = {k: v for k, v in entry.headers.items() if k.lower() not in _UNSTORED_HEADERS}
        self._write(
            "INSERT OR REPLACE INTO responses (key, stored_at, status, url, headers, content)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (key, entry.stored_at, entry.status, redact_url(entry.url), json.dumps(headers), entry.content),
            "HTTP cache write failed (%s); the response is not cached",
        )

    def _delete_sync(self, key: str) -> None:
        self._write("DELETE FROM responses WHERE key = ?", (key,), "HTTP cache delete failed: %s")

    def _write(self, sql: str, values: tuple[object, ...], failure: str) -> None:
        """One statement in its own transaction; a failure is logged (``failure`` % the error), not raised."""
        with self._lock:
            conn = self._connect()
            if conn is None:
                return
            try:
                with conn:
                    conn.execute(sql, values)
            except sqlite3.Error as exc:
                log.warning(failure, exc)

    async def get(self, key: str) -> CachedResponse | None:
        return await asyncio.to_thread(self._get_sync, key)

    async def put(self, key: str, entry: CachedResponse) -> None:
        await asyncio.to_thread(self._put_sync, key, entry)

    async def delete(self, key: str) -> None:
        await asyncio.to_thread(self._delete_sync, key)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
