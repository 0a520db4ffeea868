"""What a caller gets back from an MCP tool: structured JSON plus a readable text, or a one-line error.

Rules:
- Every result, an error's included, states the run's ``as_of`` date and data mode (``snapshot`` or
  ``live``) and the context line ("offline snapshot as of 2025-08-29"), so a model never guesses which
  day its figures are from.
- A successful result keeps its citations: the value or report is passed whole (it carries its own
  sources) and ``sources`` lists every citation found in it once, in order.
- An error is ``is_error`` with one line (``code: reason``) as its text and ``{"error": {code, reason}}``
  in its structured content: never a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import mcp_types as types

from findesk.core.result import Err, ErrorCode
from findesk.data.context import DataContext

MAX_SOURCES = 200
MAX_TEXT_CHARS = 60_000
_CITING = ("citation", "citations", "source", "sources", "url", "cite")  # keys whose strings cite a source
_SOURCE_KEYS = ("url", "key", "ref", "cite", "citation")  # the citing field of a source given as an object


def envelope(context: DataContext) -> dict[str, Any]:
    """The run facts every result states."""
    return {"as_of": context.as_of.isoformat(), "data_mode": context.mode, "context": context.describe()}


def success(structured: dict[str, Any], text: str) -> types.CallToolResult:
    body = json.loads(json.dumps(structured, default=str))  # dates and decimals as strings, as JSON has them
    return types.CallToolResult(content=[types.TextContent(text=_cap(text))], structured_content=body)


def failure(error: Err, context: DataContext | None = None) -> types.CallToolResult:
    """An ``is_error`` result: one line, and the same error as JSON (with the run facts when known)."""
    line = " ".join(error.message().split())  # one line, whatever the reason held
    body: dict[str, Any] = {"error": error.to_dict()}
    if context is not None:
        body |= envelope(context)
    if "details" in body["error"]:
        body["error"]["details"] = json.loads(json.dumps(body["error"]["details"], default=str))
    return types.CallToolResult(
        content=[types.TextContent(text=line)], structured_content=body, is_error=True
    )


def invalid(reason: str, context: DataContext | None = None) -> types.CallToolResult:
    return failure(Err(ErrorCode.INVALID_INPUT, reason), context)


def sources(value: Any) -> list[str]:
    """Every citation in ``value`` (a tool result or a report as JSON), each once, in order."""
    seen: dict[str, None] = {}
    for cite in _walk(value, citing=False):
        if cite and cite not in seen:
            seen[cite] = None
            if len(seen) >= MAX_SOURCES:
                break
    return list(seen)


def _walk(value: Any, *, citing: bool) -> Iterator[str]:
    if isinstance(value, dict):
        vendor, ref = value.get("vendor"), value.get("ref")
        if isinstance(vendor, str) and isinstance(ref, str):  # a data-layer ``Source``
            yield f"{vendor}:{ref}"
            return
        if citing:  # a source given as an object (a report's source list)
            found = next((value[k] for k in _SOURCE_KEYS if isinstance(value.get(k), str)), None)
            if found is not None:
                label = value.get("label")
                yield f"{label} <{found}>" if isinstance(label, str) and label != found else found
                return
        for key, item in value.items():
            yield from _walk(item, citing=key in _CITING)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item, citing=citing)
    elif citing and isinstance(value, str) and value.strip():
        yield value.strip()


def _cap(text: str) -> str:
    if len(text) <= MAX_TEXT_CHARS:
        return text
    cut = len(text) - MAX_TEXT_CHARS
    return text[:MAX_TEXT_CHARS] + f"\n… [{cut} more characters: the structured content holds everything]"
