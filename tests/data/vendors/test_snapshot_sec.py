"""SecStore (snapshot SEC data) on the real snapshot: companies, filings, documents, facts."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.vendors.snapshot import SnapshotVendor
from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.sec import SecStore

AS_OF = date(2025, 8, 29)


@pytest.fixture(scope="module")
def store(snapshot_dir: Path) -> SecStore:
    return SecStore(SnapshotFiles(snapshot_dir))


# --- company -------------------------------------------------------------------------------------


def test_company_has_cik_exchange_and_gics(store: SecStore) -> None:
    got = store.company("aapl", AS_OF)
    assert isinstance(got, Ok)
    c = got.value
    assert (c.ticker, c.cik, c.name, c.exchange) == ("AAPL", 320193, "Apple Inc.", "Nasdaq")
    assert (c.sector, c.industry) == ("Information Technology", "Technology Hardware, Storage & Peripherals")
    assert not c.is_etf
    assert c.source.note is not None and "constituents_2025-08-12.csv" in c.source.note


def test_company_gics_list_is_chosen_point_in_time(store: SecStore) -> None:
    early = store.company("NVDA", date(2024, 1, 5))
    assert isinstance(early, Ok)
    assert early.value.source.note is not None and "constituents_2023-12-31.csv" in early.value.source.note
    assert early.value.industry == "Semiconductors"


def test_company_before_any_sp500_list_falls_back_to_nasdaq_sector(store: SecStore) -> None:
    got = store.company("TSLA", date(2023, 6, 30))
    assert isinstance(got, Ok)
    assert (got.value.sector, got.value.industry) == ("Industrials", "Auto Manufacturing")
    assert got.value.source.note is not None and "not GICS" in got.value.source.note


def test_etfs_are_marked(store: SecStore) -> None:
    spy, xlk = store.company("SPY", AS_OF), store.company("XLK", AS_OF)
    assert isinstance(spy, Ok) and isinstance(xlk, Ok)
    assert spy.value.is_etf and spy.value.cik == 884394
    # XLK is absent from SEC's ticker tables but known to the Nasdaq directory
    assert xlk.value.is_etf and xlk.value.cik is None and xlk.value.exchange == "NYSE ARCA"


def test_share_class_spellings_agree(store: SecStore) -> None:
    got = store.company("BRK.B", AS_OF)
    assert isinstance(got, Ok)
    assert (got.value.ticker, got.value.cik, got.value.sector) == ("BRK-B", 1067983, "Financials")


def test_unknown_ticker_is_not_found(store: SecStore) -> None:
    got = store.company("ZZZZQ", AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_FOUND
    assert "ZZZZQ" in got.reason


# --- filings -------------------------------------------------------------------------------------


def test_filings_merge_submissions_with_stored_documents(store: SecStore) -> None:
    got = store.filings("AAPL", AS_OF, frozenset({"10-K"}), None)
    assert isinstance(got, Ok)
    latest = got.value[0]
    assert latest.accession_number == "0000320193-24-000123"
    assert latest.local_path == "sec/filings/AAPL/10-K_2024-11-01.htm"
    assert latest.source.ref == "sec/submissions/CIK0000320193.json"
    assert [f.filing_date.year for f in got.value[:3]] == [2024, 2023, 2022]
    assert all(f.local_path is None for f in got.value[1:])


def test_filings_one_entry_per_accession_and_newest_first(store: SecStore) -> None:
    got = store.filings("AAPL", AS_OF, None, None)
    assert isinstance(got, Ok)
    accessions = [f.accession_number for f in got.value]
    assert len(accessions) == len(set(accessions))
    dates = [f.filing_date for f in got.value]
    assert dates == sorted(dates, reverse=True)
    # the newest 10-Q at the as-of date is listed even though its document is not stored
    tenq = next(f for f in got.value if f.form == "10-Q")
    assert (tenq.filing_date, tenq.local_path) == (date(2025, 8, 1), None)


def test_future_filings_never_appear(store: SecStore) -> None:
    later = store.filings("NVDA", date(2026, 12, 31), frozenset({"8-K"}), None)
    now = store.filings("NVDA", AS_OF, frozenset({"8-K"}), None)
    assert isinstance(later, Ok) and isinstance(now, Ok)
    # the stored 8-K of 2026-03-06 exists in the snapshot but is invisible at the default as-of date
    assert later.value[0].filing_date == date(2026, 3, 6)
    assert later.value[0].local_path == "sec/filings/NVDA/8-K_2026-03-06.htm"
    assert max(f.filing_date for f in now.value) == date(2025, 8, 27)
    assert now.value[0].items == ["2.02", "9.01"]


def test_amendment_forms_match_exactly(store: SecStore) -> None:
    amended = store.filings("TSLA", AS_OF, frozenset({"10-K/A"}), 1)
    plain = store.filings("TSLA", AS_OF, frozenset({"10-K"}), 1)
    assert isinstance(amended, Ok) and isinstance(plain, Ok)
    assert [(f.form, f.filing_date) for f in amended.value] == [("10-K/A", date(2025, 4, 30))]
    assert [(f.form, f.filing_date) for f in plain.value] == [("10-K", date(2025, 1, 30))]
    assert plain.value[0].local_path == "sec/filings/TSLA/10-K_2025-01-30.htm"


def test_tsla_older_page_reaches_back_to_2005(store: SecStore) -> None:
    got = store.filings("TSLA", date(2010, 12, 31), None, None)
    assert isinstance(got, Ok)
    assert got.value[-1].filing_date == date(2005, 2, 17)
    assert got.value[-1].source.ref == "sec/submissions/CIK0001318605-submissions-001.json"


def test_limit(store: SecStore) -> None:
    got = store.filings("MSFT", AS_OF, frozenset({"10-K", "10-Q"}), 2)
    assert isinstance(got, Ok)
    assert [(f.form, f.filing_date) for f in got.value] == [
        ("10-K", date(2025, 7, 30)),
        ("10-Q", date(2025, 4, 30)),
    ]


def test_company_with_only_stored_documents(store: SecStore) -> None:
    got = store.filings("AMZN", AS_OF, None, None)
    assert isinstance(got, Ok)
    assert [(f.form, f.filing_date, f.accession_number) for f in got.value] == [
        ("10-K", date(2025, 2, 7), None)
    ]
    assert got.value[0].local_path == "sec/filings/AMZN/10-K_2025-02-07.htm"


def test_company_without_filings_is_no_data(store: SecStore) -> None:
    got = store.filings("F", AS_OF, None, None)
    assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA
    assert "no filings for F" in got.reason


def test_unknown_ticker_filings_not_found(store: SecStore) -> None:
    got = store.filings("ZZZZQ", AS_OF, None, None)
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_FOUND


# --- documents -----------------------------------------------------------------------------------


def test_document_reads_stored_html(store: SecStore) -> None:
    tenk = store.filings("AAPL", AS_OF, frozenset({"10-K"}), 1)
    assert isinstance(tenk, Ok)
    doc = store.document(tenk.value[0], AS_OF)
    assert isinstance(doc, Ok)
    assert doc.value.format == "html"
    assert doc.value.source.ref == "sec/filings/AAPL/10-K_2024-11-01.htm"
    assert "Risk Factors" in doc.value.content and len(doc.value.content) > 1_000_000


def test_document_markdown_conversion(store: SecStore) -> None:
    tenk = store.filings("MSFT", AS_OF, frozenset({"10-K"}), 1)
    assert isinstance(tenk, Ok)
    doc = store.document(tenk.value[0], AS_OF)
    assert isinstance(doc, Ok)
    assert doc.value.format == "markdown"
    assert doc.value.source.note is not None and "Markdown conversion" in doc.value.source.note


def test_document_not_stored_is_no_data_with_edgar_url(store: SecStore) -> None:
    tenq = store.filings("AAPL", AS_OF, frozenset({"10-Q"}), 1)
    assert isinstance(tenq, Ok)
    got = store.document(tenq.value[0], AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA
    assert "only the filing index entry" in got.reason
    assert "https://www.sec.gov/Archives/edgar/data/320193/000032019325000073/aapl-20250628.htm" in got.reason


def test_document_filed_after_as_of_is_refused(store: SecStore) -> None:
    later = store.filings("NVDA", date(2026, 12, 31), frozenset({"8-K"}), 1)
    assert isinstance(later, Ok)
    got = store.document(later.value[0], AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT
    assert "2026-03-06" in got.reason


# --- facts ---------------------------------------------------------------------------------------


def test_facts_filed_on_or_before_as_of(store: SecStore) -> None:
    got = store.facts("NVDA", "Revenues", AS_OF)
    assert isinstance(got, Ok)
    assert all(f.filed <= AS_OF for f in got.value)
    assert got.value[-1].filed == date(2025, 8, 27)
    assert got.value[-1].value == 46_743_000_000.0
    later = store.facts("NVDA", "Revenues", date(2026, 12, 31))
    assert isinstance(later, Ok) and max(f.filed for f in later.value) > AS_OF


def test_facts_for_googl_and_goog_share_alphabets_cik(store: SecStore) -> None:
    googl, goog = store.facts("GOOGL", "Revenues", AS_OF), store.facts("GOOG", "Revenues", AS_OF)
    assert isinstance(googl, Ok) and isinstance(goog, Ok)
    assert max(f.filed for f in googl.value) == date(2025, 7, 24)
    assert {f.ticker for f in goog.value} == {"GOOG"}


def test_unknown_concept_lists_close_names(store: SecStore) -> None:
    got = store.facts("AAPL", "NetIncomeLos", AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_FOUND
    assert "us-gaap:NetIncomeLoss" in got.reason


def test_company_without_companyfacts_is_no_data(store: SecStore) -> None:
    got = store.facts("MSFT", "Revenues", AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA
    assert "companyfacts" in got.reason


async def test_through_the_snapshot_vendor(snapshot_dir: Path) -> None:
    vendor = SnapshotVendor(snapshot_dir)
    got = await vendor.filings("NVDA", AS_OF, frozenset({"10-Q"}), 1)
    assert isinstance(got, Ok)
    assert got.value[0].local_path == "sec/filings/NVDA/10-Q_2025-08-27.htm"
    company = await vendor.company("F", AS_OF)
    assert isinstance(company, Ok) and company.value.cik == 37996
