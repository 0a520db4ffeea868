"""Identity first: the one company a ticker names at the run's date, before any analyst runs.

Rules this module keeps (``resolve``):
- The identity is the data router's company record at the run's date (SEC ticker tables, read point
  in time by the data layer: a symbol that changed hands is the holder of that date, and is
  ambiguous when the change fell at an unknown day around it). Nothing here guesses a company.
- The run stops, with a reason naming the ticker and the date, when:
  - the symbol is malformed or not a US listing (``invalid_input`` / ``out_of_scope``, unchanged);
  - no source knows it at the date (``not_found``);
  - it is ambiguous at the date (``invalid_input``, naming both companies and their CIKs);
  - it is an ETF, ETN or fund (``out_of_scope``): the desk reviews one operating company. A fund is
    what the listing directory flags as an ETF, or an SEC name with a fund word (Fund, ETF, ETN), a
    municipal-fund word (Municipal, MuniYield…), an ETP sponsor (iShares, ProShares, SPDR, Grayscale…),
    a trust holding a metal, commodity, currency or coin ("iShares Silver Trust", "Bitcoin Trust"), or
    a closed-end fund's "Income/Bond/Term/Rate/Credit … Trust|Portfolio" (a real-estate name, e.g.
    "Office Properties Income Trust", is a company). Royalty trusts and REITs file as companies and
    pass. The directory flag is the primary signal; the name rule catches funds it does not list;
  - it has no SEC CIK or no name (``not_found``): the desk's filings and facts need the SEC identity;
  - the company record cannot be read (the source's own code, with its reason).
- What the data layer notes about the identity (re-registered under a new CIK, only one SEC table
  lists the ticker) stays on the ``Identity``; a record from a live vendor (today's table, not a
  dated one) says so, since a symbol may have changed hands since the run's date.
"""

from __future__ import annotations

import re
from datetime import date

from findesk.agents.roles.trading.models import Identity
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import Company
from findesk.data.router import DataRouter
from findesk.data.symbols import normalize_symbol

_FUND_WORDS = re.compile(r"\b(funds?|etfs?|etns?|muni(cipal|yield|holdings|assets|vest|enhanced)?)\b", re.I)
_FUND_TRUST = re.compile(
    r"\b(income|bond|term|rate|credit|yield|dividend|duration|municipal)\s+(trust|portfolio)\b", re.I
)
# exchange-traded products sponsored by fund issuers, and trusts holding a metal, commodity or coin
_FUND_SPONSOR = re.compile(
    r"\b(ishares|proshares|spdr|graniteshares|currencyshares|grayscale|teucrium|direxion|strats|gabelli)\b",
    re.I,
)
_ASSET_TRUST = re.compile(
    r"\b(gold|silver|platinum|palladium|commodity|commodities|bitcoin|ether|ethereum|crypto|currency)\b"
    r".*\btrust\b",
    re.I,
)
# an "Income Trust" that owns buildings is a REIT: a company the desk reviews
_REAL_ESTATE = re.compile(r"\b(propert(y|ies)|realty|real estate|reit|mortgage|hotels?|residential)\b", re.I)
SNAPSHOT = "snapshot"


def fund_name(name: str | None) -> bool:
    """Whether an SEC or directory name is evidently a fund's (the module's rules)."""
    if not name:
        return False
    if _FUND_WORDS.search(name) or _FUND_SPONSOR.search(name) or _ASSET_TRUST.search(name):
        return True
    return _FUND_TRUST.search(name) is not None and _REAL_ESTATE.search(name) is None


def identity_of(company: Company, as_of: date) -> Result[Identity]:
    """The desk's ``Identity`` of a company record, or why the desk cannot review it."""
    ticker, day = company.ticker, as_of.isoformat()
    named = f"{ticker} ({company.name})" if company.name else ticker
    if company.is_etf or fund_name(company.name):
        kind = "an ETF" if company.is_etf else "a fund"
        return Err(
            ErrorCode.OUT_OF_SCOPE,
            f"{named} is {kind} on {day}, not a company: the trading desk reviews one company's stock. "
            "For funds use `findesk etf-weekly`; for a company, pass its own ticker",
        )
    if company.cik is None:
        return Err(
            ErrorCode.NOT_FOUND,
            f"{named} has no SEC CIK in the ticker tables on {day}: the desk reads the company's filings "
            "and XBRL facts by CIK, so it cannot review a listing the SEC tables do not name",
        )
    if not company.name:
        return Err(
            ErrorCode.NOT_FOUND,
            f"{ticker} (CIK {company.cik}) has no company name in the SEC tables on {day}; check the ticker",
        )
    notes = list(company.notes)
    if company.source.vendor != SNAPSHOT:
        notes.append(
            f"read from {company.source.vendor}'s current ticker table, not one dated at {day}: a symbol "
            "that changed hands since then would name the later company"
        )
    return Ok(
        Identity(
            ticker=ticker,
            cik=company.cik,
            name=company.name,
            exchange=company.exchange,
            sector=company.sector,
            industry=company.industry,
            source=company.source.cite(),
            notes=notes,
        )
    )


async def resolve(router: DataRouter, ticker: str, as_of: date) -> Result[Identity]:
    """The one company ``ticker`` names on ``as_of``, or an ``Err`` that stops the run (module rules)."""
    checked = normalize_symbol(ticker)
    if isinstance(checked, Err):
        return checked
    symbol, day = checked.value, as_of.isoformat()
    found = await router.company(symbol, as_of)
    if isinstance(found, Ok):
        return identity_of(found.value, as_of)
    if found.code is ErrorCode.NOT_FOUND:
        reason = f"{symbol} names no company known on {day}: {found.reason}"
    elif found.code is ErrorCode.INVALID_INPUT:
        reason = f"{symbol} does not name one company on {day}: {found.reason}"
    else:
        reason = f"the company {symbol} names on {day} could not be read: {found.reason}"
    return Err(found.code, reason, found.source, dict(found.details))
