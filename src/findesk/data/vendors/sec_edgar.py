"""Live SEC EDGAR: ticker -> CIK, submissions (filing lists), primary documents, XBRL companyfacts.

Rules this vendor keeps:
- SEC requires a declared User-Agent with contact details. Every request sends
  ``settings.sec_user_agent``; without one every method answers ``not_configured`` and makes no request.
- Never raises: HTTP problems come back as the shared client's typed errors, broken bodies as
  ``bad_response``.
- Point in time: filings by ``filingDate <= as_of``, facts by ``filed <= as_of``; reading the document
  of a filing filed after ``as_of`` is ``invalid_input``.
- Parsing goes through ``findesk.data.formats.sec``, the same code the snapshot store uses.
- Older submissions pages are fetched only when the recent page cannot answer (it starts after
  ``as_of`` or holds fewer than ``limit`` matching filings), because each page is a request.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, date, datetime
from typing import Any, Literal

from findesk.core.config import Settings
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats import sec as fmt
from findesk.data.http.client import HttpClient
from findesk.data.models import Company, Fact, Filing, FilingDocument, Source
from findesk.data.vendors.base import Category, HttpVendor

TICKERS_URL = "https://www.sec.gov/files/company_tickers.json"
SUBMISSIONS_URL = "https://data.sec.gov/submissions/{name}"
FACTS_URL = "https://data.sec.gov/api/xbrl/companyfacts/CIK{cik}.json"
NO_USER_AGENT = (
    'SEC requires a User-Agent with contact details; set FINDESK_SEC_USER_AGENT="Your Name you@example.com"'
)


class SecEdgarVendor(HttpVendor):
    name = "sec_edgar"
    categories = frozenset({Category.COMPANY, Category.FILINGS, Category.DOCUMENTS, Category.FACTS})

    def __init__(self, http: HttpClient, settings: Settings) -> None:
        super().__init__(http, settings)
        self._tickers: tuple[float, dict[str, fmt.TickerEntry]] | None = None
        self._tickers_lock = asyncio.Lock()

    # --- public ----------------------------------------------------------------------------------

    async def company(self, symbol: str, as_of: date) -> Result[Company]:
        entry = await self._entry(symbol)
        if isinstance(entry, Err):
            return entry
        e = entry.value
        exchange = industry = None
        subs = await self._json(SUBMISSIONS_URL.format(name=f"CIK{fmt.cik10(e.cik)}.json"), "submissions")
        if isinstance(subs, Ok) and isinstance(subs.value[0], dict):
            data = subs.value[0]
            exchanges = [x for x in data.get("exchanges") or [] if x]
            exchange = exchanges[0] if exchanges else None
            industry = data.get("sicDescription") or None
        return Ok(
            Company(
                ticker=e.ticker,
                cik=e.cik,
                name=e.name,
                exchange=exchange,
                industry=industry,
                source=self._source(
                    TICKERS_URL, note="industry is the SEC SIC description" if industry else None
                ),
            )
        )

    async def filings(
        self, symbol: str, as_of: date, forms: frozenset[str] | None = None, limit: int | None = None
    ) -> Result[list[Filing]]:
        entry = await self._entry(symbol)
        if isinstance(entry, Err):
            return entry
        e = entry.value
        url = SUBMISSIONS_URL.format(name=f"CIK{fmt.cik10(e.cik)}.json")
        got = await self._json(url, "submissions")
        if isinstance(got, Err):
            return got
        data, source = got.value
        parsed = fmt.parse_submissions(data, ticker=e.ticker, source=source, as_of=as_of)
        if isinstance(parsed, Err):
            return parsed
        wanted = {f.strip().upper() for f in forms} if forms else None

        def keep(fs: list[Filing]) -> list[Filing]:
            return [f for f in fs if wanted is None or f.form.upper() in wanted]

        out = keep(parsed.value)
        for name, start, _ in fmt.older_pages(data):
            if limit is not None and len(out) >= limit:
                break
            if start is not None and start > as_of:
                continue  # the whole page was filed after as_of
            page = await self._json(SUBMISSIONS_URL.format(name=name), "submissions")
            if isinstance(page, Err):
                return page
            older = fmt.parse_submissions(
                page.value[0], ticker=e.ticker, source=page.value[1], cik=e.cik, as_of=as_of
            )
            if isinstance(older, Err):
                return older
            out.extend(keep(older.value))
        out.sort(key=lambda f: (f.filing_date, f.accepted_at is not None, f.accepted_at), reverse=True)
        return Ok(out[:limit] if limit is not None else out)

    async def document(self, filing: Filing, as_of: date) -> Result[FilingDocument]:
        if (refused := self._refuse()) is not None:
            return refused
        if filing.filing_date > as_of:
            return Err(
                ErrorCode.INVALID_INPUT,
                f"{filing.ticker} {filing.form} was filed {filing.filing_date.isoformat()}, after the as-of "
                f"date {as_of.isoformat()}; it cannot be read at that date",
                self.name,
            )
        url = filing.url
        if url is None and filing.accession_number and filing.primary_document:
            url = fmt.archives_url(filing.cik, filing.accession_number, filing.primary_document)
        if url is None:
            return Err(
                ErrorCode.INVALID_INPUT,
                f"{filing.ticker} {filing.form} filed {filing.filing_date.isoformat()} names no primary "
                "document (no URL, accession number or document name); list the filings again to get one",
                self.name,
            )
        got = await self.http.get(url, headers=self._headers(), freshness="filings", source=self.name)
        if isinstance(got, Err):
            return got
        return Ok(
            FilingDocument(
                filing=filing.model_copy(update={"url": url}),
                format=_format_of(url),
                content=_decode(got.value.content),
                source=self._source(url),
            )
        )

    async def facts(self, symbol: str, concept: str, as_of: date) -> Result[list[Fact]]:
        entry = await self._entry(symbol)
        if isinstance(entry, Err):
            return entry
        e = entry.value
        got = await self._json(FACTS_URL.format(cik=fmt.cik10(e.cik)), "facts")
        if isinstance(got, Err):
            if got.code is ErrorCode.NOT_FOUND:  # SEC answers 404 for filers without XBRL data
                return Err(
                    ErrorCode.NO_DATA,
                    f"SEC holds no XBRL companyfacts for {e.ticker} (CIK {e.cik})",
                    self.name,
                )
            return got
        parsed = fmt.parse_facts(got.value[0], concept, ticker=e.ticker, source=got.value[1], as_of=as_of)
        if isinstance(parsed, Err):
            return parsed
        if not parsed.value:
            return Err(
                ErrorCode.NO_DATA,
                f"{e.ticker} filed no value of {concept.strip()} on or before {as_of.isoformat()}",
                self.name,
            )
        return parsed

    # --- plumbing --------------------------------------------------------------------------------

    def _user_agent(self) -> str | None:
        ua = (self.settings.sec_user_agent or "").strip()
        return ua or None

    def _refuse(self) -> Err | None:
        if self._user_agent() is None:
            return Err(ErrorCode.NOT_CONFIGURED, NO_USER_AGENT, self.name)
        return None

    def _headers(self) -> dict[str, str]:
        return {"User-Agent": self._user_agent() or ""}

    def _source(self, url: str, note: str | None = None) -> Source:
        return Source(vendor=self.name, ref=url, retrieved_at=datetime.now(UTC), note=note)

    async def _json(self, url: str, freshness: str) -> Result[tuple[Any, Source]]:
        if (refused := self._refuse()) is not None:
            return refused
        got = await self.http.get_json(url, headers=self._headers(), freshness=freshness, source=self.name)
        if isinstance(got, Err):
            return got
        return Ok((got.value, self._source(url)))

    async def _entry(self, symbol: str) -> Result[fmt.TickerEntry]:
        """The ticker's SEC entry; the ticker table is kept for the ``submissions`` freshness."""
        if (refused := self._refuse()) is not None:
            return refused
        ticker = fmt.normalize_ticker(symbol)
        async with self._tickers_lock:
            ttl = self.settings.http.freshness.get("submissions")
            if self._tickers is None or (ttl is not None and time.monotonic() - self._tickers[0] > ttl):
                got = await self._json(TICKERS_URL, "submissions")
                if isinstance(got, Err):
                    return got
                table = fmt.parse_company_tickers(got.value[0])
                if isinstance(table, Err):
                    return Err(table.code, f"{TICKERS_URL}: {table.reason}", self.name)
                self._tickers = (time.monotonic(), table.value)
            tickers = self._tickers[1]
        entry = tickers.get(ticker)
        if entry is None:
            return Err(
                ErrorCode.NOT_FOUND,
                f"{ticker} is not in SEC's ticker table (company_tickers.json); check the symbol",
                self.name,
            )
        return Ok(entry)


def _format_of(url: str) -> Literal["html", "markdown", "text"]:
    return "html" if url.lower().endswith((".htm", ".html")) else "text"


def _decode(content: bytes) -> str:
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError:  # older EDGAR documents are Latin-1 / Windows-1252
        return content.decode("latin-1")
