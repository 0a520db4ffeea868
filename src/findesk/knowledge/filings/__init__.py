"""Item-aware parsing of SEC filings: 10-K and 10-Q Items, 8-K Items, cached citable sections.

Modules: ``html_text`` (document -> plain text), ``items`` (10-K/10-Q splitter), ``eight_k`` (8-K
splitter), ``sections`` (``parse_document`` and the cached ``SectionService``), ``highlights`` (leading
risk factors, business summary and 8-K excerpts of a section's text).
"""

from findesk.knowledge.filings.eight_k import split_eight_k
from findesk.knowledge.filings.highlights import RiskFactor, business_summary, event_excerpt, risk_factors
from findesk.knowledge.filings.html_text import document_text, html_to_text, markdown_to_text
from findesk.knowledge.filings.items import ItemText, split_items
from findesk.knowledge.filings.sections import (
    PARSER_VERSION,
    FilingSource,
    SectionService,
    parse_document,
    split_text,
)

__all__ = [
    "PARSER_VERSION",
    "FilingSource",
    "ItemText",
    "RiskFactor",
    "SectionService",
    "business_summary",
    "document_text",
    "event_excerpt",
    "html_to_text",
    "markdown_to_text",
    "parse_document",
    "risk_factors",
    "split_eight_k",
    "split_items",
    "split_text",
]
