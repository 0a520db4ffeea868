"""A fake upstream for the news/social live-vendor tests: routes URLs to handlers, records requests.

(A uniquely named module rather than ``conftest`` so the tests import it unambiguously.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

from findesk.core.config import HttpSettings
from findesk.data.http.client import HttpClient

Handler = Callable[[httpx.Request], httpx.Response]


@dataclass
class FakeUpstream:
    """Answers by ``scheme://host/path`` (query ignored); unknown paths answer 404."""

    routes: dict[str, Handler] = field(default_factory=dict)
    requests: list[httpx.Request] = field(default_factory=list)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        url = request.url
        handler = self.routes.get(f"{url.scheme}://{url.host}{url.path}")
        return handler(request) if handler else httpx.Response(404, json={"error": 404})

    def client(self) -> HttpClient:
        # No retries and no rate limit: these tests are about parsing and error mapping, not pacing.
        settings = HttpSettings(retries=0, rate_limits={}, default_rps=10_000.0)
        return HttpClient(settings, transport=httpx.MockTransport(self))


def body(content: bytes, status: int = 200) -> Handler:
    return lambda _request: httpx.Response(
        status, content=content, headers={"Content-Type": "application/json"}
    )
