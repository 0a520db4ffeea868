"""A local HTTP server that speaks the Anthropic Messages and OpenAI Chat Completions wire formats.

Tests point the real SDK clients at it (``base_url``) so that request building, response parsing and
error mapping are exercised end to end without a network or a real model.

Rules:
- Binds 127.0.0.1 on a random free port and serves from a daemon thread; ``stop`` (or leaving the
  ``with`` block) shuts it down and wakes any reply still waiting out its ``delay_s``.
- Replies are scripted per model name (read from the request body) and consumed first in, first out.
  A request for a model with nothing scripted gets a 500 whose message names the model, so a test that
  forgot a script fails loudly instead of passing by accident.
- ``FakeReply`` token counts mean what ``TokenUsage`` means: ``input_tokens`` counts every input
  token, cached ones included. On the Anthropic wire, ``input_tokens`` is the uncached part only, so
  the server subtracts the cache reads and writes there; OpenAI's ``prompt_tokens`` is the total.
- Every request is recorded in ``requests`` (path, lower-cased headers, JSON body, model).
- Quiet: nothing is logged to stderr, including clients that hang up before a delayed reply.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, TypeAlias

__all__ = ["FakeProviderServer", "FakeReply", "FakeStatus", "RecordedRequest"]

# (name, arguments) gets a generated id; (id, name, arguments) keeps the given one. A ``str``
# argument is sent verbatim (OpenAI) so tests can script arguments that are not valid JSON.
ScriptedCall: TypeAlias = tuple[str, dict[str, Any] | str] | tuple[str, str, dict[str, Any] | str]

ANTHROPIC_PATH = "/v1/messages"
OPENAI_PATH = "/v1/chat/completions"


@dataclass(frozen=True)
class FakeReply:
    text: str = ""
    tool_calls: Sequence[ScriptedCall] = ()
    input_tokens: int = 10  # all input tokens, cached ones included
    output_tokens: int = 5
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    delay_s: float = 0.0


@dataclass(frozen=True)
class FakeStatus:
    """An HTTP error (or any status) instead of a reply. Without ``body`` a body in the provider's own
    error shape is generated; a ``str`` body is sent verbatim (to script unparseable responses)."""

    status: int
    body: dict[str, Any] | str | None = None
    retry_after: float | None = None


Scripted: TypeAlias = FakeReply | FakeStatus


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    model: str | None


# Anthropic's error ``type`` per status, so SDK code that branches on it sees the real thing.
_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


class FakeProviderServer:
    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self._queues: defaultdict[str, deque[Scripted]] = defaultdict(deque)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._ids = itertools.count(1)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> FakeProviderServer:
        if self._httpd is not None:
            return self
        self._stopping.clear()
        httpd = _QuietServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd = httpd
        # A short poll interval keeps stop() fast; the default would add half a second to every test.
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="fake-provider-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeProviderServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- addresses -------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("FakeProviderServer is not running; call start() or use it in a with block")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def anthropic_base_url(self) -> str:
        # The Anthropic SDK appends "/v1/messages" itself.
        return self.url

    @property
    def openai_base_url(self) -> str:
        # The OpenAI SDK appends "/chat/completions" to a base URL that already ends in "/v1".
        return f"{self.url}/v1"

    # -- scripting -------------------------------------------------------------------------------

    def script(self, model: str, *replies: Scripted) -> None:
        with self._lock:
            self._queues[model].extend(replies)

    def pending(self, model: str | None = None) -> int:
        """Scripted replies not yet served (for one model, or all)."""
        with self._lock:
            if model is not None:
                return len(self._queues.get(model, ()))
            return sum(len(q) for q in self._queues.values())

    def requests_for(self, model: str) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.model == model]

    # -- serving (called from handler threads) ---------------------------------------------------

    def _next(self, request: RecordedRequest) -> Scripted | None:
        with self._lock:
            self.requests.append(request)
            queue = self._queues.get(request.model or "")
            return queue.popleft() if queue else None

    def _respond(self, path: str, body: dict[str, Any], scripted: Scripted | None) -> _Answer:
        model = str(body.get("model", ""))
        anthropic = path == ANTHROPIC_PATH
        if scripted is None:
            message = (
                f"FakeProviderServer: no scripted reply for model {model!r} "
                f"(call server.script({model!r}, ...) before the request)"
            )
            return _Answer(500, _error_body(anthropic, 500, message))
        if isinstance(scripted, FakeStatus):
            return _status_answer(anthropic, scripted)
        if scripted.delay_s > 0:
            self._stopping.wait(scripted.delay_s)
        render = _anthropic_message if anthropic else _openai_completion
        return _Answer(200, render(model, scripted, self._ids))


@dataclass
class _Answer:
    status: int
    body: dict[str, Any] | str
    headers: dict[str, str] = field(default_factory=dict)


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out and hung up is expected in tests, not worth a traceback.
        return


def _handler_for(server: FakeProviderServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            path = self.path.split("?", 1)[0]
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                body = {"_unparsed": raw.decode("utf-8", "replace")}
            if not isinstance(body, dict):
                body = {"_unparsed": body}
            if path not in (ANTHROPIC_PATH, OPENAI_PATH):
                self._send(_Answer(404, {"error": {"message": f"FakeProviderServer serves no {path}"}}))
                return
            model = body.get("model")
            recorded = RecordedRequest(
                path=path,
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
                model=model if isinstance(model, str) else None,
            )
            self._send(server._respond(path, body, server._next(recorded)))

        def _send(self, answer: _Answer) -> None:
            payload = answer.body if isinstance(answer.body, str) else json.dumps(answer.body)
            data = payload.encode()
            try:
                self.send_response(answer.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client gave up (e.g. its timeout fired during delay_s)
                self.close_connection = True

    return Handler


def _status_answer(anthropic: bool, scripted: FakeStatus) -> _Answer:
    body = scripted.body
    if body is None:
        body = _error_body(anthropic, scripted.status, f"scripted HTTP {scripted.status}")
    headers = {}
    if scripted.retry_after is not None:
        headers["retry-after"] = f"{scripted.retry_after:g}"
    return _Answer(scripted.status, body, headers)


def _error_body(anthropic: bool, status: int, message: str) -> dict[str, Any]:
    if anthropic:
        kind = _ANTHROPIC_ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    kind = "server_error" if status >= 500 else "invalid_request_error"
    if status == 429:
        kind = "rate_limit_exceeded"
    return {"error": {"message": message, "type": kind, "param": None, "code": kind}}


def _split_call(call: ScriptedCall, default_id: str) -> tuple[str, str, dict[str, Any] | str]:
    if len(call) == 3:
        return call[0], call[1], call[2]
    return default_id, call[0], call[1]


def _anthropic_message(model: str, reply: FakeReply, ids: itertools.count[int]) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    for call in reply.tool_calls:
        call_id, name, arguments = _split_call(call, f"toolu_{next(ids):04d}")
        content.append({"type": "tool_use", "id": call_id, "name": name, "input": arguments})
    uncached = max(0, reply.input_tokens - reply.cache_read_tokens - reply.cache_write_tokens)
    return {
        "id": f"msg_{next(ids):04d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if reply.tool_calls else "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": uncached,
            "output_tokens": reply.output_tokens,
            "cache_creation_input_tokens": reply.cache_write_tokens,
            "cache_read_input_tokens": reply.cache_read_tokens,
        },
    }


def _openai_completion(model: str, reply: FakeReply, ids: itertools.count[int]) -> dict[str, Any]:
    tool_calls = []
    for call in reply.tool_calls:
        call_id, name, arguments = _split_call(call, f"call_{next(ids):04d}")
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
        tool_calls.append({"id": call_id, "type": "function", "function": {"name": name, "arguments": raw}})
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None, "refusal": None}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": f"chatcmpl-{next(ids):04d}",
        "object": "chat.completion",
        "created": 1_760_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if tool_calls else "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": reply.input_tokens,
            "completion_tokens": reply.output_tokens,
            "total_tokens": reply.input_tokens + reply.output_tokens,
            "prompt_tokens_details": {"cached_tokens": reply.cache_read_tokens},
        },
    }
