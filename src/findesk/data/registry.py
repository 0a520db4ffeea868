"""Vendor registry: builds the router from settings and the data context.

Rules:
- Default chains depend on the data mode: snapshot mode serves every category from the snapshot;
  live mode uses the live vendor for each category that has one. A category only the snapshot serves
  (transcripts, the earnings calendar, fundamentals, funds, the whole-market universe views, balances,
  mixers, token prices) has no live chain, so live mode answers it ``not_configured`` naming the
  category, never a live vendor's "does not serve". ``Settings.chains`` overrides any category (e.g.
  ``mixers = ["snapshot"]``).
- Live chains never name the snapshot: a live run answers from live sources or says it could not, it
  never mixes in recorded data silently. So the full-text news search (``news_search``) is
  ``["newsapi"]`` live (without a NewsAPI key: ``not_configured``, which the news tool reads as "no
  search vendor") and ``["snapshot"]`` offline; a user who wants the recorded news as a live fallback
  writes ``news_search = ["newsapi", "snapshot"]``. Likewise the day's gainers (``day_gainers``) are
  ``["yahoo"]`` live (Yahoo's day_gainers screener, current session only: an earlier session is
  ``no_data``) and ``["snapshot"]`` offline (the whole session table); ``day_gainers = ["yahoo",
  "snapshot"]`` lets a live run fall back to the recorded table for past sessions or when Yahoo fails.
- A chain may only name known vendors that serve that category; a mistake is ``invalid_input`` at
  start-up, not a surprise in the middle of a run.
- All live vendors share one ``HttpClient`` (one cache, one set of rate limits and breakers).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import httpx

from findesk.core.config import Settings
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.core.version import VERSION
from findesk.data.context import DataContext
from findesk.data.http import HttpClient
from findesk.data.router import DataRouter
from findesk.data.vendors.base import Category, Vendor

# vendor name -> (module, class); imported lazily so an unused vendor costs nothing
LIVE_VENDORS: dict[str, tuple[str, str]] = {
    "sec_edgar": ("findesk.data.vendors.sec_edgar", "SecEdgarVendor"),
    "yahoo": ("findesk.data.vendors.yahoo", "YahooVendor"),
    "fred": ("findesk.data.vendors.fred", "FredVendor"),
    "stocktwits": ("findesk.data.vendors.stocktwits", "StocktwitsVendor"),
    "reddit": ("findesk.data.vendors.reddit", "RedditVendor"),
    "newsapi": ("findesk.data.vendors.newsapi", "NewsApiVendor"),
    "coingecko": ("findesk.data.vendors.coingecko", "CoinGeckoVendor"),
    "defillama": ("findesk.data.vendors.defillama", "DefiLlamaVendor"),
    "etherscan": ("findesk.data.vendors.etherscan", "EtherscanVendor"),
    "ofac": ("findesk.data.vendors.ofac", "OfacVendor"),
    "dune": ("findesk.data.vendors.dune", "DuneVendor"),
}
VENDOR_NAMES = ("snapshot", *LIVE_VENDORS)

LIVE_DEFAULT_CHAINS: dict[Category, list[str]] = {
    Category.COMPANY: ["sec_edgar"],
    Category.QUOTE: ["yahoo"],
    Category.BARS: ["yahoo"],
    Category.FILINGS: ["sec_edgar"],
    Category.DOCUMENTS: ["sec_edgar"],
    Category.FACTS: ["sec_edgar"],
    Category.MACRO: ["fred"],
    Category.NEWS: ["yahoo", "newsapi"],
    Category.NEWS_SEARCH: ["newsapi"],
    Category.REDDIT: ["reddit"],
    Category.STOCKTWITS: ["stocktwits"],
    Category.ONCHAIN: ["etherscan"],
    Category.TOKENS: ["coingecko"],
    Category.TVL: ["defillama"],
    Category.SANCTIONS: ["ofac"],
    Category.HOLDERS: ["dune"],
    Category.DAY_GAINERS: ["yahoo"],  # current session only; the recorded table only when the user asks
}


def default_chains(context: DataContext) -> dict[Category, list[str]]:
    if context.mode == "snapshot":
        return {cat: ["snapshot"] for cat in Category}
    return {cat: list(names) for cat, names in LIVE_DEFAULT_CHAINS.items()}


def effective_chains(settings: Settings, context: DataContext) -> Result[dict[Category, list[str]]]:
    chains = default_chains(context)
    for key, names in settings.chains.items():
        try:
            category = Category(key)
        except ValueError:
            valid = ", ".join(c.value for c in Category)
            return Err(
                ErrorCode.INVALID_INPUT, f"unknown data category {key!r} in chains; use one of: {valid}"
            )
        unknown = [n for n in names if n not in VENDOR_NAMES]
        if unknown:
            return Err(
                ErrorCode.INVALID_INPUT,
                f"unknown vendor {unknown[0]!r} in the {key} chain; known vendors: {', '.join(VENDOR_NAMES)}",
            )
        chains[category] = list(names)
    return Ok(chains)


class VendorFactory:
    """Creates each vendor once and shares one HTTP client between the live ones."""

    def __init__(
        self,
        settings: Settings,
        context: DataContext,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.settings = settings
        self.context = context
        self._transport = transport
        self._http: HttpClient | None = None
        self._vendors: dict[str, Vendor] = {}

    def http(self) -> HttpClient:
        if self._http is None:
            self._http = HttpClient(
                self.settings.http,
                user_agent=f"findesk/{VERSION}",
                cache_dir=self.settings.cache_dir / "http",
                transport=self._transport,
            )
        return self._http

    def get(self, name: str) -> Result[Vendor]:
        if name in self._vendors:
            return Ok(self._vendors[name])
        made = self._make(name)
        if isinstance(made, Ok):
            self._vendors[name] = made.value
        return made

    def _make(self, name: str) -> Result[Vendor]:
        if name == "snapshot":
            if self.context.snapshot_dir is None:
                return Err(
                    ErrorCode.NOT_CONFIGURED,
                    "the snapshot vendor needs a snapshot directory: set FINDESK_SNAPSHOT_DIR",
                )
            from findesk.data.vendors.snapshot import SnapshotVendor

            # the column indexes go to snapshot_index_dir when it is set, else beside the rest of the cache
            cache, indexes = self.settings.cache_dir / "snapshot", self.settings.snapshot_index_dir
            return Ok(SnapshotVendor(self.context.snapshot_dir, cache, indexes))
        spec = LIVE_VENDORS.get(name)
        if spec is None:
            return Err(ErrorCode.INVALID_INPUT, f"unknown vendor {name!r}")
        module = importlib.import_module(spec[0])
        cls: Callable[[HttpClient, Settings], Vendor] = getattr(module, spec[1])
        return Ok(cls(self.http(), self.settings))


def build_router(
    settings: Settings, context: DataContext, *, transport: httpx.AsyncBaseTransport | None = None
) -> Result[DataRouter]:
    """The router for this run, or ``invalid_input``/``not_configured`` when the chains are wrong."""
    chains = effective_chains(settings, context)
    if isinstance(chains, Err):
        return chains
    factory = VendorFactory(settings, context, transport)
    built: dict[Category, list[Vendor]] = {}
    for category, names in chains.value.items():
        vendors: list[Vendor] = []
        for name in names:
            got = factory.get(name)
            if isinstance(got, Err):
                return got
            if category not in got.value.categories:
                return Err(
                    ErrorCode.INVALID_INPUT,
                    f"vendor {name!r} does not serve {category.value}; fix the {category.value} chain",
                )
            vendors.append(got.value)
        built[category] = vendors
    return Ok(DataRouter(built))
