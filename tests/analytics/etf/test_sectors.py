"""ETF sector grouping: the groups a user sees for well-known funds, the leveraged / inverse flags, the
taxonomy's integrity, and the accuracy on the hand-checked sample and coverage of the real universe."""

from __future__ import annotations

import csv
import gzip
import re
from pathlib import Path

import pytest

from findesk.analytics.etf.sector_taxonomy import (
    BY_NAME,
    CATEGORY_SECTORS,
    SECTORS,
    UNCLASSIFIED,
    UNDERLYING_SECTORS,
)
from findesk.analytics.etf.sectors import FAMILY_DEFAULTS, OVERRIDES, REFINEMENTS, classify
from findesk.data.vendors.snapshot.price_tables import MARKET_CAPS

SAMPLE = Path(__file__).resolve().parents[3] / "bench" / "data" / "etf_sector_sample.csv"
METADATA = "reference/etf_metadata_yfinance_info.csv"
AS_OF = "2025-08-29"


@pytest.mark.parametrize(
    ("ticker", "name", "category", "sector", "bases"),
    [
        ("SMH", "VanEck Semiconductor ETF", "Technology", "Semiconductors", {"override", "name"}),
        ("XSD", "State Street SPDR S&P Semiconductor ETF", "Technology", "Semiconductors", {"name"}),
        (
            "TLT",
            "iShares 20+ Year Treasury Bond ETF",
            "Long Government",
            "Treasuries & Government Bonds",
            {"override"},
        ),
        (
            "NEWT",
            "iShares 20+ Year Treasury Bond ETF",
            "Long Government",
            "Treasuries & Government Bonds",
            {"name"},
        ),
        ("GLD", "SPDR Gold Shares", "Commodities Focused", "Gold & Precious Metals", {"override"}),
        ("GDX", "VanEck Gold Miners ETF", "Equity Precious Metals", "Gold & Precious Metals", {"override"}),
        ("SGOL", "abrdn Physical Gold Shares ETF", "Commodities Focused", "Gold & Precious Metals", {"name"}),
        ("URA", "Global X Uranium ETF", "Natural Resources", "Uranium & Nuclear", {"name"}),
        ("SPYM", "State Street SPDR Portfolio S&P 500 ETF", "Large Blend", "US Large Cap Broad", {"name"}),
        ("VOO", "Vanguard S&P 500 ETF", "Large Blend", "US Large Cap Broad", {"override"}),
        ("KRE", "State Street SPDR S&P Regional Banking ETF", "Financial", "Regional Banks", {"override"}),
        ("IAT", "iShares U.S. Regional Banks ETF", "Financial", "Regional Banks", {"name"}),
        ("FTXO", "First Trust Nasdaq Bank ETF", "Financial", "Banks", {"name"}),
        ("IYF", "iShares U.S. Financials ETF", "Financial", "Financials", {"name"}),
        ("QQQ", "Invesco QQQ Trust", "Large Growth", "US Large Cap Growth", {"override"}),
        ("KWEB", "KraneShares CSI China Internet ETF", "China Region", "China", {"name"}),
        ("EWT", "iShares MSCI Taiwan ETF", "China Region", "Emerging Markets", {"name"}),
        (
            "EMB",
            "iShares J.P. Morgan USD Emerging Markets Bond ETF",
            "Emerging Markets Bond",
            "International & EM Bonds",
            {"name"},
        ),
        (
            "SCZ",
            "iShares MSCI EAFE Small-Cap ETF",
            "Foreign Small/Mid Blend",
            "International Developed",
            {"name"},
        ),
        ("TCHP", "T. Rowe Price Blue Chip Growth ETF", "Large Growth", "US Large Cap Growth", {"name"}),
        (
            "DIA",
            "SPDR Dow Jones Industrial Average ETF Trust",
            "Large Value",
            "US Large Cap Broad",
            {"override"},
        ),
        (
            "DJD",
            "Invesco Dow Jones Industrial Average Dividend ETF",
            "Large Value",
            "US Large Cap Broad",
            {"name"},
        ),
        (
            "PGF",
            "Invesco Financial Preferred ETF",
            "Preferred Stock",
            "Corporate & High Yield Credit",
            {"name"},
        ),
        ("NVDY", "YieldMax NVDA Option Income Strategy ETF", "Derivative Income", "Semiconductors", {"name"}),
        ("JEPI", "JPMorgan Equity Premium Income ETF", "Derivative Income", "Options Income", {"name"}),
        (
            "NAPR",
            "Innovator Nasdaq-100 Power Buffer ETF - April",
            "Defined Outcome",
            "Buffered & Hedged Equity",
            {"name"},
        ),
    ],
)
def test_known_funds_land_in_their_group(
    ticker: str, name: str, category: str, sector: str, bases: set[str]
) -> None:
    got = classify(ticker, name, category)
    assert got.sector == sector
    assert got.basis in bases


@pytest.mark.parametrize(
    ("ticker", "name", "category", "sector", "leveraged", "inverse"),
    [
        (
            "SOXL",
            "Direxion Daily Semiconductor Bull 3X Shares",
            "Trading--Leveraged Equity",
            "Semiconductors",
            True,
            False,
        ),
        (
            "SOXS",
            "Direxion Daily Semiconductor Bear 3X Shares",
            "Trading--Inverse Equity",
            "Semiconductors",
            True,
            True,
        ),
        ("TQQQ", "ProShares UltraPro QQQ", "Trading--Leveraged Equity", "US Large Cap Growth", True, False),
        ("SH", "ProShares Short S&P500", "Trading--Inverse Equity", "US Large Cap Broad", False, True),
        (
            "TBT",
            "ProShares UltraShort 20+ Year Treasury",
            "Trading--Inverse Debt",
            "Treasuries & Government Bonds",
            True,
            True,
        ),
        ("AAPD", "Direxion Daily AAPL Bear 1X Shares", "Trading--Inverse Equity", "Technology", False, True),
        ("NVDS", "Tradr 1.5X Short NVDA Daily ETF", "Trading--Inverse Equity", "Semiconductors", True, True),
        (
            "TSL",
            "GraniteShares 1.25x Long Tsla Daily ETF",
            "Trading--Leveraged Equity",
            "Consumer Discretionary",
            True,
            False,
        ),
        (
            "WANT",
            "Direxion Daily Cnsmr Discret Bull 3XShrs",
            "Trading--Leveraged Equity",
            "Consumer Discretionary",
            True,
            False,
        ),
        ("SVIX", "-1x Short VIX Futures ETF", "Trading--Inverse Equity", "Volatility", False, True),
        ("BITU", "Proshares Ultra Bitcoin ETF", "Digital Assets", "Crypto & Digital Assets", True, False),
        (
            "MSOX",
            "AdvisorShares MSOS Daily Leveraged ETF",
            "Trading--Leveraged Equity",
            "Cannabis",
            True,
            False,
        ),
        # look-alikes that are neither leveraged nor inverse
        ("UYLD", "Angel Oak Ultrashort Income ETF", "Ultrashort Bond", "Ultrashort & Cash", False, False),
        ("GSST", "Goldman Sachs Ultra Short Bond ETF", "Ultrashort Bond", "Ultrashort & Cash", False, False),
        (
            "UAPR",
            "Innovator U.S. Equity Ultra Buffer ETF - April",
            "Defined Outcome",
            "Buffered & Hedged Equity",
            False,
            False,
        ),
        (
            "SCHO",
            "Schwab Short-Term U.S. Treasury ETF",
            "Short Government",
            "Treasuries & Government Bonds",
            False,
            False,
        ),
        ("SHYD", "VanEck Short High Yield Muni ETF", "High Yield Muni", "Municipal Bonds", False, False),
        (
            "FTLS",
            "First Trust Long/Short Equity ETF",
            "Long-Short Equity",
            "Multi-Asset & Alternatives",
            False,
            False,
        ),
        ("RFIX", "Simplify Bond Bull ETF", "Long Government", "Treasuries & Government Bonds", False, False),
        (
            "NTSX",
            "WisdomTree U.S. Efficient Core Fund",
            "Multi-Asset Leveraged",
            "Multi-Asset & Alternatives",
            False,
            False,
        ),
    ],
)
def test_geared_funds_keep_their_underlying_group(
    ticker: str, name: str, category: str, sector: str, leveraged: bool, inverse: bool
) -> None:
    got = classify(ticker, name, category)
    assert (got.sector, got.leveraged, got.inverse) == (sector, leveraged, inverse)


def test_the_category_narrows_a_name_that_only_says_treasury_or_size() -> None:
    bills = classify("TBLL", "Invesco Short Term Treasury ETF", "Ultrashort Bond")
    notes = classify("TBLX", "Invesco Short Term Treasury ETF", "Short Government")
    assert (bills.sector, bills.basis) == ("Ultrashort & Cash", "category")
    assert (notes.sector, notes.basis) == ("Treasuries & Government Bonds", "name")
    growth = classify("RPG", "Invesco S&P 500 Pure Growth ETF", "Large Growth")
    assert (growth.sector, growth.basis) == ("US Large Cap Growth", "category")


def test_category_then_family_then_unclassified() -> None:
    assert (
        classify("CGNG", "Capital Group New Geography Equity ETF", "Diversified Emerging Mkts").basis
        == "category"
    )
    new_bond = classify("ZZZB", "Acme Opportunities Fund", "Frontier Hybrid Bond")
    assert (new_bond.sector, new_bond.basis) == ("Core & Aggregate Bonds", "default")
    nothing = classify("ZZZZ", "Acme Opportunities Fund", None)
    assert (nothing.sector, nothing.basis, nothing.leveraged, nothing.inverse) == (
        UNCLASSIFIED,
        "default",
        False,
        False,
    )


def test_every_group_the_classifier_names_exists() -> None:
    named = {
        *OVERRIDES.values(),
        *UNDERLYING_SECTORS.values(),
        *CATEGORY_SECTORS.values(),
        *(sector for _, sector in FAMILY_DEFAULTS),
        *(sector for sector, _ in REFINEMENTS),
        *REFINEMENTS.values(),
    }
    assert named - set(BY_NAME) == set()
    assert UNCLASSIFIED not in BY_NAME
    assert len(BY_NAME) == len(SECTORS)  # names are unique
    categories = [category for group in SECTORS for category in group.categories]
    assert len(categories) == len(set(categories))  # a provider category belongs to one group
    assert 30 <= len(SECTORS) <= 50
    kinds = {group.kind for group in SECTORS}
    assert kinds == {"sector", "industry", "theme", "asset_class", "region", "strategy"}
    gics = {
        "Technology",
        "Communication Services",
        "Consumer Discretionary",
        "Consumer Staples",
        "Energy",
        "Financials",
        "Health Care",
        "Industrials",
        "Materials",
        "Real Estate",
        "Utilities",
    }
    assert {group.name for group in SECTORS if group.kind == "sector"} == gics


def test_news_tickers_and_terms_are_usable() -> None:
    for group in SECTORS:
        assert len(group.news_tickers) <= 6, group.name
        assert len(set(group.news_tickers)) == len(group.news_tickers), group.name
        for ticker in group.news_tickers:
            assert re.fullmatch(r"[A-Z]{1,5}", ticker), (group.name, ticker)
        assert group.news_terms, group.name
        for term in group.news_terms:
            assert term == term.lower().strip() and term, (group.name, term)
    assert {"NVDA", "AVGO", "AMD"} <= set(BY_NAME["Semiconductors"].news_tickers)
    assert BY_NAME["Treasuries & Government Bonds"].news_tickers == ()
    assert {"oil", "crude", "opec"} <= set(BY_NAME["Oil & Gas"].news_terms)


def test_news_tickers_are_listed_companies_worth_a_billion_at_the_as_of_date(snapshot_dir: Path) -> None:
    caps: dict[str, float] = {}
    with gzip.open(snapshot_dir / MARKET_CAPS, "rt", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["date"] == AS_OF and row["market_cap_usd"]:
                caps[row["symbol"]] = float(row["market_cap_usd"])
    small = {
        (group.name, ticker, caps.get(ticker))
        for group in SECTORS
        for ticker in group.news_tickers
        if caps.get(ticker, 0.0) < 1e9
    }
    assert small == set()


def test_accuracy_on_the_hand_checked_sample_is_at_least_90_percent() -> None:
    with SAMPLE.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) >= 120
    assert len({row["category"] for row in rows}) >= 60  # spread across provider categories
    assert {row["expected_sector"] for row in rows} - set(BY_NAME) == set()
    geared = [row for row in rows if row["category"].startswith("Trading--")]
    assert len(geared) >= 15  # leveraged and inverse funds are in it, not only plain ones
    misses = [
        (row["ticker"], row["expected_sector"], got.sector)
        for row in rows
        if (got := classify(row["ticker"], row["name"], row["category"])).sector != row["expected_sector"]
    ]
    assert 1 - len(misses) / len(rows) >= 0.90, misses


def test_the_real_universe_is_covered(snapshot_dir: Path) -> None:
    with (snapshot_dir / METADATA).open(encoding="utf-8", newline="") as handle:
        funds = [row for row in csv.DictReader(handle) if row["in_liquid_price_file"] == "True"]
    assert len(funds) == 1670
    got = {
        row["ticker"]: classify(row["ticker"], row["longName"] or row["shortName"], row["category"])
        for row in funds
    }
    # only the provider's catch-all categories have no group, and their funds are all placed by name
    unmapped = {row["category"] for row in funds if row["category"]} - set(CATEGORY_SECTORS)
    assert unmapped == {"Miscellaneous Sector", "Miscellaneous Fixed Income", "Trading--Miscellaneous"}
    assert {got[row["ticker"]].basis for row in funds if row["category"] in unmapped} <= {"name", "override"}
    unclassified = [ticker for ticker, assignment in got.items() if assignment.sector == UNCLASSIFIED]
    assert len(unclassified) / len(funds) < 0.02, unclassified
    assert len({assignment.sector for assignment in got.values()}) >= 40  # the groups are actually used
    flagged = {ticker for ticker, a in got.items() if a.leveraged or a.inverse}
    trading = {row["ticker"] for row in funds if row["category"].startswith("Trading--")}
    assert trading - flagged <= {
        "UUP",
        "USDU",
        "IWMY",
        "QQQY",
        "WDTE",
        "VIXY",
        "VIXM",
    }  # unlevered trading funds
