"""The vendor router: one explicit vendor chain per data category.

Rules:
- Symbols are checked before any vendor is called (``findesk.data.symbols``): a non-US listing is
  ``out_of_scope`` and no vendor sees it.
- A chain falls through to the next vendor only on typed errors that another vendor might not have
  (unavailable, rate_limited, not_configured, no_data, not_found, timeout, bad_response); never on
  caller mistakes, and never to a vendor the chain does not list.
- When no vendor has the data the answer is ``no_data`` (``not_found`` when every vendor said the
  entity is unknown), with every vendor's reason and an explicit instruction not to estimate.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import date
from typing import TypeVar

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats.sec import material_events
from findesk.data.models import (
    Company,
    EarningsCalendar,
    Fact,
    Filing,
    FilingDocument,
    MacroSeries,
    MaterialEvent,
    NewsItem,
    OnchainTx,
    PriceBars,
    ProtocolTVL,
    Quote,
    SanctionsScreen,
    SocialPost,
    TokenInfo,
    Transcript,
)
from findesk.data.models.fundamentals import IndexPeers, QuarterlyFundamentals
from findesk.data.models.funds import FundProfile, PricePanel
from findesk.data.models.market_scan import IndexConstituents, ListedSession
from findesk.data.models.onchain_risk import EthBalance, MixerList, TokenHolders, TokenPriceHistory
from findesk.data.symbols import normalize_symbol
from findesk.data.vendors.base import Category, Vendor

T = TypeVar("T")

DO_NOT_ESTIMATE = "Do not estimate or invent this value; report it as unavailable."
_SOURCE_PROBLEMS = (ErrorCode.UNAVAILABLE, ErrorCode.TIMEOUT, ErrorCode.RATE_LIMITED, ErrorCode.BAD_RESPONSE)


class DataRouter:
    def __init__(self, chains: Mapping[Category, Sequence[Vendor]]) -> None:
        self.chains: dict[Category, list[Vendor]] = {cat: list(vs) for cat, vs in chains.items()}

    def chain_names(self, category: Category) -> list[str]:
        return [v.name for v in self.chains.get(category, [])]

    async def _route(
        self, category: Category, what: str, call: Callable[[Vendor], Awaitable[Result[T]]]
    ) -> Result[T]:
        chain = self.chains.get(category, [])
        if not chain:
            return Err(
                ErrorCode.NOT_CONFIGURED, f"no vendor is configured for {category.value}; {DO_NOT_ESTIMATE}"
            )
        errors: list[tuple[str, Err]] = []
        for vendor in chain:
            result = await call(vendor)
            if isinstance(result, Ok):
                return result
            if not result.code.is_fallthrough:
                return result
            errors.append((vendor.name, result))
        return _combine(what, errors)

    # ---- market ---------------------------------------------------------------------------------
    async def company(self, symbol: str, as_of: date) -> Result[Company]:
        return await self._symbol_route(
            Category.COMPANY, symbol, "company details", lambda v, s: v.company(s, as_of)
        )

    async def quote(self, symbol: str, as_of: date) -> Result[Quote]:
        return await self._symbol_route(Category.QUOTE, symbol, "a quote", lambda v, s: v.quote(s, as_of))

    async def bars(self, symbol: str, start: date, end: date, as_of: date) -> Result[PriceBars]:
        if start > end:
            return Err(ErrorCode.INVALID_INPUT, f"start {start} is after end {end}")
        return await self._symbol_route(
            Category.BARS, symbol, "daily bars", lambda v, s: v.bars(s, start, end, as_of)
        )

    # ---- filings --------------------------------------------------------------------------------
    async def filings(
        self, symbol: str, as_of: date, forms: frozenset[str] | None = None, limit: int | None = None
    ) -> Result[list[Filing]]:
        if limit is not None and limit < 1:
            return Err(ErrorCode.INVALID_INPUT, f"limit must be at least 1 (got {limit})")
        return await self._symbol_route(
            Category.FILINGS, symbol, "filings", lambda v, s: v.filings(s, as_of, forms, limit)
        )

    async def document(self, filing: Filing, as_of: date) -> Result[FilingDocument]:
        if filing.filing_date > as_of:
            return Err(
                ErrorCode.INVALID_INPUT,
                f"the filing of {filing.filing_date} is after the as-of date {as_of}; it was not public yet",
            )
        return await self._route(
            Category.DOCUMENTS,
            f"the {filing.form} document of {filing.ticker} filed {filing.filing_date}",
            lambda v: v.document(filing, as_of),
        )

    async def material_events(self, symbol: str, as_of: date, limit: int = 10) -> Result[list[MaterialEvent]]:
        """Each item of the newest ``limit`` 8-K / 8-K/A filings, with its official title."""
        found = await self.filings(symbol, as_of, frozenset({"8-K", "8-K/A"}), limit)
        if isinstance(found, Err):
            return found
        return Ok(material_events(found.value))

    async def facts(self, symbol: str, concept: str, as_of: date) -> Result[list[Fact]]:
        if not concept.strip():
            return Err(ErrorCode.INVALID_INPUT, "empty XBRL concept; pass e.g. Revenues or NetIncomeLoss")
        return await self._symbol_route(
            Category.FACTS,
            symbol,
            f"XBRL facts for {concept}",
            lambda v, s: v.facts(s, concept.strip(), as_of),
        )

    # ---- macro, news, social ---------------------------------------------------------------------
    async def macro(self, series_id: str, as_of: date, start: date | None = None) -> Result[MacroSeries]:
        series = series_id.strip().upper()
        if not series or not series.replace("_", "").isalnum():
            return Err(
                ErrorCode.INVALID_INPUT, f"{series_id!r} is not a FRED series id (e.g. DGS10, CPIAUCSL)"
            )
        return await self._route(
            Category.MACRO, f"the macro series {series}", lambda v: v.macro(series, as_of, start)
        )

    async def news(self, symbol: str, as_of: date, limit: int = 20) -> Result[list[NewsItem]]:
        return await self._symbol_route(Category.NEWS, symbol, "news", lambda v, s: v.news(s, as_of, limit))

    async def news_search(
        self, query_terms: list[str], as_of: date, since: date, limit: int = 20
    ) -> Result[list[NewsItem]]:
        """Articles of any ticker (or none) whose title or summary has one of ``query_terms`` (whole
        words, case folded), published from the New York start of ``since`` to the end of ``as_of``,
        newest first. Terms are trimmed and repeats dropped, first spelling kept, order kept (a live
        vendor that caps the query keeps the first ones)."""
        terms = _distinct_terms(query_terms)
        if not terms:
            return Err(ErrorCode.INVALID_INPUT, "no search terms; pass words such as gold or tariffs")
        if since > as_of:
            return Err(ErrorCode.INVALID_INPUT, f"since {since} is after as_of {as_of}; pass an earlier one")
        if limit < 1:
            return Err(ErrorCode.INVALID_INPUT, f"limit must be at least 1 (got {limit})")
        shown = ", ".join(terms[:6]) + (f" and {len(terms) - 6} more" if len(terms) > 6 else "")
        return await self._route(
            Category.NEWS_SEARCH,
            f"news mentioning {shown} published {since.isoformat()}..{as_of.isoformat()}",
            lambda v: v.news_search(terms, as_of, since, limit),
        )

    async def reddit_posts(self, symbol: str, as_of: date, limit: int = 50) -> Result[list[SocialPost]]:
        return await self._symbol_route(
            Category.REDDIT, symbol, "Reddit posts", lambda v, s: v.reddit_posts(s, as_of, limit)
        )

    async def stocktwits_posts(self, symbol: str, as_of: date, limit: int = 30) -> Result[list[SocialPost]]:
        return await self._symbol_route(
            Category.STOCKTWITS, symbol, "Stocktwits posts", lambda v, s: v.stocktwits_posts(s, as_of, limit)
        )

    async def transcripts(self, symbol: str, as_of: date, limit: int = 4) -> Result[list[Transcript]]:
        if limit < 1:
            return Err(ErrorCode.INVALID_INPUT, f"limit must be at least 1 (got {limit})")
        return await self._symbol_route(
            Category.TRANSCRIPTS,
            symbol,
            "earnings-call transcripts",
            lambda v, s: v.transcripts(s, as_of, limit),
        )

    async def earnings_calendar(self, symbol: str, as_of: date) -> Result[EarningsCalendar]:
        return await self._symbol_route(
            Category.EARNINGS_CALENDAR,
            symbol,
            "the earnings calendar",
            lambda v, s: v.earnings_calendar(s, as_of),
        )

    # ---- crypto and compliance -------------------------------------------------------------------
    async def onchain_txs(self, address: str, as_of: date, limit: int = 100) -> Result[list[OnchainTx]]:
        return await self._route(
            Category.ONCHAIN,
            f"transactions of {address}",
            lambda v: v.onchain_txs(address.strip(), as_of, limit),
        )

    async def token(self, token_id: str, as_of: date) -> Result[TokenInfo]:
        return await self._route(
            Category.TOKENS, f"token {token_id}", lambda v: v.token(token_id.strip(), as_of)
        )

    async def tvl(self, protocol: str, as_of: date) -> Result[ProtocolTVL]:
        return await self._route(Category.TVL, f"TVL of {protocol}", lambda v: v.tvl(protocol.strip(), as_of))

    async def sanctions(self, query: str, as_of: date) -> Result[SanctionsScreen]:
        if not query.strip():
            return Err(ErrorCode.INVALID_INPUT, "empty sanctions query; pass an address or a name")
        return await self._route(
            Category.SANCTIONS, "a sanctions screen", lambda v: v.sanctions(query.strip(), as_of)
        )

    # ---- research desk: quarterly fundamentals and index peers ------------------------------------
    async def quarterly_fundamentals(self, symbol: str, as_of: date) -> Result[QuarterlyFundamentals]:
        return await self._symbol_route(
            Category.FUNDAMENTALS,
            symbol,
            "quarterly fundamentals",
            lambda v, s: v.quarterly_fundamentals(s, as_of),
        )

    async def index_peers(self, symbol: str, as_of: date) -> Result[IndexPeers]:
        return await self._symbol_route(
            Category.FUNDAMENTALS, symbol, "index peers", lambda v, s: v.index_peers(s, as_of)
        )

    # ---- weekly ETF analyst: the ETF universe ---------------------------------------------------
    async def etf_panel(self, as_of: date, start: date) -> Result[PricePanel]:
        """Adjusted daily bars of every ETF with a bar from ``start`` to ``as_of``, as matrices."""
        if start > as_of:
            return Err(ErrorCode.INVALID_INPUT, f"start {start} is after as_of {as_of}; pass an earlier one")
        return await self._route(
            Category.FUNDS, f"the ETF panel from {start} to {as_of}", lambda v: v.etf_panel(as_of, start)
        )

    async def fund_profiles(self, as_of: date) -> Result[dict[str, FundProfile]]:
        """Each fund's profile (name, category, family, size, fees) by ticker, funds started by ``as_of``."""
        return await self._route(Category.FUNDS, "fund profiles", lambda v: v.fund_profiles(as_of))

    # ---- market scanner and backtests: whole-market views ----------------------------------------
    async def listed_session(self, session: date, as_of: date) -> Result[ListedSession]:
        """Every US-listed stock on the last session on or before ``session`` and ``as_of`` (as
        traded: close, % change, volume; month-end market caps; names and sectors), as arrays."""
        return await self._route(
            Category.UNIVERSE,
            f"the all-listed-stocks session of {min(session, as_of)}",
            lambda v: v.listed_session(session, as_of),
        )

    async def listed_bars(self, symbol: str, start: date, end: date, as_of: date) -> Result[PriceBars]:
        """A listed stock's as-traded closes and volumes from the all-listed-stocks table (unadjusted, no
        open/high/low): the history of a name the ``bars`` chain does not cover (most NASDAQ small caps
        offline). Never mixed into ``bars``."""
        if start > end:
            return Err(ErrorCode.INVALID_INPUT, f"start {start} is after end {end}")
        return await self._route(
            Category.UNIVERSE,
            f"{symbol}'s as-traded closes from {start} to {min(end, as_of)}",
            lambda v: v.listed_bars(symbol, start, end, as_of),
        )

    async def day_gainers(self, session: date, as_of: date) -> Result[ListedSession]:
        """Candidates for the day's top gainers on the last session on or before ``session`` and
        ``as_of``, as a ``ListedSession`` of the same shape whatever the vendor: a live screener's
        list (Yahoo's day_gainers: the current session's top movers across every US exchange; an
        earlier session is ``no_data`` there) or the snapshot's whole session table. The caller ranks
        and filters (by ``exchange_codes`` for Nasdaq's tiers, ``etf_flags``); ``notes`` say which."""
        return await self._route(
            Category.DAY_GAINERS,
            f"the day gainers of {min(session, as_of)}",
            lambda v: v.day_gainers(session, as_of),
        )

    async def equity_panel(self, as_of: date, start: date) -> Result[PricePanel]:
        """Adjusted daily bars of the S&P 500 panel, sessions ``start`` to ``as_of``, as matrices."""
        if start > as_of:
            return Err(ErrorCode.INVALID_INPUT, f"start {start} is after as_of {as_of}; pass an earlier one")
        return await self._route(
            Category.UNIVERSE,
            f"the S&P 500 panel from {start} to {as_of}",
            lambda v: v.equity_panel(as_of, start),
        )

    async def index_constituents(self, as_of: date) -> Result[IndexConstituents]:
        """The S&P 500 members (GICS sector and sub-industry) of the latest list dated by ``as_of``."""
        return await self._route(
            Category.FUNDAMENTALS,
            f"the S&P 500 constituents as of {as_of}",
            lambda v: v.index_constituents(as_of),
        )

    # ---- research desk: balances, mixers, large holders ----------------------------------------
    async def eth_balance(self, address: str, as_of: date) -> Result[EthBalance]:
        return await self._route(
            Category.BALANCES,
            f"the ETH balance of {address.strip()}",
            lambda v: v.eth_balance(address.strip(), as_of),
        )

    async def mixer_transfers(self, address: str, as_of: date) -> Result[list[OnchainTx]]:
        return await self._route(
            Category.MIXERS,
            f"mixer withdrawals to {address.strip()}",
            lambda v: v.mixer_transfers(address.strip(), as_of),
        )

    async def mixer_contracts(self, as_of: date) -> Result[MixerList]:
        return await self._route(Category.MIXERS, "known mixer contracts", lambda v: v.mixer_contracts(as_of))

    async def token_prices(self, token_id: str, as_of: date) -> Result[TokenPriceHistory]:
        return await self._route(
            Category.TOKEN_PRICES,
            f"prices of {token_id.strip()}",
            lambda v: v.token_prices(token_id.strip(), as_of),
        )

    async def large_holders(self, token: str, as_of: date, limit: int = 10) -> Result[TokenHolders]:
        if not token.strip() or not 1 <= limit <= 100:
            return Err(ErrorCode.INVALID_INPUT, f"give a token and a limit of 1-100 (got {token!r}, {limit})")
        return await self._route(
            Category.HOLDERS,
            f"the largest holders of {token.strip()}",
            lambda v: v.large_holders(token.strip(), as_of, limit),
        )

    async def aclose(self) -> None:
        seen: set[int] = set()
        for chain in self.chains.values():
            for vendor in chain:
                if id(vendor) not in seen:
                    seen.add(id(vendor))
                    await vendor.aclose()

    async def _symbol_route(
        self,
        category: Category,
        symbol: str,
        what: str,
        call: Callable[[Vendor, str], Awaitable[Result[T]]],
    ) -> Result[T]:
        checked = normalize_symbol(symbol)
        if isinstance(checked, Err):
            return checked
        sym = checked.value
        return await self._route(category, f"{what} for {sym}", lambda v: call(v, sym))


def _distinct_terms(terms: Sequence[str]) -> list[str]:
    """Terms with whitespace collapsed, empty ones and case-folded repeats dropped, first kept, in order."""
    seen: dict[str, str] = {}
    for term in terms:
        cleaned = " ".join(term.split())
        if cleaned:
            seen.setdefault(cleaned.lower(), cleaned)
    return list(seen.values())


def _combine(what: str, errors: list[tuple[str, Err]]) -> Err:
    tried = "; ".join(f"{name}: {e.code.value} ({e.reason})" for name, e in errors)
    details = {"tried": [{"vendor": n, **e.to_dict()} for n, e in errors]}
    if len(errors) == 1:
        name, only = errors[0]
        return Err(only.code, f"{only.reason.rstrip('.')}. {DO_NOT_ESTIMATE}", only.source or name, details)
    codes = {e.code for _, e in errors}
    problem = next((e for _, e in errors if e.code in _SOURCE_PROBLEMS), None)
    if problem is not None:
        return Err(
            problem.code, f"no vendor could provide {what} — {tried}. {DO_NOT_ESTIMATE}", None, details
        )
    code = ErrorCode.NOT_FOUND if codes == {ErrorCode.NOT_FOUND} else ErrorCode.NO_DATA
    return Err(code, f"no vendor has {what} — {tried}. {DO_NOT_ESTIMATE}", None, details)
