"""Signed, short-lived links to a run's HTML report: what lets the page open ``report.html`` in a tab of
its own, a plain navigation that cannot send the API key, under the report's own Content-Security-Policy.

Rules:
- A ticket is ``<expiry>.<signature>``: the expiry in unix seconds, and HMAC-SHA256 over
  ``<run id>|<expiry>`` with the server's secret, base64url without padding. It opens exactly one run (its
  full id, never a prefix) until ``TICKET_TTL_S`` after it was issued, and nothing else: no other route
  reads it.
- ``check`` says only yes or no: a ticket for another run, expired, tampered or malformed are one answer,
  so a refusal never tells which check failed. Signatures are compared with ``hmac.compare_digest``.
- The secret is shared by every server process on the same state directory (several ``findesk serve``
  behind a load balancer): 32 random bytes in ``<state_dir>/report-link.key``, mode 0600, created on first
  use by whichever process comes first (written to a private temporary file, then hard-linked into place,
  so a reader never sees half a key and a key another process made is never replaced), and read once per
  app (``ReportLinks``). A key file that cannot be made or read is ``unavailable``, never a fresh key of
  this process's own (the other processes would refuse its links).
- A ticket is a credential for a minute: it never goes into the audit log, the key store, a metric or a
  message; only uvicorn's own access log line (path and query) shows it, which ``findesk serve`` prints
  from ``--log-level info`` on (its default, ``warning``, prints none).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import os
import re
import secrets
import time
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field

from findesk.core.result import Err, ErrorCode, Ok, Result

KEY_FILE = "report-link.key"
TICKET_TTL_S = 60
_KEY_BYTES = 32
_TICKET = re.compile(r"([0-9]{1,12})\.([A-Za-z0-9_-]{43})")  # a SHA-256 digest is 43 base64url characters


class ReportLink(BaseModel):
    """The answer of ``POST /v1/runs/{run_id}/report-link``."""

    url: str = Field(description="the report's address with its ticket: open it (GET) without a key")
    expires_at: datetime = Field(description="when the ticket stops opening the report (UTC)")


def now_s() -> float:
    """The clock tickets are issued and checked by (tests move it)."""
    return time.time()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _signature(key: bytes, run_id: str, expiry: int) -> str:
    return _b64(hmac.new(key, f"{run_id}|{expiry}".encode(), hashlib.sha256).digest())


def issue(key: bytes, run_id: str) -> tuple[str, datetime]:
    """A ticket for ``run_id`` (its full id) and the moment it expires."""
    expiry = int(now_s()) + TICKET_TTL_S
    return f"{expiry}.{_signature(key, run_id, expiry)}", datetime.fromtimestamp(expiry, UTC)


def check(key: bytes, run_id: str, ticket: str) -> bool:
    """Whether ``ticket`` opens ``run_id`` now (see the module's rules: one answer for every failure)."""
    found = _TICKET.fullmatch(ticket)
    if found is None:
        return False
    expiry = int(found.group(1))
    # the signature is compared first and always, so an expired ticket costs the same as a forged one
    signed = hmac.compare_digest(found.group(2), _signature(key, run_id, expiry))
    return signed and now_s() <= expiry


def _read_key(path: Path) -> Result[bytes]:
    try:
        raw = path.read_bytes().strip()
    except FileNotFoundError:
        return Err(ErrorCode.NOT_FOUND, f"no {KEY_FILE}")
    except OSError as exc:
        return Err(ErrorCode.UNAVAILABLE, f"cannot read the report-link key {path}: {exc.strerror or exc}")
    try:
        key = base64.urlsafe_b64decode(raw + b"=" * (-len(raw) % 4))
    except ValueError:  # binascii.Error: not base64 at all
        key = b""
    if len(key) != _KEY_BYTES:
        # never replaced here: another process may be using it (delete it, and restart every server)
        return Err(
            ErrorCode.UNAVAILABLE, f"the report-link key {path} is damaged: delete it to make a new one"
        )
    return Ok(key)


def load_key(state_dir: Path) -> Result[bytes]:
    """The state directory's report-link secret, made on first use (see the module's rules)."""
    path = state_dir / KEY_FILE
    found = _read_key(path)
    if not (isinstance(found, Err) and found.code is ErrorCode.NOT_FOUND):
        return found
    temp = state_dir / f".{KEY_FILE}.{secrets.token_hex(4)}.tmp"
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        # O_EXCL: never write through something planted under the temporary name; 0600 from the start
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as handle:
                os.fchmod(handle.fileno(), 0o600)  # whatever the umask
                handle.write(_b64(secrets.token_bytes(_KEY_BYTES)).encode("ascii") + b"\n")
                handle.flush()
                os.fsync(handle.fileno())
            with contextlib.suppress(FileExistsError):  # another process made the key first: theirs is it
                os.link(temp, path)
        finally:
            temp.unlink(missing_ok=True)
    except OSError as exc:
        return Err(ErrorCode.UNAVAILABLE, f"cannot make the report-link key in {state_dir}: {exc}")
    return _read_key(path)


class ReportLinks:
    """One app's report-link secret, read from the state directory on first use and then kept."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self._key: bytes | None = None

    async def key(self) -> Result[bytes]:
        if self._key is None:
            # two first requests at once both read (or one makes) the same file: no lock needed
            loaded = await asyncio.to_thread(load_key, self.state_dir)
            if isinstance(loaded, Err):
                return loaded
            self._key = loaded.value
        return Ok(self._key)
