"""A fake ``FilingSource`` for the filing-section tests.

Rules: it reads documents straight from the snapshot through
``sec/filings/index.csv`` (it does not use the snapshot SEC vendor), honours ``as_of`` and returns
filings newest first, like the real sources.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models.base import Source
from findesk.data.models.filings import Filing, FilingDocument

DEFAULT_AS_OF = date(2025, 8, 29)


@dataclass
class SnapshotFilings:
    """A tiny ``FilingSource`` over the snapshot's primary documents (html and markdown only)."""

    root: Path
    extra: list[Filing] = field(default_factory=list)  # planted filings whose document is missing
    document_calls: int = 0

    def _all(self) -> list[Filing]:
        out = list(self.extra)
        with (self.root / "sec/filings/index.csv").open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                if row["format"] not in ("html", "markdown"):
                    continue
                out.append(
                    Filing(
                        ticker=row["ticker"],
                        cik=int(row["cik"]),
                        form=row["form"],
                        filing_date=date.fromisoformat(row["filing_date"]),
                        report_date=date.fromisoformat(row["report_date"]) if row["report_date"] else None,
                        accession_number=row["accession_number"] or None,
                        primary_document=row["primary_document"] or None,
                        url=row["source_url"] or None,
                        local_path=row["path"],
                        source=Source(vendor="snapshot", ref="sec/filings/index.csv"),
                    )
                )
        return out

    async def filings(
        self,
        symbol: str,
        as_of: date,
        forms: frozenset[str] | None = None,
        limit: int | None = None,
    ) -> Result[list[Filing]]:
        found = [
            f
            for f in self._all()
            if f.ticker == symbol.upper() and f.filing_date <= as_of and (forms is None or f.form in forms)
        ]
        found.sort(key=lambda f: f.filing_date, reverse=True)
        return Ok(found[:limit] if limit else found)

    async def document(self, filing: Filing, as_of: date) -> Result[FilingDocument]:
        self.document_calls += 1
        if filing.local_path is None or not (self.root / filing.local_path).exists():
            return Err(ErrorCode.NO_DATA, "The document of this filing is not in the snapshot.", "fake")
        fmt = "markdown" if filing.local_path.endswith(".md") else "html"
        return Ok(
            FilingDocument(
                filing=filing,
                format=fmt,
                content=(self.root / filing.local_path).read_text(encoding="utf-8", errors="replace"),
                source=Source(vendor="snapshot", ref=filing.local_path),
            )
        )
