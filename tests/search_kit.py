"""A small corpus for the search tests: synthetic filings and calls, one of them planted after the as-of date.

Rules: documents are built in the test (``FilingDocument`` in Markdown with real Item headings, and
``Transcript``s), go through the real corpus sources, chunkers, index and MiniLM encoder, and are a
dozen chunks in all, so a build takes about a second. ``PLANTED`` is a phrase no other document
contains, in an 8-K and a call dated after ``AS_OF``; everything else is dated on or before it.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

from findesk.data.models.base import Source
from findesk.data.models.filings import Filing, FilingDocument
from findesk.data.models.transcripts import Transcript
from findesk.knowledge.retrieval.corpus import filing_source, transcript_source
from findesk.knowledge.retrieval.index import BuildReport, RetrievalIndex, SourceDocument

AS_OF = date(2025, 1, 31)
PLANTED = "Quokka zephyr lattice programme"
PLANTED_8K_URL = "https://www.sec.gov/Archives/edgar/data/1/000000000125000009/acme-8k-20250303.htm"
ACME_10K_URL = "https://www.sec.gov/Archives/edgar/data/1/000000000124000002/acme-20231231.htm"
BETA_10K_URL = "https://www.sec.gov/Archives/edgar/data/2/000000000224000003/beta-20231231.htm"


def filing_doc(
    ticker: str, form: str, filed: date, url: str, items: dict[str, str], *, period: date | None = None
) -> FilingDocument:
    """A filing whose Markdown holds ``items`` (``"1A. Risk Factors"`` -> body) under real Item headings."""
    body = "\n\n".join(f"## Item {head}\n\n{text}" for head, text in items.items())
    filing = Filing(
        ticker=ticker,
        cik=1 if ticker == "ACME" else 2,
        form=form,
        filing_date=filed,
        report_date=period,
        url=url,
        source=Source(vendor="test", ref=f"{ticker}-{form}-{filed}.md"),
    )
    content = f"# {ticker} FORM {form}\n\nPART I\n\n{body}\n"
    return FilingDocument(filing=filing, format="markdown", content=content, source=filing.source)


def call(ticker: str, year: int, quarter: int, held: datetime, text: str) -> Transcript:
    return Transcript(
        ticker=ticker,
        company_name=f"{ticker.title()} Corp",
        fiscal_year=year,
        fiscal_quarter=quarter,
        conference_at=held,
        text=text,
        source=Source(vendor="test", ref=f"transcripts/{ticker}/{year}Q{quarter}.txt"),
    )


def acme_10k(
    risk: str = "Our rocket fuel comes from a single supplier; a shortage would hurt margins.",
) -> FilingDocument:
    return filing_doc(
        "ACME",
        "10-K",
        date(2024, 2, 1),
        ACME_10K_URL,
        {
            "1. Business": "Acme makes anvils and rockets sold to desert customers worldwide.",
            "1A. Risk Factors": risk,
            "7. Management's Discussion and Analysis of Financial Condition and Results of Operations": (
                "Revenue grew 12 percent to $4.2 billion on strong anvil demand."
            ),
        },
        period=date(2023, 12, 31),
    )


def beta_10k() -> FilingDocument:
    return filing_doc(
        "BETA",
        "10-K",
        date(2024, 3, 1),
        BETA_10K_URL,
        {
            "1. Business": "Beta runs regional banks that lend to farmers.",
            "1A. Risk Factors": "Crop failures could raise loan losses across our farm lending book.",
        },
        period=date(2023, 12, 31),
    )


def planted_8k() -> FilingDocument:
    return filing_doc(
        "ACME",
        "8-K",
        date(2025, 3, 3),  # after AS_OF
        PLANTED_8K_URL,
        {"8.01 Other Events": f"Acme announced the {PLANTED} today, a new product line."},
    )


def corpus_sources() -> list[SourceDocument]:
    """Two 10-Ks and a call before ``AS_OF``; an 8-K and a call after it carrying ``PLANTED``."""
    return [
        filing_source(acme_10k()),
        filing_source(beta_10k()),
        transcript_source(
            call(
                "ACME",
                2024,
                3,
                datetime(2024, 10, 30, 21, 0, tzinfo=UTC),
                "Welcome to the Acme call. Anvil demand stayed strong. Our first question comes from Jane "
                "Doe with Big Bank. How are margins? Margins expanded on lower fuel costs.",
            )
        ),
        filing_source(planted_8k()),
        transcript_source(
            call(
                "ACME",
                2024,
                4,
                datetime(2025, 2, 20, 21, 0, tzinfo=UTC),  # after AS_OF
                f"Welcome. Today we discuss the {PLANTED} and what it means for anvils.",
            )
        ),
    ]


def build(path: Path | str, sources: list[SourceDocument] | None = None) -> BuildReport:
    """Build the corpus into ``path``: an index directory or a PostgreSQL URL."""
    with RetrievalIndex.open(path) as index:
        return index.build(sources if sources is not None else corpus_sources())
