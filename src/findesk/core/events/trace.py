"""Emitting events: a ``Tracer`` stamps payloads into ``Event``s and hands them to the sinks.

Rules:
- A run has one id and one sequence counter; every tracer derived with ``child`` shares them, so
  events of nested agents interleave in one ordered stream.
- Emitting never raises into the caller: a sink that fails is dropped from the bus and the failure
  is reported once on stderr, because an observer must never break the work it observes.
- Sinks are synchronous and cheap (append, write a line, enqueue); slow sinks such as the audit log
  do their I/O on their own thread.
"""

from __future__ import annotations

import itertools
import secrets
import sys
import time
from collections.abc import Callable, Iterable
from typing import Protocol

from findesk.core.events.model import Event, Payload, utc_now


class Sink(Protocol):
    def write(self, event: Event) -> None: ...

    def close(self) -> None: ...


def new_run_id() -> str:
    """Sortable by start time (milliseconds, hex) and unique (random suffix)."""
    return f"{int(time.time() * 1000):011x}{secrets.token_hex(3)}"


class EventBus:
    def __init__(self, sinks: Iterable[Sink] = ()) -> None:
        self.sinks: list[Sink] = list(sinks)

    def add(self, sink: Sink) -> None:
        self.sinks.append(sink)

    def emit(self, event: Event) -> None:
        for sink in list(self.sinks):
            try:
                sink.write(event)
            except Exception as exc:
                self.sinks.remove(sink)
                print(
                    f"findesk: event sink {type(sink).__name__} failed and was detached: {exc}",
                    file=sys.stderr,
                )

    def close(self) -> None:
        for sink in self.sinks:
            try:
                sink.close()
            except Exception as exc:
                print(f"findesk: closing event sink {type(sink).__name__} failed: {exc}", file=sys.stderr)


class Tracer:
    def __init__(
        self,
        bus: EventBus,
        run_id: str | None = None,
        *,
        parent_id: str | None = None,
        agent: str | None = None,
        _counter: itertools.count[int] | None = None,
    ) -> None:
        self.bus = bus
        self.run_id = run_id or new_run_id()
        self.parent_id = parent_id
        self.agent = agent
        self._counter = _counter if _counter is not None else itertools.count(1)

    def child(self, parent_id: str | None, agent: str | None = None) -> Tracer:
        return Tracer(
            self.bus, self.run_id, parent_id=parent_id, agent=agent or self.agent, _counter=self._counter
        )

    def emit(self, data: Payload, *, parent_id: str | None = None) -> Event:
        seq = next(self._counter)
        event = Event(
            id=f"{self.run_id}-{seq}",
            run_id=self.run_id,
            seq=seq,
            ts=utc_now(),
            parent_id=parent_id if parent_id is not None else self.parent_id,
            agent=self.agent,
            data=data,
        )
        self.bus.emit(event)
        return event


class MemorySink:
    """Keeps every event in a list (tests, the API's per-request stream, run summaries)."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def write(self, event: Event) -> None:
        self.events.append(event)

    def close(self) -> None:
        pass

    def of_type(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.data.type == kind]


def takes_child_runs(sink: Sink) -> bool:
    """Whether ``sink`` also receives the events of the runs a run starts (a pipeline's scan and desk
    runs): the audit log records them, a forwarder hands them on to the process that records them, a
    stream counts their model cost against its key; a view of one run (the terminal, the stream's
    queue of events) is not given them. A sink says so with ``child_runs = True``."""
    return bool(getattr(sink, "child_runs", False))


class CallbackSink:
    def __init__(self, callback: Callable[[Event], None], *, child_runs: bool = False) -> None:
        self._callback = callback
        self.child_runs = child_runs  # a forwarder hands on child runs' events too (``takes_child_runs``)

    def write(self, event: Event) -> None:
        self._callback(event)

    def close(self) -> None:
        pass
