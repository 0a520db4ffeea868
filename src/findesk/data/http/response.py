"""``HttpResponse``: what the shared client hands back, live or from the cache.

Rules: immutable; ``url`` is the final URL with secret-looking query values redacted (it ends up in
citations); ``extra`` carries cache facts (``age_s``, ``stale``, ``stale_reason``) for callers that care.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass, field
from email.message import Message
from typing import Any


@dataclass(frozen=True, slots=True)
class HttpResponse:
    url: str
    status: int
    headers: dict[str, str]
    content: bytes
    from_cache: bool = False
    elapsed_s: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def text(self) -> str:
        """The body decoded with the charset the server declared, else UTF-8 (bad bytes replaced)."""
        return self.content.decode(self.charset() or "utf-8", errors="replace")

    def charset(self) -> str | None:
        content_type = next((v for k, v in self.headers.items() if k.lower() == "content-type"), None)
        if not content_type:
            return None
        msg = Message()
        msg["content-type"] = content_type
        charset = msg.get_param("charset")
        if not isinstance(charset, str):
            return None
        try:
            return codecs.lookup(charset).name
        except LookupError:
            return None
