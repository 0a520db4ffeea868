"""Files a command writes for its user (``--output``, ``--events``): checked before the run, written whole.

Rules:
- Checked before any work: a folder, a missing folder, a path under a file or a folder that cannot be
  written is ``invalid_input`` naming the flag and the path, before the run starts, so a briefing is
  never computed only to be lost at the end.
- ``--output`` is written whole or not at all: a regular file is written to a hidden temporary file
  beside it (created by the check, so the check proves the very write that will happen), flushed to
  disk and renamed into place; a full disk leaves the old file, or none, never half a report. A device
  or a pipe (``/dev/stdout``) is written directly.
- ``--events`` appends as the run goes (``JsonlSink``); after a failed write it writes nothing more
  and remembers why, so the command says so once, after the report, and exits non-zero.
- A failed write is ``unavailable`` with the operating system's reason ("No space left on device").
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from findesk.core.events.jsonl import JsonlSink
from findesk.core.events.model import Event
from findesk.core.result import Err, ErrorCode, Ok, Result


def _folder_problem(path: Path, flag: str) -> Err | None:
    if path.is_dir():
        return Err(
            ErrorCode.INVALID_INPUT,
            f"{flag} {path} is a folder; give a file name, e.g. {path / ('report' + _suffix(flag))}",
        )
    return None


def _suffix(flag: str) -> str:
    return ".jsonl" if flag == "--events" else ".md"


class ReportFile:
    """Where ``--output`` goes; create with ``prepare`` before the run, then ``write`` or ``discard``."""

    def __init__(self, path: Path, temp: Path | None) -> None:
        self.path = path
        self._temp = temp  # None: written directly (a device or a pipe), or already written

    @classmethod
    def prepare(cls, path: Path, flag: str = "--output") -> Result[ReportFile]:
        problem = _folder_problem(path, flag)
        if problem is not None:
            return problem
        target = path.resolve() if path.is_symlink() else path  # replace the file, keep the link
        if target.exists() and not target.is_file():
            if not os.access(target, os.W_OK):
                return Err(ErrorCode.INVALID_INPUT, f"{flag} {path} cannot be written (permission denied)")
            return Ok(cls(target, None))
        folder = target.parent
        if not folder.is_dir():
            what = "is not a folder" if folder.exists() else "does not exist"
            return Err(ErrorCode.INVALID_INPUT, f"{flag} {path}: the folder {folder} {what}")
        temp = folder / f".{target.name}.{secrets.token_hex(4)}.tmp"
        try:
            # O_EXCL: never follow or clobber something planted under the temporary name
            os.close(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except OSError as exc:
            return Err(
                ErrorCode.INVALID_INPUT, f"{flag} {path}: cannot write in {folder} ({exc.strerror or exc})"
            )
        return Ok(cls(target, temp))

    def write(self, text: str) -> Result[Path]:
        data = text.encode("utf-8")
        try:
            if self._temp is None:
                with self.path.open("wb") as handle:
                    handle.write(data)
            else:
                with self._temp.open("wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())  # a full disk can surface only here
                if self.path.exists():
                    self._temp.chmod(stat.S_IMODE(self.path.stat().st_mode))
                self._temp.replace(self.path)
                self._temp = None
        except OSError as exc:
            self.discard()
            return Err(ErrorCode.UNAVAILABLE, f"could not write {self.path}: {exc.strerror or exc}")
        return Ok(self.path)

    def discard(self) -> None:
        """Remove the temporary file, if any (the run failed, or the write did)."""
        if self._temp is not None:
            self._temp.unlink(missing_ok=True)
            self._temp = None


class EventsFile(JsonlSink):
    """``--events``: a JSONL sink that remembers why it failed, for the command's exit code."""

    failure: str | None = None

    @classmethod
    def open(cls, path: Path, flag: str = "--events") -> Result[EventsFile]:
        problem = _folder_problem(path, flag)
        if problem is not None:
            return problem
        try:
            return Ok(cls(path))
        except OSError as exc:
            return Err(ErrorCode.INVALID_INPUT, f"{flag} {path} cannot be written ({exc.strerror or exc})")

    def write(self, event: Event) -> None:
        if self.failure is not None:
            return
        try:
            super().write(event)
        except OSError as exc:  # the run goes on; the audit log still records every event
            self.failure = (
                f"could not write the events to {self.path}: {exc.strerror or exc}; "
                f"`findesk runs export {event.run_id}` writes them from the audit log"
            )

    def close(self) -> None:
        try:
            super().close()
        except OSError as exc:  # the buffered tail could not be flushed either
            self.failure = self.failure or f"could not write the events to {self.path}: {exc.strerror or exc}"
