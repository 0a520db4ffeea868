"""Events (one type, nine kinds), the tracer that emits them, and their sinks."""

from findesk.core.events.model import EVENT_TYPES, Event, Payload
from findesk.core.events.trace import CallbackSink, EventBus, MemorySink, Sink, Tracer, new_run_id

__all__ = [
    "EVENT_TYPES",
    "CallbackSink",
    "Event",
    "EventBus",
    "MemorySink",
    "Payload",
    "Sink",
    "Tracer",
    "new_run_id",
]
