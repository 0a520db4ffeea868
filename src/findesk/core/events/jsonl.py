"""JSON Lines sink: one ``event.to_json()`` per line, appended to a file.

Rules:
- Crash-tolerant: each line is written and flushed to the operating system before ``write``
  returns, so a killed process loses at most the line it was writing.
- A torn line never corrupts what follows: a sink that opens a file whose last line is unfinished
  ends that line first, and ``read_jsonl`` skips lines that are not complete JSON (the torn tails
  of crashes). A complete JSON line that is not an ``Event`` is a wrong file, not a crash, and
  raises ``ValueError``.
- Thread-safe: concurrent ``write`` calls never interleave within a line.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from pydantic import ValidationError

from findesk.core.events.model import Event


class JsonlSink:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._file = self.path.open("a", encoding="utf-8")
        if self._ends_mid_line():
            self._file.write("\n")
            self._file.flush()

    def _ends_mid_line(self) -> bool:
        with self.path.open("rb") as existing:
            existing.seek(0, 2)
            if existing.tell() == 0:
                return False
            existing.seek(-1, 2)
            return existing.read(1) != b"\n"

    def write(self, event: Event) -> None:
        line = event.to_json() + "\n"
        with self._lock:
            if self._file.closed:
                raise RuntimeError(f"JSONL sink {self.path} is closed")
            self._file.write(line)
            self._file.flush()

    def close(self) -> None:
        with self._lock:
            if not self._file.closed:
                self._file.close()


def read_jsonl(path: Path | str) -> list[Event]:
    """The events of a JSON Lines file in file order; torn lines (crash tails) are skipped."""
    events: list[Event] = []
    with Path(path).open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            text = line.strip()
            if not text:
                continue
            try:
                json.loads(text)
            except json.JSONDecodeError:
                continue  # a line cut short by a crash
            try:
                events.append(Event.from_json(text))
            except ValidationError as exc:
                raise ValueError(f"{path}:{number} is JSON but not a findesk event: {exc}") from exc
    return events
