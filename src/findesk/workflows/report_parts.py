"""The pieces every workflow's renderers share: printable data text, escaped HTML text and links, the
page shell, the data-mode label and the tool-trace row.

Rules:
- Pure presentation: no I/O, never raises on odd input (None, NaN, stray markup, control characters).
- Every string from a report is data. ``printable`` puts it on one line (``core.formatting.one_line``:
  whitespace collapsed, bidi overrides dropped) and drops control and format characters, so an ESC in
  a hostile post can never drive a terminal; ``e`` is that line html-escaped, quotes included.
- A page is self-contained (``html_page``): inline CSS, a Content-Security-Policy that forbids
  scripts, fetches and forms, no referrer sent.
- Links only for whole ``http(s)://`` URLs (``core.formatting.is_http``), escaped, with
  ``rel="noopener noreferrer nofollow"`` (``REL``); any other URL is shown as text, never as a link.
- Tool-trace cells are printable plain text, unescaped: each renderer escapes them for its own format,
  so the Markdown, HTML and terminal traces print the same words.
- A workflow imports these from here, never from another workflow's modules.
"""

from __future__ import annotations

import html
import json
import math
import unicodedata
from datetime import date

from findesk.core.formatting import NONE, clip, is_http, one_line
from findesk.workflows.records import ToolCallRecord

REL = "noopener noreferrer nofollow"  # a data link gets no opener, no referrer and no ranking credit
# a report page fetches and runs nothing: inline CSS only, should data ever slip markup through
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'none'"
TOOL_COLUMNS = ("agent", "tool", "status", "latency ms", "cached", "arguments", "summary")

# control, format (zero-width, bidi), private-use and surrogate characters: invisible or terminal-driving
_UNPRINTABLE = ("Cc", "Cf", "Co", "Cs")


def printable(text: object) -> str:
    """Data as one printable line: ``one_line`` plus control and format characters dropped."""
    return "".join(ch for ch in one_line(text) if unicodedata.category(ch) not in _UNPRINTABLE)


def e(text: object) -> str:
    """Data as inert HTML text on one printable line."""
    return html.escape(printable(text), quote=True)


def link(url: str | None, label: str | None = None) -> str:
    """A link for a whole ``http(s)`` URL; anything else as text."""
    if url is None or not url.strip():
        return '<span class="muted">no URL</span>'
    if is_http(url):
        return f'<a href="{e(url.strip())}" rel="{REL}">{e(label or url.strip())}</a>'
    return f'<span class="url">{e(url)}</span>'


def html_page(title: str, css: str, body: str) -> str:
    """One self-contained HTML document: ``CSP`` and no-referrer meta tags, the escaped ``title``, the
    inline ``css``, and ``body`` (HTML the caller built from escaped parts) inside ``<main>``."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="referrer" content="no-referrer">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{e(title)}</title><style>{css}</style></head>\n"
        f"<body><main>\n{body}\n</main></body></html>\n"
    )


def data_label(data_mode: str, as_of: date) -> str:
    """The data mode with its date: "offline snapshot as of 2025-08-29", "live, as of 2025-09-02"."""
    day = as_of.isoformat()
    return data_mode if day in data_mode else f"{data_mode}, as of {day}"


def arguments_text(t: ToolCallRecord, limit: int = 160) -> str:
    """A tool call's arguments as sorted JSON on one line, clipped to ``limit`` characters."""
    try:
        text = json.dumps(t.arguments, default=str, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        text = repr(t.arguments)
    return clip(printable(text), limit)


def tool_row(t: ToolCallRecord) -> list[str]:
    """The cells of ``TOOL_COLUMNS``: agent, tool, status, latency ms, cached, arguments, summary."""
    return [
        printable(t.agent),
        printable(t.name),
        printable(t.status),
        f"{t.latency_ms:,.0f}" if math.isfinite(t.latency_ms) else NONE,
        "yes" if t.cached else "no",
        arguments_text(t),
        clip(printable(t.summary), 160),
    ]
