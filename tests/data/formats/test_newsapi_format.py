"""NewsAPI body parser on the real recorded page 2, and its documented error codes."""

from __future__ import annotations

import json
from pathlib import Path

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.formats import newsapi
from findesk.data.models import Source

SRC = Source(vendor="newsapi", ref="test")


def test_recorded_page2(snapshot_dir: Path) -> None:
    body = json.loads((snapshot_dir / "news/newsapi/everything_q-inflection-ai_page2.json").read_text())
    got = newsapi.parse_everything(body, SRC)
    assert isinstance(got, Ok) and len(got.value) == len(body["articles"])
    assert all(i.published_at.tzinfo is not None and i.url for i in got.value)


def test_error_codes() -> None:
    for code, expected in [
        ("apiKeyMissing", ErrorCode.NOT_CONFIGURED),
        ("apiKeyDisabled", ErrorCode.NOT_CONFIGURED),
        ("parameterInvalid", ErrorCode.INVALID_INPUT),
        ("unexpectedError", ErrorCode.UNAVAILABLE),
    ]:
        got = newsapi.parse_everything({"status": "error", "code": code, "message": "m"}, SRC)
        assert isinstance(got, Err) and got.code is expected
    removed = {
        "status": "ok",
        "articles": [
            {"title": "[Removed]", "url": "https://removed.com", "publishedAt": "2023-07-01T00:00:00Z"}
        ],
    }
    kept = newsapi.parse_everything(removed, SRC)
    assert isinstance(kept, Ok) and kept.value == []
