"""The live HTTP client against real sockets on loopback (issue 14): a response over the size cap is
refused without being read whole, the timeout is one deadline for the whole attempt (a server that
trickles a byte a second cannot hold a call past it), and a redirect to another host never carries
the caller's credentials.

Each server here is a thread listening on 127.0.0.1 / 127.0.0.2 only, stopped at the end of its test.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest

from findesk.core.config import HttpSettings
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.http import HttpClient

MIB = 1024 * 1024


@dataclass
class Loopback:
    """A tiny HTTP/1.1 server: ``reply(conn, request_head)`` answers each connection."""

    reply: Callable[[socket.socket, str], None]
    host: str = "127.0.0.1"
    heads: list[str] = field(default_factory=list)  # every request head received
    sent: list[int] = field(default_factory=lambda: [0])  # body bytes written so far
    port: int = 0

    def __post_init__(self) -> None:
        self._sock = socket.socket()
        self._sock.bind((self.host, 0))
        self._sock.listen(8)
        self._sock.settimeout(0.2)
        self.port = self._sock.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(5)
                head = b""
                try:
                    while b"\r\n\r\n" not in head:
                        chunk = conn.recv(4096)
                        if not chunk:
                            break
                        head += chunk
                    self.heads.append(head.decode("latin-1"))
                    self.reply(conn, head.decode("latin-1"))
                except OSError:
                    pass  # the client hung up: that is what several tests want

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self._sock.close()


@pytest.fixture
def serve() -> Iterator[Callable[..., Loopback]]:
    started: list[Loopback] = []

    def start(reply: Callable[[socket.socket, str], None], host: str = "127.0.0.1") -> Loopback:
        server = Loopback(reply, host)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def _client(**settings: object) -> HttpClient:
    return HttpClient(HttpSettings(**{"retries": 0, "default_rps": 0.0, "rate_limits": {}, **settings}))


async def test_a_body_over_the_cap_is_refused_before_it_is_read_whole(serve: Callable[..., Loopback]) -> None:
    """300 MB announced by chunked encoding (no Content-Length): the client stops after the cap."""
    server: Loopback | None = None

    def endless(conn: socket.socket, _head: str) -> None:
        assert server is not None
        conn.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: application/octet-stream\r\n")
        conn.sendall(b"Transfer-Encoding: chunked\r\n\r\n")
        block = b"x" * 65536
        for _ in range(300 * 16):  # 300 MB if nobody stops reading
            conn.sendall(b"%x\r\n%s\r\n" % (len(block), block))
            server.sent[0] += len(block)
        conn.sendall(b"0\r\n\r\n")

    server = serve(endless)
    async with _client(max_response_bytes=2 * MIB) as client:
        started = time.monotonic()
        got = await client.get(server.url + "/big", source="loopback")
        took = time.monotonic() - started
    assert isinstance(got, Err) and got.code is ErrorCode.BAD_RESPONSE
    assert "2 MiB" in got.reason and "max_response_bytes" in got.reason and "127.0.0.1" in got.reason
    await asyncio.sleep(0.2)  # let the server notice the closed connection
    # socket buffers hold a few MB at most; a client reading it all would have taken 300 MB
    assert server.sent[0] < 40 * MIB, server.sent[0]
    assert took < 5


async def test_a_declared_length_over_the_cap_is_refused_unread(serve: Callable[..., Loopback]) -> None:
    def huge(conn: socket.socket, _head: str) -> None:
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 314572800\r\n\r\n" + b"x" * 1024
        )

    server = serve(huge)
    async with _client(max_response_bytes=MIB) as client:
        got = await client.get(server.url + "/declared")
    assert isinstance(got, Err) and got.code is ErrorCode.BAD_RESPONSE and "300 MiB" in got.reason


async def test_a_body_under_the_cap_is_read_as_before(serve: Callable[..., Loopback]) -> None:
    def small(conn: socket.socket, _head: str) -> None:
        body = b'{"ok":true}'
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
        )

    server = serve(small)
    async with _client(max_response_bytes=1024) as client:
        got = await client.get_json(server.url + "/small")
    assert isinstance(got, Ok) and got.value == {"ok": True}


async def test_the_timeout_is_a_deadline_for_the_whole_attempt(serve: Callable[..., Loopback]) -> None:
    """One byte every 0.25 s never trips a per-read timeout of 1 s; the deadline must still hold."""

    def trickle(conn: socket.socket, _head: str) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 100\r\n\r\n")
        for _ in range(100):
            conn.sendall(b"x")
            time.sleep(0.25)

    server = serve(trickle)
    async with _client(timeout_s=1.0) as client:
        started = time.monotonic()
        got = await client.get(server.url + "/slow")
        took = time.monotonic() - started
    assert isinstance(got, Err) and got.code is ErrorCode.TIMEOUT and "1 s" in got.reason
    assert 0.9 <= took < 2.5, took


def _redirect_or_land(target: str | None) -> Callable[[socket.socket, str], None]:
    """``GET /start`` is sent to ``target`` (this server when None); anything else lands."""

    def reply(conn: socket.socket, head: str) -> None:
        if head.startswith("GET /start"):
            where = f"{target or ''}/landed?page=2".encode()
            conn.sendall(
                b"HTTP/1.1 302 Found\r\nConnection: close\r\nLocation: "
                + where
                + b"\r\nContent-Length: 0\r\n\r\n"
            )
        else:
            conn.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok")

    return reply


async def test_a_redirect_to_another_host_carries_no_credentials(serve: Callable[..., Loopback]) -> None:
    other = serve(_redirect_or_land(None), host="127.0.0.2")
    origin = serve(_redirect_or_land(other.url))
    secrets = {"X-Api-Key": "newsapi-secret-123", "Authorization": "Bearer tok-456", "Cookie": "s=789"}
    async with _client() as client:
        got = await client.get(origin.url + "/start", headers=secrets, params={"q": "AAPL"})
    assert isinstance(got, Ok) and got.value.content == b"ok" and got.value.url.startswith(other.url)
    assert "newsapi-secret-123" in origin.heads[0]  # the first host was meant to see it
    landed = other.heads[0]
    assert "GET /landed?page=2 " in landed
    for value in secrets.values():
        assert value not in landed


async def test_a_redirect_on_the_same_origin_keeps_the_key(serve: Callable[..., Loopback]) -> None:
    server = serve(_redirect_or_land(None))
    async with _client() as client:
        got = await client.get(server.url + "/start", headers={"X-Api-Key": "newsapi-secret-123"})
    assert isinstance(got, Ok) and got.value.content == b"ok"
    assert len(server.heads) == 2 and "newsapi-secret-123" in server.heads[1]


async def test_too_many_redirects_is_a_clear_error(serve: Callable[..., Loopback]) -> None:
    def loop(conn: socket.socket, _head: str) -> None:
        conn.sendall(
            b"HTTP/1.1 302 Found\r\nConnection: close\r\nLocation: /again\r\nContent-Length: 0\r\n\r\n"
        )

    server = serve(loop)
    async with _client(max_redirects=3) as client:
        got = await client.get(server.url + "/again")
    assert isinstance(got, Err) and got.code is ErrorCode.UNAVAILABLE and "redirect" in got.reason.lower()
    assert len(server.heads) == 4  # the request and three redirects, then it stops
