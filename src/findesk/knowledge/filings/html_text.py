"""Filing documents (EDGAR HTML, inline XBRL, Markdown) -> plain text for the Item splitter.

Rules this module keeps:
- One line per block: every block-level element (div, p, li, headings, table rows, ``<br>``) ends a
  line; inline elements (span, a, ix:*) never break a line, so a heading split over several spans
  stays on one line.
- Tables become rows: one line per ``<tr>``, non-empty cells joined by `` | ``. Nested tables are
  flattened into their parent cell.
- Hidden content is dropped: the inline-XBRL header (``ix:header``) and anything styled
  ``display:none``, plus ``script``/``style``/``head``.
- Whitespace is normalized: non-breaking and zero-width spaces become plain spaces (or vanish), runs
  of spaces collapse, lines are stripped, blank lines are removed.
- Markdown gets light treatment only: HTML comments and embedded HTML tables are rendered like HTML,
  heading markers (``#``) and bold/italic markers are removed so headings keep just their text.
- Line breaks in the HTML source are just whitespace (as in a browser), except inside ``<pre>``.
- Fast enough for 10 MB documents: block breaks are inserted as a private-use marker character by one
  regex pass over the raw HTML before parsing, so the only per-node Python work is on table rows.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser

# Closing tags of block elements (and void breaks) get a line-break marker right after them in the raw
# HTML; this is far cheaper than walking the DOM in Python. Rows are not marked: tables are rendered
# separately (a non-space character between rows would be moved out of the table by the parser).
_BREAK = "\ue000"
_BLOCK_END = re.compile(
    r"(</(?:div|p|li|h[1-6]|table|ul|ol|dl|dt|dd|blockquote|pre|section|article|center|"
    r"header|footer)\s*>|<br\b[^>]*>|<hr\b[^>]*>)",
    re.IGNORECASE,
)
_PRE = re.compile(r"<pre\b.*?</pre\s*>", re.IGNORECASE | re.DOTALL)
_HIDDEN = (
    'script, style, head, ix\\:header, [style*="display:none"], [style*="display: none"], '
    '[style*="DISPLAY:NONE"], [style*="DISPLAY: NONE"]'
)
_SPACES = re.compile(r"[ \t\f\v\u00a0\u2000-\u200a\u202f\u205f\u3000]+")
_ZERO_WIDTH = re.compile(r"[\u200b-\u200d\u2060\ufeff\u00ad]")
_CELL_SPACE = re.compile(r"\s+")

_MD_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_MD_HTML_TABLE = re.compile(r"<table\b.*?</table\s*>", re.DOTALL | re.IGNORECASE)
_MD_TAG = re.compile(r"</?(?:div|span|p|br|center|font|b|i|u|strong|em)\b[^>]*>", re.IGNORECASE)
_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s*", re.MULTILINE)
_MD_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_MD_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def normalize_text(text: str) -> str:
    """Collapse spaces within lines, strip every line and drop blank lines."""
    text = _ZERO_WIDTH.sub("", text)
    out: list[str] = []
    for line in text.splitlines():
        line = _SPACES.sub(" ", line).strip()
        if line:
            out.append(line)
    return "\n".join(out)


def _cell_text(raw: str) -> str:
    return _CELL_SPACE.sub(" ", raw.replace(_BREAK, " ")).strip()


def _render_tables(tree: LexborHTMLParser) -> None:
    # Innermost tables first (reverse document order): a nested table is already text when its
    # parent cell is read.
    for table in reversed(tree.css("table")):
        rows: list[str] = []
        for tr in table.css("tr"):
            cells = [_cell_text(c.text(deep=True, separator="")) for c in tr.css("td, th")]
            cells = [c for c in cells if c]
            if cells:
                rows.append(" | ".join(cells))
        table.replace_with(_BREAK + _BREAK.join(rows) + _BREAK)


def html_to_text(html: str) -> str:
    """EDGAR HTML (10-K/10-Q/8-K, inline XBRL or not) -> normalized plain text."""
    html = _PRE.sub(lambda m: m.group(0).replace("\n", _BREAK), html)
    tree = LexborHTMLParser(_BLOCK_END.sub(r"\1" + _BREAK, html))
    for node in tree.css(_HIDDEN):
        node.decompose()
    _render_tables(tree)
    root = tree.body if tree.body is not None else tree.root
    if root is None:
        return ""
    raw = root.text(deep=True, separator="")
    return normalize_text(_CELL_SPACE.sub(" ", raw).replace(_BREAK, "\n"))


def _md_table_row(line: str) -> str:
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    return " | ".join(c for c in cells if c)


def markdown_to_text(markdown: str) -> str:
    """Markdown (possibly with embedded HTML tables and comments) -> normalized plain text."""
    text = _MD_COMMENT.sub("\n", markdown)
    text = _MD_HTML_TABLE.sub(lambda m: "\n" + html_to_text(m.group(0)) + "\n", text)
    text = _MD_TAG.sub("\n", text)
    text = _MD_HEADING.sub("", text)
    text = _MD_EMPHASIS.sub(r"\2", text)
    lines: list[str] = []
    for line in text.splitlines():
        if _MD_TABLE_RULE.match(line):
            continue
        lines.append(_md_table_row(line) if line.lstrip().startswith("|") else line)
    return normalize_text("\n".join(lines))


def document_text(content: str, fmt: str) -> str:
    """Plain text of a document in one of the ``FilingDocument`` formats."""
    if fmt == "html":
        return html_to_text(content)
    if fmt == "markdown":
        return markdown_to_text(content)
    return normalize_text(content)
