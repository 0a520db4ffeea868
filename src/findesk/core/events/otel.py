"""Runs exported as OpenTelemetry traces over OTLP/HTTP, for Langfuse, Jaeger, Grafana Tempo or a collector.

Rules:
- Off unless ``[telemetry] otlp_endpoint`` is set. This module is the only way in and imports no
  OpenTelemetry: ``core.events.otlp_sink`` (which does) is loaded only when the export is on. Without the
  ``findesk[otel]`` extra an enabled export costs one warning line per process, and the run goes on.
- The process that opens a run exports it: the runner gives every run it opens these sinks (the CLI, the
  Python API, a pipeline's child runs, a resumed run), the API server every run it accepts (the opening
  event is emitted there, and a worker's events come back to it); a worker continuing a run it was
  handed does not export it a second time.
- One trace per run, drawn by ``core.events.spans``, sent by ``core.events.otlp_sink`` (see its rules: in
  the background, bounded, a down collector is one warning, no global OpenTelemetry state).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Mapping, Sequence

from findesk.core.config import Settings
from findesk.core.events.model import Event
from findesk.core.events.spans import AttrValue
from findesk.core.events.trace import Sink

_WARNED = threading.Event()


def enabled(settings: Settings) -> bool:
    return bool(settings.telemetry.otlp_endpoint)


def telemetry_sinks(
    settings: Settings,
    run_id: str,
    *,
    workflow: str,
    attributes: Mapping[str, AttrValue] | None = None,
    earlier: Sequence[Event] = (),
) -> list[Sink]:
    """The sinks that export run ``run_id``: none unless the export is on and installed. ``workflow``
    names the root span of a run refused before its opening event; ``attributes`` go on the root span
    (the data mode, the as-of date); ``earlier``: a resumed run's events so far."""
    if not enabled(settings):
        return []
    try:
        from findesk.core.events.otlp_sink import OtlpSink, pipeline
    except ImportError as exc:
        _missing(exc)
        return []
    try:
        sink = OtlpSink(pipeline(settings.telemetry), run_id, workflow=workflow, attributes=attributes)
        sink.prime(earlier)
        return [sink]
    except Exception as exc:  # a tracing setup that fails costs the trace, never the run
        _warn_once(f"runs are not traced: {type(exc).__name__}: {exc}")
        return []


def export_events(events: Sequence[Event], settings: Settings, *, timeout_s: float = 10.0) -> bool:
    """Export a recorded run (its events, in order) as one trace and wait until it is sent, ``timeout_s``
    at most; whether it was. A run cut short is closed at its last event."""
    if not events or not enabled(settings):
        return False
    try:
        from findesk.core.events.otlp_sink import export_recorded
    except ImportError as exc:
        _missing(exc)
        return False
    return export_recorded(events, settings.telemetry, timeout_s)


def flush(timeout_s: float) -> bool:
    """Send every span that has ended now, waiting ``timeout_s`` at most; whether all went in time.
    Nothing to do (True) when no run of this process was exported."""
    if "findesk.core.events.otlp_sink" not in sys.modules:
        return True
    from findesk.core.events.otlp_sink import flush_all

    return flush_all(timeout_s)


def _missing(exc: ImportError) -> None:
    _warn_once(
        f"[telemetry] otlp_endpoint is set but OpenTelemetry is not installed ({exc.name}); "
        "runs are not traced (pip install 'findesk[otel]')"
    )


def _warn_once(message: str) -> None:
    if not _WARNED.is_set():
        _WARNED.set()
        print(f"findesk: {message}", file=sys.stderr)
