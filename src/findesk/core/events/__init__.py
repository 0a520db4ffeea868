"""Events (one type, ten kinds), the tracer that emits them, and their sinks."""

from findesk.core.events.model import EVENT_TYPES, Event, Payload, event_registry
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
    "event_registry",
    "new_run_id",
]
