"""SEC filing models: filings, their documents and Item sections, 8-K events, XBRL facts."""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import Field

from findesk.data.models.base import DataModel, Source


class Filing(DataModel):
    ticker: str
    cik: int
    form: str  # "10-K", "10-Q", "8-K", "8-K/A", ...
    filing_date: date
    report_date: date | None = None  # period of report (10-K/10-Q) or event date (8-K)
    accepted_at: datetime | None = None  # EDGAR acceptance time (UTC); filing_date stays the as-of key
    accession_number: str | None = None
    primary_document: str | None = None
    url: str | None = None  # EDGAR Archives URL of the primary document
    items: list[str] = Field(default_factory=list)  # 8-K item codes, e.g. ["2.02", "9.01"]
    local_path: str | None = None  # snapshot-relative path of the stored document, when there is one
    source: Source


class FilingDocument(DataModel):
    """The raw primary document of a filing, as stored or served."""

    filing: Filing
    format: Literal["html", "markdown", "text"]
    content: str
    source: Source


class FilingSection(DataModel):
    """One Item of a filing, citable on its own."""

    ticker: str
    cik: int
    form: str
    filing_date: date
    report_date: date | None = None
    item: str  # "1A", "7", "2.02"
    title: str  # official title, e.g. "Risk Factors"
    text: str
    url: str | None = None
    local_path: str | None = None
    source: Source

    def citation(self) -> str:
        where = self.url or self.local_path or self.source.ref
        filed = self.filing_date.isoformat()
        return f"{self.ticker} {self.form} filed {filed}, Item {self.item} ({self.title}) — {where}"


class MaterialEvent(DataModel):
    """One 8-K item: what the filing announced, by official item code and title."""

    ticker: str
    cik: int
    form: str  # "8-K" or "8-K/A"
    filing_date: date
    event_date: date | None = None
    item: str  # "2.02"
    title: str  # "Results of Operations and Financial Condition"
    accession_number: str | None = None
    url: str | None = None
    source: Source


class Fact(DataModel):
    """One XBRL fact as reported in one filing (companyfacts)."""

    ticker: str
    cik: int
    taxonomy: str  # "us-gaap", "dei", "ifrs-full"
    concept: str  # "Revenues"
    label: str | None = None
    unit: str  # "USD", "shares", "USD/shares"
    value: float
    period_start: date | None = None  # None for instant facts
    period_end: date
    fiscal_year: int | None = None
    fiscal_period: str | None = None  # "FY", "Q1", ...
    form: str | None = None
    filed: date  # filing date: the point-in-time key
    accession_number: str | None = None
    frame: str | None = None  # e.g. "CY2024Q4"
    source: Source
