"""The snapshot vendor: everything ``../shared/snapshot`` holds, point in time.

Rules: nothing dated after ``as_of`` is returned (see the snapshot README's point-in-time rules);
stores are synchronous and thread-safe and run in worker threads so a cold file load never blocks
the event loop; the same typed models as the live vendors come out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any, TypeVar

from findesk.core.result import Err, ErrorCode, Result
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
from findesk.data.vendors.base import Category, Vendor
from findesk.data.vendors.snapshot.files import Lazy, SnapshotFiles

T = TypeVar("T")


class SnapshotVendor(Vendor):
    name = "snapshot"
    categories = frozenset(Category)

    def __init__(self, root: Path, cache_dir: Path | None = None, index_dir: Path | None = None) -> None:
        self.files = SnapshotFiles(root, cache_dir, index_dir)
        # Imports are local so that loading one store never imports the others' dependencies.
        self._sec = Lazy(self._make_sec)
        self._prices = Lazy(self._make_prices)
        self._macro = Lazy(self._make_macro)
        self._news = Lazy(self._make_news)
        self._social = Lazy(self._make_social)
        self._crypto = Lazy(self._make_crypto)
        self._sanctions = Lazy(self._make_sanctions)
        self._transcripts = Lazy(self._make_transcripts)
        self._fundamentals = Lazy(self._make_fundamentals)
        self._mixers = Lazy(self._make_mixers)
        self._balances = Lazy(self._make_balances)
        self._token_prices = Lazy(self._make_token_prices)
        self._funds = Lazy(self._make_funds)
        self._listed = Lazy(self._make_listed)
        self._sp500 = Lazy(self._make_sp500)

    def _make_sec(self) -> Any:
        from findesk.data.vendors.snapshot.sec import SecStore

        return SecStore(self.files)

    def _make_prices(self) -> Any:
        from findesk.data.vendors.snapshot.prices import PriceStore

        return PriceStore(self.files)

    def _make_macro(self) -> Any:
        from findesk.data.vendors.snapshot.macro import MacroStore

        return MacroStore(self.files)

    def _make_news(self) -> Any:
        from findesk.data.vendors.snapshot.news import NewsStore

        return NewsStore(self.files)

    def _make_social(self) -> Any:
        from findesk.data.vendors.snapshot.social import SocialStore

        return SocialStore(self.files)

    def _make_crypto(self) -> Any:
        from findesk.data.vendors.snapshot.crypto import CryptoStore

        return CryptoStore(self.files)

    def _make_sanctions(self) -> Any:
        from findesk.data.vendors.snapshot.sanctions import SanctionsStore

        return SanctionsStore(self.files)

    def _make_transcripts(self) -> Any:
        from findesk.data.vendors.snapshot.transcripts import TranscriptStore

        return TranscriptStore(self.files)

    async def _run(self, fn: Callable[..., Result[T]], *args: Any) -> Result[T]:
        try:
            return await asyncio.to_thread(fn, *args)
        except (OSError, ValueError, KeyError) as exc:  # a damaged or missing snapshot file
            return Err(
                ErrorCode.UNAVAILABLE, f"snapshot file problem: {type(exc).__name__}: {exc}", self.name
            )

    async def company(self, symbol: str, as_of: date) -> Result[Company]:
        return await self._run(lambda: self._sec.get().company(symbol, as_of))

    async def quote(self, symbol: str, as_of: date) -> Result[Quote]:
        return await self._run(lambda: self._prices.get().quote(symbol, as_of))

    async def bars(self, symbol: str, start: date, end: date, as_of: date) -> Result[PriceBars]:
        return await self._run(lambda: self._prices.get().bars(symbol, start, end, as_of))

    async def listed_bars(self, symbol: str, start: date, end: date, as_of: date) -> Result[PriceBars]:
        return await self._run(lambda: self._prices.get().listed_bars(symbol, start, end, as_of))

    async def filings(
        self, symbol: str, as_of: date, forms: frozenset[str] | None = None, limit: int | None = None
    ) -> Result[list[Filing]]:
        return await self._run(lambda: self._sec.get().filings(symbol, as_of, forms, limit))

    async def document(self, filing: Filing, as_of: date) -> Result[FilingDocument]:
        return await self._run(lambda: self._sec.get().document(filing, as_of))

    async def facts(self, symbol: str, concept: str, as_of: date) -> Result[list[Fact]]:
        return await self._run(lambda: self._sec.get().facts(symbol, concept, as_of))

    async def macro(self, series_id: str, as_of: date, start: date | None = None) -> Result[MacroSeries]:
        return await self._run(lambda: self._macro.get().series(series_id, as_of, start))

    async def news(self, symbol: str, as_of: date, limit: int = 20) -> Result[list[NewsItem]]:
        return await self._run(lambda: self._news.get().news(symbol, as_of, limit))

    async def news_search(
        self, query_terms: list[str], as_of: date, since: date, limit: int = 20
    ) -> Result[list[NewsItem]]:
        return await self._run(lambda: self._news.get().news_search(query_terms, as_of, since, limit))

    async def reddit_posts(self, symbol: str, as_of: date, limit: int = 50) -> Result[list[SocialPost]]:
        return await self._run(lambda: self._social.get().reddit(symbol, as_of, limit))

    async def stocktwits_posts(self, symbol: str, as_of: date, limit: int = 30) -> Result[list[SocialPost]]:
        return await self._run(lambda: self._social.get().stocktwits(symbol, as_of, limit))

    async def onchain_txs(self, address: str, as_of: date, limit: int = 100) -> Result[list[OnchainTx]]:
        return await self._run(lambda: self._crypto.get().txs(address, as_of, limit))

    async def token(self, token_id: str, as_of: date) -> Result[TokenInfo]:
        return await self._run(lambda: self._crypto.get().token(token_id, as_of))

    async def tvl(self, protocol: str, as_of: date) -> Result[ProtocolTVL]:
        return await self._run(lambda: self._crypto.get().tvl(protocol, as_of))

    async def sanctions(self, query: str, as_of: date) -> Result[SanctionsScreen]:
        return await self._run(lambda: self._sanctions.get().screen(query, as_of))

    async def transcripts(self, symbol: str, as_of: date, limit: int = 4) -> Result[list[Transcript]]:
        return await self._run(lambda: self._transcripts.get().transcripts(symbol, as_of, limit))

    async def earnings_calendar(self, symbol: str, as_of: date) -> Result[EarningsCalendar]:
        return await self._run(lambda: self._transcripts.get().calendar(symbol, as_of))

    async def quarterly_fundamentals(self, symbol: str, as_of: date) -> Result[QuarterlyFundamentals]:
        return await self._run(lambda: self._fundamentals.get().quarterly(symbol, as_of))

    async def index_peers(self, symbol: str, as_of: date) -> Result[IndexPeers]:
        return await self._run(lambda: self._fundamentals.get().peers(symbol, as_of))

    def _make_fundamentals(self) -> Any:
        from findesk.data.vendors.snapshot.fundamentals import FundamentalsStore

        return FundamentalsStore(self.files)

    def _make_mixers(self) -> Any:
        from findesk.data.vendors.snapshot.mixers import MixerStore

        return MixerStore(self.files)

    def _make_balances(self) -> Any:
        from findesk.data.vendors.snapshot.balances import BalanceStore

        return BalanceStore(self._crypto.get())

    async def eth_balance(self, address: str, as_of: date) -> Result[EthBalance]:
        return await self._run(lambda: self._balances.get().balance(address, as_of))

    async def mixer_transfers(self, address: str, as_of: date) -> Result[list[OnchainTx]]:
        return await self._run(lambda: self._mixers.get().withdrawals_to(address, as_of))

    async def mixer_contracts(self, as_of: date) -> Result[MixerList]:
        return await self._run(lambda: self._mixers.get().contracts(as_of))

    def _make_token_prices(self) -> Any:
        from findesk.data.vendors.snapshot.token_prices import TokenPriceStore

        return TokenPriceStore(self._crypto.get())

    async def token_prices(self, token_id: str, as_of: date) -> Result[TokenPriceHistory]:
        return await self._run(lambda: self._token_prices.get().history(token_id, as_of))

    def _make_funds(self) -> Any:
        from findesk.data.vendors.snapshot.funds import FundStore

        return FundStore(self.files, self._prices.get())  # shares the indexed ETF panel with bars

    async def etf_panel(self, as_of: date, start: date) -> Result[PricePanel]:
        return await self._run(lambda: self._funds.get().panel(as_of, start))

    async def fund_profiles(self, as_of: date) -> Result[dict[str, FundProfile]]:
        return await self._run(lambda: self._funds.get().profiles(as_of))

    # ---- whole-market views (scanner, backtests) ---------------------------------------------------

    def _make_listed(self) -> Any:
        from findesk.data.vendors.snapshot.listed import ListedStore

        return ListedStore(self.files, self._prices.get())  # shares the price store's month-end caps

    def _make_sp500(self) -> Any:
        from findesk.data.vendors.snapshot.listed import Sp500Store

        return Sp500Store(self.files, self._prices.get())  # shares the S&P panel indexed for bars

    async def listed_session(self, session: date, as_of: date) -> Result[ListedSession]:
        return await self._run(lambda: self._listed.get().session(session, as_of))

    async def equity_panel(self, as_of: date, start: date) -> Result[PricePanel]:
        return await self._run(lambda: self._sp500.get().panel(as_of, start))

    async def day_gainers(self, session: date, as_of: date) -> Result[ListedSession]:
        # the whole session table (every listed stock), the same answer as ``listed_session``
        return await self._run(lambda: self._listed.get().session(session, as_of))

    async def index_constituents(self, as_of: date) -> Result[IndexConstituents]:
        return await self._run(lambda: self._fundamentals.get().constituents(as_of))

    async def large_holders(self, token: str, as_of: date, limit: int = 10) -> Result[TokenHolders]:
        return Err(
            ErrorCode.NO_DATA,
            "Large-holder queries come from Dune, which is live only and needs FINDESK_DUNE_API_KEY; "
            f"the snapshot holds no holder data for {token.strip()!r}. Do not estimate holders.",
            self.name,
        )
