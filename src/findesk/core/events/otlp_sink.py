"""The OpenTelemetry side of the run export (loaded by ``core.events.otel`` only when it is on).

Rules:
- A trace's ids are derived from its run: the trace id is the first 16 bytes of SHA-256 of the run id,
  a span id the first 8 of the run id and the span's event id. A run's trace is found from its id, and a
  resumed run's spans join the trace its first attempt began, under the same parents.
- A run is never broken or slowed by its export: a sink only turns events into spans (``spans``) and
  hands the ended ones to a batch processor (bounded queue, its own thread, an export every half
  second). A failed export is one warning per outage on stderr, and the exporter's own log lines for it
  are silenced while our export runs; a sink that raises is detached by the event bus like any other.
- No global OpenTelemetry state: each sink owns its ``TracerProvider`` (never the global one, never the
  caller's current span as a parent), over one export pipeline per process and configuration (exporter
  + batch processor). At process exit the pipelines send what is left, waiting ``flush_timeout_s`` at
  most, and not at all while the collector is down.
"""

from __future__ import annotations

import atexit
import logging
import secrets
import sys
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.sdk.trace.sampling import ALWAYS_ON
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from findesk.core.config import TelemetrySettings, mask_url
from findesk.core.events.model import Event, utc_now
from findesk.core.events.spans import (
    ERROR_TYPE,
    OPERATION,
    AttrValue,
    SpanBuilder,
    SpanClose,
    SpanNote,
    SpanOp,
    SpanOpen,
    SpanSet,
    ns,
    span_id_of,
    trace_id_of,
)

SCHEDULE_DELAY_MS = 500  # how soon an ended span leaves the process
MAX_QUEUE = 4096  # spans waiting for export; beyond it the oldest are dropped, the run never waits
# where the OTLP/HTTP exporter logs a failed export (replaced by one warning of ours per outage)
_EXPORTER_LOGGERS = (
    "opentelemetry.exporter.otlp.proto.http.trace_exporter",
    "opentelemetry.exporter.otlp.common.http",
)


class _RunIds(IdGenerator):
    """The ids of one run's spans: its trace id, and the span id the sink sets before each span."""

    def __init__(self, trace_id: int) -> None:
        self.trace_id = trace_id
        self.next_span_id: int | None = None

    def generate_trace_id(self) -> int:
        return self.trace_id

    def generate_span_id(self) -> int:
        chosen, self.next_span_id = self.next_span_id, None
        return chosen if chosen is not None else secrets.randbits(64) or 1


class OtlpSink:
    """One run's spans: its events in, its spans out to the process's export pipeline."""

    child_runs = False  # a child run is a trace of its own, exported by the process that opens it

    def __init__(
        self,
        pipeline: Pipeline,
        run_id: str,
        *,
        workflow: str,
        attributes: Mapping[str, AttrValue] | None = None,
    ) -> None:
        self._run_id = run_id
        self._ids = _RunIds(trace_id_of(run_id))
        self._provider = TracerProvider(
            sampler=ALWAYS_ON, resource=pipeline.resource, id_generator=self._ids, shutdown_on_exit=False
        )
        self._provider.add_span_processor(pipeline.processor)
        self._tracer = self._provider.get_tracer("findesk")
        self._builder = SpanBuilder(run_id, workflow, dict(attributes or {}))
        self._spans: dict[str, Span] = {}
        self._starts: dict[str, int] = {}
        self._lock = threading.Lock()  # one run's events may arrive on more than one thread

    def write(self, event: Event) -> None:
        with self._lock:
            for op in self._builder.feed(event):
                self._apply(op)

    def prime(self, events: Iterable[Event]) -> None:
        """A resumed run's earlier events: the spans still open after them open again (same ids, same
        start times); those that ended were exported by the attempt that ran them."""
        with self._lock:
            ops = [op for event in events for op in self._builder.feed(event)]
            ended = {op.key for op in ops if isinstance(op, SpanClose)}
            for op in ops:
                if isinstance(op, SpanOpen | SpanSet) and op.key not in ended:
                    self._apply(op)

    def close(self, at: datetime | None = None) -> None:
        """End whatever is still open (a run that stopped without its closing event), at ``at``."""
        with self._lock:
            if not self._builder.finished:
                for op in self._builder.abandon(ns(at or utc_now())):
                    self._apply(op)

    def _apply(self, op: SpanOp) -> None:
        if isinstance(op, SpanOpen):
            parent = self._spans.get(op.parent) if op.parent is not None else None
            # an explicit empty context for the root: never whatever span the caller has current
            context = trace.set_span_in_context(parent, Context()) if parent is not None else Context()
            kind = SpanKind.CLIENT if op.attributes.get(OPERATION) == "chat" else SpanKind.INTERNAL
            self._ids.next_span_id = span_id_of(self._run_id, op.key)  # under the lock: this span's id
            self._spans[op.key] = self._tracer.start_span(
                op.name, context=context, kind=kind, attributes=op.attributes, start_time=op.start_ns
            )
            self._starts[op.key] = op.start_ns
            return
        span = self._spans.get(op.key)
        if span is None:
            return
        if isinstance(op, SpanSet):
            span.set_attributes(op.attributes)
        elif isinstance(op, SpanNote):
            span.add_event(op.name, op.attributes, timestamp=op.ts_ns)
        else:
            span.set_attributes(op.attributes)
            if op.error is not None:
                span.set_attribute(ERROR_TYPE, op.error)
                span.set_status(Status(StatusCode.ERROR, op.message or op.error))
            # clocks: an llm_call's start is its latency before it; never let a span end before it began
            span.end(end_time=max(op.end_ns, self._starts.pop(op.key)))
            del self._spans[op.key]


def export_recorded(events: Sequence[Event], config: TelemetrySettings, timeout_s: float) -> bool:
    """``otel.export_events``: a recorded run as one trace, sent before this returns (``timeout_s``)."""
    pipe = pipeline(config)
    sink = OtlpSink(pipe, events[0].run_id, workflow=events[0].agent or "workflow")
    for event in events:
        sink.write(event)
    sink.close(at=max(e.ts for e in events))
    return flush_all(timeout_s) and not pipe.exporter.down


# -- the process's export pipelines ---------------------------------------------------------------


class QuietExporter(SpanExporter):
    """The OTLP exporter, reporting a collector it cannot reach once per outage (see the rules)."""

    def __init__(self, inner: SpanExporter, endpoint: str) -> None:
        self.inner = inner
        self.endpoint = mask_url(endpoint)
        self.down = False

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        _Quieting.active.on = True
        try:
            result = self.inner.export(spans)
        except Exception:  # an exporter's bug must not end the export thread
            result = SpanExportResult.FAILURE
        finally:
            _Quieting.active.on = False
        if result is SpanExportResult.SUCCESS:
            self.down = False
        elif not self.down:
            self.down = True
            print(
                f"findesk: traces could not be sent to {self.endpoint}; runs go on, their traces are "
                "dropped until it answers",
                file=sys.stderr,
            )
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)


class _Quieting(logging.Filter):
    """Drops the exporter's log records while our export runs on this thread: it reports them itself."""

    active = threading.local()

    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(self.active, "on", False)


_QUIETING = _Quieting()


@dataclass(frozen=True)
class Pipeline:
    processor: BatchSpanProcessor
    exporter: QuietExporter
    resource: Resource
    flush_timeout_s: float


_LOCK = threading.Lock()
_PIPELINES: dict[tuple[object, ...], Pipeline] = {}


def pipeline(config: TelemetrySettings) -> Pipeline:
    """This process's pipeline for ``config`` (made on first use)."""
    endpoint = config.otlp_endpoint or ""
    headers = {k: v.get_secret_value() for k, v in config.headers.items()}
    key = (endpoint, tuple(sorted(headers.items())), config.service_name, config.timeout_s)
    with _LOCK:
        found = _PIPELINES.get(key)
        if found is not None:
            return found
        for name in _EXPORTER_LOGGERS:
            logger = logging.getLogger(name)
            if _QUIETING not in logger.filters:
                logger.addFilter(_QUIETING)
        inner = OTLPSpanExporter(endpoint=endpoint, headers=headers, timeout=config.timeout_s)
        exporter = QuietExporter(inner, endpoint)
        made = Pipeline(
            BatchSpanProcessor(exporter, max_queue_size=MAX_QUEUE, schedule_delay_millis=SCHEDULE_DELAY_MS),
            exporter,
            Resource.create({"service.name": config.service_name}),
            config.flush_timeout_s,
        )
        if not _PIPELINES:
            atexit.register(_close_all)
        _PIPELINES[key] = made
        return made


def flush_all(timeout_s: float) -> bool:
    """``otel.flush``: every pipeline sends what it holds, ``timeout_s`` at most."""
    with _LOCK:
        pipelines = list(_PIPELINES.values())
    return _flush(pipelines, timeout_s)


def _flush(pipelines: Sequence[Pipeline], timeout_s: float) -> bool:
    # a flush takes no deadline of its own, so each runs on a thread that is let go when time is up
    threads = [threading.Thread(target=p.processor.force_flush, daemon=True) for p in pipelines]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout_s
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    return not any(t.is_alive() for t in threads)


def _close_all() -> None:
    """At exit: send what is left, ``flush_timeout_s`` at most and nothing while the collector is down;
    then stop the exporters, which ends any retry still waiting (the export threads are daemons)."""
    with _LOCK:
        pipelines = list(_PIPELINES.values())
        _PIPELINES.clear()
    live = [p for p in pipelines if not p.exporter.down]
    if live:
        _flush(live, max(p.flush_timeout_s for p in live))
    for pipe in pipelines:
        pipe.exporter.shutdown()
