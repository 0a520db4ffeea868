"""How a retrieved chunk is cited and shown: a checkable line, a key per document and Item or page.

Rules this module keeps:
- Every citation names the form, the filing date (a call's day for transcripts) when known, the Item
  or the page, and the URL; a page corpus without a link is cited by its document name.
- Keys follow the filing tools' convention (``tools.highlights.section_cite``): a filing's EDGAR URL
  with an ``#item-1a`` fragment, so a passage and a section read by another tool cite the same source;
  a page is its document's link with ``#page=N`` (1-based, as PDF viewers count); a call is its
  transcript's reference.
- Retrieved text is document content, not ours: ``printable`` drops control and invisible formatting
  characters (terminal escapes, bidi overrides, zero-width marks) and folds line breaks, so a passage
  shown to a person or a model is one plain line that cannot fake another line or hide text.
- Pure: metadata in, text out.
"""

from __future__ import annotations

import unicodedata
from datetime import date

from pydantic import BaseModel, ConfigDict

from findesk.knowledge.retrieval.chunks import ChunkMeta
from findesk.knowledge.retrieval.models import Filters

_FILTER_WORDS = {
    "tickers": "ticker",
    "forms": "form",
    "fiscal_years": "fiscal year",
    "fiscal_periods": "fiscal period",
    "items": "Item",
    "doc_ids": "document",
}


class ChunkCite(BaseModel):
    """Where a retrieved passage comes from, enough to cite it without its text."""

    model_config = ConfigDict(frozen=True)

    key: str
    label: str  # "AAPL 10-K filed 2024-11-01, Item 1A (Risk Factors)"
    url: str | None
    form: str | None
    filing_date: str | None  # ISO day, None when not known (page corpora)
    item: str | None
    page: int | None  # 0-based page of a page corpus


def where(meta: ChunkMeta) -> str:
    """The part of a document: ``Item 1A (Risk Factors)``, ``page 12`` or a transcript's section."""
    if meta.item:
        title = f" ({meta.item_title})" if meta.item_title else ""
        return f"Item {meta.item}{title}"
    if meta.page is not None:
        return f"page {meta.page + 1}"
    return meta.heading or "whole document"


def cite(meta: ChunkMeta) -> ChunkCite:
    """The citation of a chunk with this metadata."""
    who = meta.ticker or meta.company or meta.doc_id
    form = meta.form or "document"
    if meta.kind == "transcript":
        period = f" FY{meta.fiscal_year} {meta.fiscal_period}" if meta.fiscal_year else ""
        when = f" held {meta.filing_date.isoformat()}" if meta.filing_date else ""
    else:
        period = f" FY{meta.fiscal_year}" if meta.kind == "page" and meta.fiscal_year else ""
        when = f" filed {meta.filing_date.isoformat()}" if meta.filing_date else ""
    label = f"{who} {form}{period}{when}, {where(meta)}"
    if meta.kind == "page" and meta.doc_id != who:
        label += f" of {meta.doc_id}"
    base = meta.source_url or meta.doc_id
    if meta.kind == "filing" and meta.item:
        key = f"{base}#item-{meta.item.lower()}"
    elif meta.kind == "page" and meta.page is not None:
        key = f"{base}#page={meta.page + 1}"
    else:
        key = base
    return ChunkCite(
        key=key,
        label=label,
        url=meta.source_url,
        form=meta.form,
        filing_date=meta.filing_date.isoformat() if meta.filing_date else None,
        item=meta.item,
        page=meta.page,
    )


def citation(meta: ChunkMeta) -> str:
    """``label — url`` (or the document name when there is no URL): one checkable line."""
    c = cite(meta)
    return f"{c.label} — {c.url or meta.doc_id}"


def printable(text: str) -> str:
    """``text`` as one line without control or invisible formatting characters."""
    kept = []
    for ch in text:
        category = unicodedata.category(ch)
        if ch in "\n\r\t\v\f\u2028\u2029" or category == "Zl" or category == "Zp":
            kept.append(" ")
        elif category not in ("Cc", "Cf", "Co", "Cs"):
            kept.append(ch)
    return " ".join("".join(kept).split())


def describe_filters(filters: Filters) -> str:
    """The restrictions of a search in words ("ticker AAPL; filed on or before 2025-08-29"), or ""."""
    parts: list[str] = []
    for name, word in _FILTER_WORDS.items():
        values = getattr(filters, name)
        if values is None:
            continue
        shown = sorted(str(v) for v in values)
        if name == "doc_ids" and len(shown) > 1:
            # ids are URLs or paths: a count reads better; the query notes say why these documents
            parts.append(f"{len(shown)} documents")
            continue
        parts.append(f"{word} {' or '.join(shown) if shown else '(none)'}")
    if isinstance(filters.as_of, date):
        parts.append(f"filed on or before {filters.as_of.isoformat()}")
    return "; ".join(parts)
