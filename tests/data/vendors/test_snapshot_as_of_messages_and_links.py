"""Point in time in what the snapshot vendors say, and EDGAR links for every stored filing (issue 12,
defects 14 and 16), on the real snapshot.

- A no-data message never counts, dates or names data published after the as-of date: every date it
  prints (outside file names, which are source identities) is on or before ``as_of``.
- A metadata row first seen after ``as_of`` is not used (a 2022 company has no sector from 2022-12-27).
- Every stored filing has an sec.gov ``url``, never only a local path.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.macro import MacroStore
from findesk.data.vendors.snapshot.news import NewsStore
from findesk.data.vendors.snapshot.prices import PriceStore
from findesk.data.vendors.snapshot.sec import SecStore
from findesk.data.vendors.snapshot.social import SocialStore

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _dates_said(reason: str) -> list[date]:
    """ISO dates in a message, leaving out file names (``…_2025-12-30.csv.gz``)."""
    words = [w for w in reason.split() if "/" not in w and "_" not in w]
    return [date.fromisoformat(d) for d in _DATE.findall(" ".join(words))]


def _no_future(got: object, as_of: date) -> str:
    assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA, got
    assert "published after" not in got.reason and "exist, all" not in got.reason
    later = [d for d in _dates_said(got.reason) if d > as_of]
    assert not later, (later, got.reason)
    return got.reason


@pytest.fixture(scope="module")
def files(snapshot_dir: Path) -> SnapshotFiles:
    return SnapshotFiles(snapshot_dir)


def test_reddit_before_any_post_says_nothing_of_later_posts(files: SnapshotFiles) -> None:
    # was: "113 post(s) about NVDA exist, all published after 2021-06-01" and the files' later spans
    reason = _no_future(SocialStore(files).reddit("NVDA", date(2021, 6, 1), 10), date(2021, 6, 1))
    assert "hold no post" in reason


def test_reddit_spans_are_capped_at_the_as_of_date(files: SnapshotFiles) -> None:
    reason = _no_future(SocialStore(files).reddit("F", date(2022, 1, 21), 10), date(2022, 1, 21))
    assert "2022-01-18..2022-01-21" in reason and "none about F" in reason


@pytest.mark.parametrize("as_of", [date(2019, 8, 29), date(2021, 8, 29), date(2025, 8, 29)])
def test_stocktwits_lists_only_streams_visible_at_the_as_of_date(files: SnapshotFiles, as_of: date) -> None:
    store = SocialStore(files)
    reason = _no_future(store.stocktwits("AMZN", as_of, 10), as_of)
    assert ("ETH.X" in reason) == (as_of >= date(2022, 6, 29))
    assert ("AAPL (2020-04-24..2020-04-24)" in reason) == (as_of >= date(2020, 4, 24))
    if as_of < date(2020, 4, 24):
        _no_future(store.stocktwits("AAPL", as_of, 10), as_of)


def test_news_coverage_is_capped_at_the_as_of_date(files: SnapshotFiles) -> None:
    reason = _no_future(NewsStore(files).news("NVDA", date(2023, 1, 1), 10), date(2023, 1, 1))
    assert "TradingView (nothing)" in reason


def test_prices_before_the_data_do_not_date_the_data(files: SnapshotFiles) -> None:
    store = PriceStore(files)
    _no_future(store.quote("AAPL", date(2005, 1, 3)), date(2005, 1, 3))
    _no_future(store.quote("META", date(2012, 1, 3)), date(2012, 1, 3))


def test_macro_before_the_series_does_not_date_it(files: SnapshotFiles) -> None:
    _no_future(MacroStore(files).series("T10YIE", date(2002, 12, 31), None), date(2002, 12, 31))


def test_sector_metadata_first_seen_after_the_as_of_date_is_not_used(files: SnapshotFiles) -> None:
    store = SecStore(files)
    early = store.company("TSLA", date(2022, 6, 30))
    assert isinstance(early, Ok)
    # the Nasdaq row (first_seen 2022-12-27) and the first S&P list (2023-12-31) came later
    assert (early.value.sector, early.value.industry) == (None, None)
    assert "us_listed_stocks_metadata" not in (early.value.source.note or "")
    seen = store.company("TSLA", date(2023, 6, 30))
    assert isinstance(seen, Ok) and seen.value.sector == "Industrials"


@pytest.mark.parametrize("symbol", ["AAPL", "NVDA", "MSFT", "TSLA", "AMZN", "GOOGL", "GOOG", "META", "WFC"])
def test_every_listed_filing_has_an_sec_gov_link(files: SnapshotFiles, symbol: str) -> None:
    got = SecStore(files).filings(symbol, date(2025, 8, 29), None, 40)
    assert isinstance(got, Ok) and got.value
    for f in got.value:
        assert f.url is not None and f.url.startswith("https://www.sec.gov/"), (f.form, f.filing_date)


def test_stored_10k_without_accession_links_to_edgar_search(files: SnapshotFiles) -> None:
    got = SecStore(files).filings("AMZN", date(2025, 8, 29), frozenset({"10-K"}), 1)
    assert isinstance(got, Ok)
    f = got.value[0]
    assert f.local_path == "sec/filings/AMZN/10-K_2025-02-07.htm" and f.accession_number is None
    assert f.url == (
        "https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&CIK=0001018724&type=10-K"
        "&dateb=20250207&owner=include&count=10"
    )
    assert f.source.note is not None and "no complete filing list" in f.source.note


def test_googl_filings_come_from_companyfacts_with_index_pages(files: SnapshotFiles) -> None:
    store = SecStore(files)
    got = store.filings("GOOGL", date(2025, 8, 29), frozenset({"10-K", "10-Q"}), 3)
    assert isinstance(got, Ok)
    assert [(f.form, f.filing_date.isoformat(), f.accession_number) for f in got.value] == [
        ("10-Q", "2025-07-24", "0001652044-25-000062"),
        ("10-Q", "2025-04-25", "0001652044-25-000043"),
        ("10-K", "2025-02-05", "0001652044-25-000014"),
    ]
    ten_k = got.value[2]
    # the stored document is the same filing: one entry, readable, linked to its EDGAR index page
    assert ten_k.local_path == "sec/filings/GOOGL/10-K_2025-02-05.htm"
    assert ten_k.url is not None and ten_k.url.endswith("/000165204425000014/0001652044-25-000014-index.htm")
    doc = store.document(ten_k, date(2025, 8, 29))
    assert isinstance(doc, Ok) and doc.value.format == "html"
    # companyfacts names no 8-Ks: an 8-K query is still "no data", not "none filed"
    eight_k = store.filings("GOOGL", date(2025, 8, 29), frozenset({"8-K"}), 3)
    assert isinstance(eight_k, Err) and eight_k.code is ErrorCode.NO_DATA
    # nothing filed after the as-of date
    early = store.filings("GOOGL", date(2025, 3, 3), frozenset({"10-K", "10-Q"}), 1)
    assert isinstance(early, Ok) and early.value[0].filing_date == date(2025, 2, 5)
