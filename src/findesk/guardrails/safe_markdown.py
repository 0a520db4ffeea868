"""Markdown from filings, posts and models, made safe for a browser.

Rules:
- Text is data, never markup: raw HTML in the source is escaped (markdown-it with ``html`` off), so a
  planted ``<script>`` shows as text.
- What Markdown produces passes an allow-list (``nh3``, the Rust ``ammonia`` sanitizer): a few text
  tags, links only to ``http(s)``/``mailto`` with ``rel="noopener noreferrer nofollow"``, no images,
  no styles, no event handlers. Two layers, because either alone has had bypasses in the field.
- Pure and total: any string in, a safe fragment out; never raises.
"""

from __future__ import annotations

import nh3
from markdown_it import MarkdownIt

_INLINE_TAGS = {"strong", "em", "code", "a", "br", "s"}
_BLOCK_TAGS = _INLINE_TAGS | {"p", "ul", "ol", "li", "blockquote", "pre", "h4", "h5", "h6", "hr"}
_ATTRIBUTES = {"a": {"href", "title"}}
_SCHEMES = {"http", "https", "mailto"}
_REL = "noopener noreferrer nofollow"

# commonmark without raw HTML; tables and strikethrough as posts use them; no linkify (it would turn
# bare tickers with dots into links)
_md = MarkdownIt("commonmark", {"html": False, "breaks": True}).enable(["table", "strikethrough"])


def _clean(fragment: str, tags: set[str]) -> str:
    return nh3.clean(
        fragment,
        tags=tags,
        attributes=_ATTRIBUTES,
        url_schemes=_SCHEMES,
        link_rel=_REL,
        strip_comments=True,
    )


def inline_html(text: str) -> str:
    """One line of prose (a claim, an excerpt): emphasis, code and links only, no paragraphs."""
    return _clean(_md.renderInline(text), _INLINE_TAGS)


def block_html(text: str) -> str:
    """A post or an article body: paragraphs, lists and quotes as well."""
    return _clean(_md.render(text), _BLOCK_TAGS | {"table", "thead", "tbody", "tr", "th", "td"}).strip()
