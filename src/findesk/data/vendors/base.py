"""The vendor interface.

Rules every vendor keeps:
- Never raises for a data problem: every method returns ``Ok`` or ``Err`` (``findesk.core.result``).
- Point in time by construction: nothing dated after ``as_of`` is returned (prices by bar date,
  filings by filing date, facts by filed date, news and posts by publish time).
- Serves only the categories it lists in ``categories``; the default methods answer
  ``not_configured`` so a mis-wired chain is visible, never silent.
- ``news_search`` (``Category.NEWS_SEARCH``) keeps one matching rule whatever the vendor:
  ``term_pattern`` (any term as a whole word or phrase, case folded, in the title or summary), and
  the window from the New York start of ``since`` to the New York end of ``as_of``.
- A news story is known by its ``story_keys`` (URL, normalized title) wherever repeats are dropped
  (the snapshot's store, the topic search tool), so both agree on what a repeat is.
- A live vendor (``HttpVendor``) talks only through the shared ``HttpClient`` it is given and reads
  its keys from ``Settings``; it is built as ``cls(http, settings)`` (``data.registry``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import date
from enum import StrEnum
from typing import TYPE_CHECKING, TypeVar

from findesk.core.dates import visible_at
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import (
    Company,
    EarningsCalendar,
    Fact,
    Filing,
    FilingDocument,
    MacroSeries,
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

if TYPE_CHECKING:
    from findesk.core.config import Settings
    from findesk.data.http.client import HttpClient

_Published = TypeVar("_Published", NewsItem, SocialPost)


class Category(StrEnum):
    """Data categories; the router holds one vendor chain per category."""

    COMPANY = "company"  # ticker -> CIK, name, exchange
    QUOTE = "quote"
    BARS = "bars"
    FILINGS = "filings"  # filing lists (with 8-K item codes)
    DOCUMENTS = "documents"  # a filing's primary document
    FACTS = "facts"  # XBRL companyfacts
    MACRO = "macro"
    NEWS = "news"  # a ticker's news
    NEWS_SEARCH = "news_search"  # full-text news search by topic words, across every ticker
    REDDIT = "reddit"
    STOCKTWITS = "stocktwits"
    ONCHAIN = "onchain"
    TOKENS = "tokens"
    TVL = "tvl"
    SANCTIONS = "sanctions"
    TRANSCRIPTS = "transcripts"  # earnings-call transcripts
    EARNINGS_CALENDAR = "earnings_calendar"  # earnings dates held and scheduled
    FUNDAMENTALS = "fundamentals"  # quarterly statements and index peers (research desk)
    HOLDERS = "holders"  # a token's largest holders (Dune; live only)
    # Served by the snapshot only: no live vendor has them, so live mode has no default chain for them
    BALANCES = "balances"  # an address's ETH balance as last read
    MIXERS = "mixers"  # known mixer contracts and recorded mixer withdrawals
    TOKEN_PRICES = "token_prices"  # a token's dated price points
    FUNDS = "funds"  # the ETF universe's price panel and fund profiles (weekly ETF analyst)
    # whole-market views (scanner, backtests): every listed stock's session, the S&P 500 panel
    UNIVERSE = "universe"
    # the day's gainers as a ``ListedSession``: a live screener's list (Yahoo's day_gainers, current
    # session only) or the snapshot's whole session table; the caller ranks and filters either
    DAY_GAINERS = "day_gainers"


class Vendor:
    """Base class. Subclasses set ``name`` and ``categories`` and override what they serve."""

    name: str = "vendor"
    categories: frozenset[Category] = frozenset()

    def _not_served(self, category: Category) -> Err:
        return Err(ErrorCode.NOT_CONFIGURED, f"{self.name} does not serve {category.value}", self.name)

    async def company(self, symbol: str, as_of: date) -> Result[Company]:
        return self._not_served(Category.COMPANY)

    async def quote(self, symbol: str, as_of: date) -> Result[Quote]:
        return self._not_served(Category.QUOTE)

    async def bars(self, symbol: str, start: date, end: date, as_of: date) -> Result[PriceBars]:
        return self._not_served(Category.BARS)

    async def filings(
        self, symbol: str, as_of: date, forms: frozenset[str] | None = None, limit: int | None = None
    ) -> Result[list[Filing]]:
        """Filings filed on or before ``as_of``, newest first. ``forms`` matches exactly ("8-K")."""
        return self._not_served(Category.FILINGS)

    async def document(self, filing: Filing, as_of: date) -> Result[FilingDocument]:
        return self._not_served(Category.DOCUMENTS)

    async def facts(self, symbol: str, concept: str, as_of: date) -> Result[list[Fact]]:
        """Every reported value of ``concept`` filed on or before ``as_of`` (all units)."""
        return self._not_served(Category.FACTS)

    async def macro(self, series_id: str, as_of: date, start: date | None = None) -> Result[MacroSeries]:
        return self._not_served(Category.MACRO)

    async def news(self, symbol: str, as_of: date, limit: int = 20) -> Result[list[NewsItem]]:
        return self._not_served(Category.NEWS)

    async def news_search(
        self, query_terms: list[str], as_of: date, since: date, limit: int = 20
    ) -> Result[list[NewsItem]]:
        """Articles whose title or summary has any of ``query_terms`` (``term_pattern``), published
        from the New York start of ``since`` to the New York end of ``as_of``, newest first."""
        return self._not_served(Category.NEWS_SEARCH)

    async def reddit_posts(self, symbol: str, as_of: date, limit: int = 50) -> Result[list[SocialPost]]:
        return self._not_served(Category.REDDIT)

    async def stocktwits_posts(self, symbol: str, as_of: date, limit: int = 30) -> Result[list[SocialPost]]:
        return self._not_served(Category.STOCKTWITS)

    async def onchain_txs(self, address: str, as_of: date, limit: int = 100) -> Result[list[OnchainTx]]:
        return self._not_served(Category.ONCHAIN)

    async def token(self, token_id: str, as_of: date) -> Result[TokenInfo]:
        return self._not_served(Category.TOKENS)

    async def tvl(self, protocol: str, as_of: date) -> Result[ProtocolTVL]:
        return self._not_served(Category.TVL)

    async def sanctions(self, query: str, as_of: date) -> Result[SanctionsScreen]:
        """Screen an address or a name against the sanctions lists known at ``as_of``."""
        return self._not_served(Category.SANCTIONS)

    async def transcripts(self, symbol: str, as_of: date, limit: int = 4) -> Result[list[Transcript]]:
        """Earnings calls held on or before ``as_of``, newest first."""
        return self._not_served(Category.TRANSCRIPTS)

    async def earnings_calendar(self, symbol: str, as_of: date) -> Result[EarningsCalendar]:
        """The latest earnings date on or before ``as_of`` and the next one as known at ``as_of``."""
        return self._not_served(Category.EARNINGS_CALENDAR)

    async def quarterly_fundamentals(self, symbol: str, as_of: date) -> Result[QuarterlyFundamentals]:
        """Quarters reported on or before ``as_of``, newest first."""
        return self._not_served(Category.FUNDAMENTALS)

    async def index_peers(self, symbol: str, as_of: date) -> Result[IndexPeers]:
        """Index members of the same sub-industry, from the list known at ``as_of``."""
        return self._not_served(Category.FUNDAMENTALS)

    async def eth_balance(self, address: str, as_of: date) -> Result[EthBalance]:
        """The ETH balance of ``address`` as last read on or before ``as_of``."""
        return self._not_served(Category.BALANCES)

    async def mixer_transfers(self, address: str, as_of: date) -> Result[list[OnchainTx]]:
        """Recorded mixer withdrawals paid to ``address`` on or before ``as_of`` (empty when none)."""
        return self._not_served(Category.MIXERS)

    async def mixer_contracts(self, as_of: date) -> Result[MixerList]:
        """The known mixer contracts (e.g. Tornado Cash pools) as listed on or before ``as_of``."""
        return self._not_served(Category.MIXERS)

    async def token_prices(self, token_id: str, as_of: date) -> Result[TokenPriceHistory]:
        """A token's dated price points known on or before ``as_of``, oldest first."""
        return self._not_served(Category.TOKEN_PRICES)

    async def large_holders(self, token: str, as_of: date, limit: int = 10) -> Result[TokenHolders]:
        """The largest holders of ``token`` (a contract address or symbol) as of ``as_of``."""
        return self._not_served(Category.HOLDERS)

    async def etf_panel(self, as_of: date, start: date) -> Result[PricePanel]:
        """Daily bars of the whole ETF universe, sessions ``start`` to ``as_of`` inclusive."""
        return self._not_served(Category.FUNDS)

    async def fund_profiles(self, as_of: date) -> Result[dict[str, FundProfile]]:
        """Every fund's profile by ticker, leaving out funds that started after ``as_of``."""
        return self._not_served(Category.FUNDS)

    async def listed_session(self, session: date, as_of: date) -> Result[ListedSession]:
        """Every listed stock's as-traded close, % change and volume on the last session on or before
        ``session`` and ``as_of``, with the latest month-end market caps on or before it."""
        return self._not_served(Category.UNIVERSE)

    async def equity_panel(self, as_of: date, start: date) -> Result[PricePanel]:
        """Adjusted daily bars of the S&P 500 panel, sessions ``start`` to ``as_of`` inclusive."""
        return self._not_served(Category.UNIVERSE)

    async def listed_bars(self, symbol: str, start: date, end: date, as_of: date) -> Result[PriceBars]:
        """Any listed stock's as-traded closes and volumes from the all-listed-stocks table (no
        open/high/low): history for a name the adjusted price files do not cover."""
        return self._not_served(Category.UNIVERSE)

    async def day_gainers(self, session: date, as_of: date) -> Result[ListedSession]:
        """Candidates for the day's top gainers on the last session on or before ``session`` and
        ``as_of``, in the ``ListedSession`` shape (with ``exchange_codes``/``etf_flags`` where known).
        A live vendor that only lists the current session answers ``no_data`` for an earlier one."""
        return self._not_served(Category.DAY_GAINERS)

    async def index_constituents(self, as_of: date) -> Result[IndexConstituents]:
        """The latest S&P 500 constituents list dated on or before ``as_of``."""
        return self._not_served(Category.FUNDAMENTALS)

    async def aclose(self) -> None:
        """Release resources (HTTP connections). Default: nothing to release."""


class HttpVendor(Vendor):
    """Base class of the live vendors: the shared HTTP client and the settings (keys, cache paths)."""

    def __init__(self, http: HttpClient, settings: Settings) -> None:
        self.http = http
        self.settings = settings


def newest_visible(
    read: Result[list[_Published]], as_of: date, limit: int, vendor: str, none_visible: Callable[[int], str]
) -> Result[list[_Published]]:
    """The newest ``limit`` items of ``read`` published on or before the New York end of ``as_of``,
    newest first. An ``Err`` passes through; with none visible, ``no_data`` whose reason is
    ``none_visible(how many items were read)``."""
    if isinstance(read, Err):
        return read
    visible = [item for item in read.value if visible_at(item.published_at, as_of)]
    if not visible:
        return Err(ErrorCode.NO_DATA, none_visible(len(read.value)), vendor)
    visible.sort(key=lambda item: item.published_at, reverse=True)
    return Ok(visible[:limit])


def term_pattern(terms: Iterable[str]) -> re.Pattern[str] | None:
    """Any of ``terms`` as a whole word or phrase, case folded (``"fed"`` finds "Fed", not "FedEx";
    ``"s&p"`` finds "S&P 500"); None when no term is left after trimming. Longest first, so a phrase
    wins over a word it starts with."""
    words = sorted({" ".join(t.lower().split()) for t in terms} - {""}, key=lambda w: (-len(w), w))
    if not words:
        return None
    # lookarounds rather than \b: a term may start or end with a non-word character ("u.s.", "s&p")
    alternatives = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in words)  # a line break is a space
    return re.compile(r"(?<!\w)(?:" + alternatives + r")(?!\w)", re.IGNORECASE)


_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def story_keys(item: NewsItem) -> tuple[str, str]:
    """(URL, title) identity of a news story: the URL trimmed, lower case, without a trailing slash;
    the title lower case with punctuation and spacing set aside. Either is "" when there is none."""
    url = (item.url or "").strip().rstrip("/").lower()
    return url, " ".join(_NOT_ALNUM.sub(" ", item.title.lower()).split())
