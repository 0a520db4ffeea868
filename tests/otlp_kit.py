"""A minimal OTLP/HTTP receiver on loopback for tests: ``POST /v1/traces`` with an
``application/x-protobuf`` ``ExportTraceServiceRequest``, every span kept with its resource and
attributes decoded. ``with Receiver() as r:`` serves on a free port until the block ends."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from findesk.core.events import otel


@dataclass
class Received:
    span: Any  # opentelemetry.proto.trace.v1.trace_pb2.Span
    resource: dict[str, Any]
    attributes: dict[str, Any] = field(default_factory=dict)


def _value(v: AnyValue) -> Any:
    kind = v.WhichOneof("value")
    return getattr(v, kind) if kind is not None else None


class Receiver:
    def __init__(self) -> None:
        self.spans: list[Received] = []
        self.content_types: set[str] = set()
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.path != "/v1/traces":
                    self.send_response(404)
                    self.end_headers()
                    return
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                receiver.take(request, self.headers.get("Content-Type", ""))
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}/v1/traces"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def take(self, request: ExportTraceServiceRequest, content_type: str) -> None:
        with self._lock:
            self.content_types.add(content_type)
            for rs in request.resource_spans:
                resource = {a.key: _value(a.value) for a in rs.resource.attributes}
                for ss in rs.scope_spans:
                    for span in ss.spans:
                        attrs = {a.key: _value(a.value) for a in span.attributes}
                        self.spans.append(Received(span, resource, attrs))

    def wait_for(self, count: int, timeout_s: float = 15.0) -> list[Received]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            otel.flush(2.0)
            with self._lock:
                if len(self.spans) >= count:
                    break
            time.sleep(0.05)
        time.sleep(0.2)  # anything more that was on its way (there must be none)
        with self._lock:
            return list(self.spans)

    def __enter__(self) -> Receiver:
        self.thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.server.shutdown()
        self.server.server_close()
