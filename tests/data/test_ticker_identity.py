"""Identity first (issue 19): a ticker names one company at the run's date, point in time over the
snapshot's two SEC ticker tables (2024-05-14 and 2026-06-01), and the trading desk's ``resolve``
stops on an unknown, ambiguous, fund or CIK-less symbol.

Symbols here resemble other companies' names: GOLD was Barrick Gold and is now Gold.com; B was Barnes
Group and is now Barrick; BNY was a BlackRock municipal fund before it was BNY Mellon's ticker.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.formats import sec as fmt
from findesk.data.models import Company, Source
from findesk.data.router import DataRouter
from findesk.data.vendors.base import Category
from findesk.data.vendors.snapshot import SnapshotVendor
from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.sec import SecStore
from findesk.workflows.trading.identity import fund_name, identity_of, resolve

EARLY = date(2024, 5, 10)  # before the older table's day (2024-05-14)
BETWEEN = date(2025, 8, 29)  # the snapshot's default date, between the two tables' days
LATE = date(2026, 7, 1)  # after the newer table's day (2026-06-01)


@pytest.fixture(scope="module")
def store(snapshot_dir: Path) -> SecStore:
    return SecStore(SnapshotFiles(snapshot_dir))


@pytest.fixture(scope="module")
def router(snapshot_dir: Path) -> DataRouter:
    return DataRouter({Category.COMPANY: [SnapshotVendor(snapshot_dir)]})


def _company(store: SecStore, ticker: str, at: date) -> Company:
    got = store.company(ticker, at)
    assert isinstance(got, Ok), got
    return got.value


# --- the data layer: SecStore.company point in time ----------------------------------------------


def test_gold_before_the_change_is_barrick_gold_not_gold_com(store: SecStore) -> None:
    c = _company(store, "GOLD", EARLY)
    assert (c.cik, c.name.lower() if c.name else None) == (756894, "barrick gold corp")
    assert c.source.ref == "sec/company_tickers.json"
    # Gold.com's sector row (keyed by the symbol only) is not pinned on Barrick
    assert (c.sector, c.industry) == (None, None)


def test_gold_after_the_change_is_gold_com_and_says_it_changed_hands(store: SecStore) -> None:
    c = _company(store, "GOLD", LATE)
    assert (c.cik, c.name) == (1591588, "Gold.com, Inc.")
    assert c.sector == "Industrials"  # its own listing row now
    assert any("changed hands" in n and "756894" in n for n in c.notes)


def test_gold_between_the_tables_is_ambiguous_naming_both_companies(store: SecStore) -> None:
    got = store.company("GOLD", BETWEEN)
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT
    for text in (
        "ambiguous",
        "BARRICK GOLD CORP",
        "756894",
        "Gold.com",
        "1591588",
        "2024-05-14",
        "2026-06-01",
    ):
        assert text in got.reason
    assert [c["cik"] for c in got.details["candidates"]] == [756894, 1591588]


def test_the_tables_days_are_inclusive(store: SecStore) -> None:
    assert _company(store, "GOLD", date(2024, 5, 14)).cik == 756894
    assert isinstance(store.company("GOLD", date(2024, 5, 15)), Err)
    assert isinstance(store.company("GOLD", date(2026, 5, 31)), Err)
    assert _company(store, "GOLD", date(2026, 6, 1)).cik == 1591588


def test_b_is_barnes_group_before_barrick_took_the_symbol(store: SecStore) -> None:
    early, late = _company(store, "B", EARLY), _company(store, "B", LATE)
    assert (early.cik, early.name) == (9984, "BARNES GROUP INC")
    assert early.industry != "Precious Metals"  # Barrick's listing row is not Barnes's
    assert (late.cik, late.industry) == (756894, "Precious Metals")


def test_blackrock_re_registered_is_blackrock_at_every_date(store: SecStore) -> None:
    early, between, late = (_company(store, "BLK", d) for d in (EARLY, BETWEEN, LATE))
    assert [c.cik for c in (early, between, late)] == [1364742, 2012383, 2012383]
    assert all(c.name and c.name.lower().startswith("blackrock") for c in (early, between, late))
    assert all(c.sector == "Financials" for c in (early, between, late))  # GICS of the same company
    assert early.notes == []  # nothing from after the date
    assert any("1364742" in n and "re-registered" in n for n in between.notes)


def test_an_unchanged_ticker_is_unchanged(store: SecStore) -> None:
    for at in (EARLY, BETWEEN, LATE):
        c = _company(store, "NVDA", at)
        assert (c.cik, c.name, c.exchange, c.notes) == (1045810, "NVIDIA CORP", "Nasdaq", [])


def test_a_ticker_only_the_newer_table_lists_resolves_with_a_note_at_an_earlier_date(store: SecStore) -> None:
    # Block changed its symbol from SQ to XYZ in 2025: the 2024 table does not list XYZ
    c = _company(store, "XYZ", EARLY)
    assert c.cik == 1512673
    assert any("not in the SEC ticker table of 2024-05-14" in n for n in c.notes)
    assert _company(store, "XYZ", LATE).notes == []


def test_filings_follow_the_same_point_in_time_company(store: SecStore) -> None:
    got = store.filings("GOLD", BETWEEN, None, None)
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT and "ambiguous" in got.reason
    facts = store.facts("GOLD", "Revenues", BETWEEN)
    assert isinstance(facts, Err) and facts.code is ErrorCode.INVALID_INPUT


def test_the_tables_days_come_from_sources_tsv(tmp_path: Path) -> None:
    sec = tmp_path / "sec"
    sec.mkdir()
    (sec / "company_tickers.json").write_text(
        json.dumps({"0": {"cik_str": 11, "ticker": "ACME", "title": "ACME WIDGETS INC"}})
    )
    (sec / "company_tickers_exchange.csv").write_text(
        "cik,ticker,exchange,name\n22,ACME,NYSE,Acme Rockets Corp\n"
    )
    (tmp_path / "SOURCES.tsv").write_text(
        "snapshot_path\tsource\tlicense\tas_of\tnotes\n"
        "sec/company_tickers.json\tx\tx\t2020-01-31 (a note)\tx\n"
        "sec/company_tickers_exchange.csv\tx\tx\t2021-01-31\tx\n"
    )
    planted = SecStore(SnapshotFiles(tmp_path))
    assert _company(planted, "ACME", date(2020, 1, 31)).cik == 11
    assert isinstance(planted.company("ACME", date(2020, 6, 1)), Err)
    assert _company(planted, "ACME", date(2021, 1, 31)).cik == 22
    # without SOURCES.tsv the snapshot's known days apply
    (tmp_path / "SOURCES.tsv").unlink()
    fallback = SecStore(SnapshotFiles(tmp_path))
    assert _company(fallback, "ACME", date(2020, 6, 1)).cik == 11
    assert isinstance(fallback.company("ACME", date(2025, 1, 1)), Err)


def test_company_names_are_compared_without_legal_form_or_edgar_qualifiers() -> None:
    assert fmt.same_company_name("BlackRock Inc.", "BlackRock, Inc.")
    assert fmt.same_company_name("Lake Shore Bancorp, Inc. /MD/", "LAKE SHORE BANCORP, INC.")
    assert fmt.same_company_name("Mega Matrix Corp.", "Mega Matrix Inc")
    assert not fmt.same_company_name("BARRICK GOLD CORP", "Gold.com, Inc.")
    assert not fmt.same_company_name("Inhibrx, Inc.", "Inhibrx Biosciences, Inc.")
    assert not fmt.same_company_name("CEDAR FAIR L P", "Six Flags Entertainment Corporation/NEW")
    assert not fmt.same_company_name(None, "Acme Inc")
    assert fmt.names_agree("Avidity Biosciences Inc. Common Stock", "Avidity Biosciences, Inc.")
    assert not fmt.names_agree("Gold.com Inc. Common Stock", "BARRICK GOLD CORP")


# --- the desk: resolve ---------------------------------------------------------------------------


async def test_resolve_names_the_company_of_the_date(router: DataRouter) -> None:
    early = await resolve(router, "gold", EARLY)
    late = await resolve(router, "GOLD", LATE)
    assert isinstance(early, Ok) and isinstance(late, Ok)
    assert (early.value.ticker, early.value.cik, early.value.exchange) == ("GOLD", 756894, "NYSE")
    assert early.value.name.lower() == "barrick gold corp"
    assert (late.value.cik, late.value.name) == (1591588, "Gold.com, Inc.")
    assert late.value.notes and "changed hands" in late.value.notes[0]
    nvda = await resolve(router, "NVDA", EARLY)
    assert isinstance(nvda, Ok)
    assert (nvda.value.cik, nvda.value.name, nvda.value.sector) == (
        1045810,
        "NVIDIA CORP",
        "Information Technology",
    )
    assert nvda.value.source == "snapshot:sec/company_tickers_exchange.csv"


async def test_resolve_stops_on_an_ambiguous_symbol_naming_both(router: DataRouter) -> None:
    got = await resolve(router, "GOLD", BETWEEN)
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT
    assert "does not name one company on 2025-08-29" in got.reason
    assert "BARRICK GOLD CORP (CIK 756894)" in got.reason and "Gold.com, Inc. (CIK 1591588)" in got.reason
    assert len(got.details["candidates"]) == 2


async def test_resolve_keeps_blackrock_through_its_re_registration(router: DataRouter) -> None:
    between = await resolve(router, "BLK", BETWEEN)
    assert isinstance(between, Ok)
    assert between.value.cik == 2012383 and between.value.name == "BlackRock, Inc."
    assert any("1364742" in n for n in between.value.notes)


async def test_resolve_refuses_a_fund_that_resembles_a_bank(router: DataRouter) -> None:
    # BNY was a BlackRock municipal fund's symbol before Bank of New York Mellon took it
    early = await resolve(router, "BNY", EARLY)
    assert isinstance(early, Err) and early.code is ErrorCode.OUT_OF_SCOPE
    assert "MUNICIPAL" in early.reason and "fund" in early.reason
    late = await resolve(router, "BNY", LATE)
    assert isinstance(late, Ok) and (late.value.cik, late.value.name) == (
        1390777,
        "Bank of New York Mellon Corp",
    )


@pytest.mark.parametrize("etf", ["SPY", "XLK"])
async def test_resolve_refuses_an_etf(router: DataRouter, etf: str) -> None:
    got = await resolve(router, etf, BETWEEN)
    assert isinstance(got, Err) and got.code is ErrorCode.OUT_OF_SCOPE
    assert f"{etf} (" in got.reason and "is an ETF" in got.reason and "one company" in got.reason


async def test_resolve_stops_on_an_unknown_or_malformed_symbol(router: DataRouter) -> None:
    unknown = await resolve(router, "ZZZZQ", BETWEEN)
    assert isinstance(unknown, Err) and unknown.code is ErrorCode.NOT_FOUND
    assert "ZZZZQ names no company known on 2025-08-29" in unknown.reason
    malformed = await resolve(router, "GO LD", BETWEEN)
    assert isinstance(malformed, Err) and malformed.code is ErrorCode.INVALID_INPUT


def test_a_listing_without_a_cik_is_refused() -> None:
    src = Source(vendor="snapshot", ref="reference/x.csv")
    got = identity_of(Company(ticker="ABCD", name="Abcd Widgets Inc.", source=src), BETWEEN)
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_FOUND and "no SEC CIK" in got.reason
    live = identity_of(
        Company(
            ticker="ABCD",
            cik=5,
            name="Abcd Widgets Inc.",
            source=src.model_copy(update={"vendor": "sec_edgar"}),
        ),
        BETWEEN,
    )
    assert isinstance(live, Ok) and "current ticker table" in live.value.notes[-1]


def test_fund_names() -> None:
    funds = [
        "Eaton Vance Municipal Income Trust",
        "BLACKROCK MUNIYIELD QUALITY FUND III, INC.",
        "iShares Silver Trust",
        "Grayscale Bitcoin Cash Trust (BCH)",
        "BLACKROCK FLOATING RATE INCOME TRUST",
        "SPDR S&P 500 ETF TRUST",
    ]
    companies = [
        "NVIDIA CORP",
        "Office Properties Income Trust",
        "BARRICK GOLD CORP",
        "PermRock Royalty Trust",
        "NORTHERN TRUST CORP",
        "Fundamental Global Inc.",
    ]
    assert [n for n in funds if not fund_name(n)] == []
    assert [n for n in companies if fund_name(n)] == []
