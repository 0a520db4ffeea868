"""Limits the HTTP server enforces before the application sees a request: the request line and headers.

Rules:
- The request line and headers together are at most ``MAX_HEADER_BYTES``; past that the connection
  gets a 431 (JSON, as every other error) and is closed. The count is taken as bytes arrive, before
  the parser accumulates them, so a client streaming an endless header costs the server at most the
  limit plus one socket read, never the header's size.
- uvicorn's default parser (httptools) has no such limit, so ``HeaderCappedHttpTools`` adds it; where
  httptools is missing, h11 is used with its own limit set to the same figure.
- Body limits are the application's (``app.RequestGate``): they need to know who is calling.
"""

from __future__ import annotations

import json
from typing import Any

MAX_HEADER_BYTES = 32 * 1024  # ample for a key, a JSON content type and a browser's usual headers

_REFUSAL = json.dumps(
    {
        "error": {
            "code": "headers_too_large",
            "message": f"the request line and headers are over {MAX_HEADER_BYTES // 1024} KiB",
        }
    }
).encode()


def uvicorn_http_options() -> dict[str, Any]:
    """Keyword arguments for ``uvicorn.Config`` that cap the request line and headers."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # uvicorn without httptools: h11 has the limit built in
        return {"http": "h11", "h11_max_incomplete_event_size": MAX_HEADER_BYTES}

    class HeaderCappedHttpTools(HttpToolsProtocol):
        """httptools, refusing a request whose line and headers pass ``MAX_HEADER_BYTES``."""

        _in_head = True  # the current request's line and headers are still arriving
        _head_bytes = 0  # bytes received since the current request began, while _in_head
        _refused = False

        def data_received(self, data: bytes) -> None:
            if self._refused:
                return
            if self._in_head:
                self._head_bytes += len(data)
            super().data_received(data)
            # still no end of the head after more than the limit: refuse before reading any more
            if self._in_head and self._head_bytes > MAX_HEADER_BYTES:
                self._refuse()

        def on_headers_complete(self) -> None:
            self._in_head = False
            # a whole head can arrive in one read: count what the parser kept
            kept = len(self.url) + sum(len(name) + len(value) for name, value in self.headers)
            if kept > MAX_HEADER_BYTES:
                self._refuse()
                return
            super().on_headers_complete()

        def on_body(self, body: bytes) -> None:
            if not self._refused:
                super().on_body(body)

        def on_message_complete(self) -> None:
            if self._refused:
                return
            self._in_head, self._head_bytes = True, 0  # the next request on this connection
            super().on_message_complete()

        def _refuse(self) -> None:
            if self._refused or self.transport.is_closing():
                return
            self._refused = True
            head = (
                b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
                b"content-type: application/json\r\n"
                b"content-length: " + str(len(_REFUSAL)).encode() + b"\r\nconnection: close\r\n\r\n"
            )
            self.transport.write(head + _REFUSAL)
            self.transport.close()

    return {"http": HeaderCappedHttpTools}
