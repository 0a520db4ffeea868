"""The snapshot's full-text news search on the real recorded feeds: any ticker's article naming a word,
whole words only, inside the [since, as_of] window, each story once, newest first; no_data with the
feeds' coverage when nothing matches."""

from __future__ import annotations

import csv
import io
import re
from datetime import date
from pathlib import Path

import pytest

from findesk.core.dates import NEW_YORK, new_york_day
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.models import NewsItem
from findesk.data.vendors.base import term_pattern
from findesk.data.vendors.snapshot import SnapshotVendor
from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.news import NewsStore

TARIFF = re.compile(r"\btariff\b", re.IGNORECASE)
# filed under AAPL, MSFT and NVDA by TradingView; "tariff" only in its body
RETIREMENT = "How to Protect Your Retirement Savings — Barron's"


@pytest.fixture(scope="module")
def store(snapshot_dir: Path) -> NewsStore:
    return NewsStore(SnapshotFiles(snapshot_dir))


def search(store: NewsStore, terms: list[str], as_of: date, since: date, limit: int = 1000) -> list[NewsItem]:
    got = store.news_search(terms, as_of, since, limit)
    assert isinstance(got, Ok), got
    return got.value


def test_a_word_finds_articles_of_every_ticker_that_names_it(store: NewsStore) -> None:
    found = search(store, ["tariff"], date(2025, 5, 31), date(2025, 5, 1))
    assert len(found) == 160
    assert all(TARIFF.search(f"{i.title} {i.summary or ''}") for i in found)
    filed_under = {t for i in found for t in i.tickers}
    # not one ticker's feed: the word is found wherever it is written
    assert {"AAPL", "NFLX", "META", "TSLA", "NVDA", "AMZN", "AMD", "AVGO", "MSFT"} <= filed_under
    assert any(not {"AAPL", "NVDA", "MSFT"} & set(i.tickers) for i in found)
    times = [i.published_at for i in found]
    assert times == sorted(times, reverse=True)
    # a story filed under three tickers is one article
    [retirement] = [i for i in found if i.title == RETIREMENT]
    assert set(retirement.tickers) == {"AAPL", "MSFT", "NVDA"}
    assert len({i.url for i in found}) == len(found)


def test_whole_words_case_folded(store: NewsStore) -> None:
    window = (date(2025, 5, 31), date(2025, 5, 1))
    lower = search(store, ["tariff"], *window)
    assert [i.id for i in search(store, ["  TARIFF "], *window)] == [i.id for i in lower]
    plural = search(store, ["tariffs"], *window)
    only_plural = [i for i in plural if not TARIFF.search(f"{i.title} {i.summary or ''}")]
    assert only_plural  # "tariff" did not find the articles that only say "tariffs"
    assert not {i.id for i in only_plural} & {i.id for i in lower}
    both = search(store, ["tariff", "tariffs"], *window)
    assert {i.id for i in both} == {i.id for i in lower} | {i.id for i in plural}


def test_the_matching_rule_every_search_vendor_shares() -> None:
    pattern = term_pattern(["fed", "S&P", "stock  market", " "])
    assert pattern is not None
    assert pattern.search("Fed holds rates") and pattern.search("the FED's minutes")
    assert not pattern.search("FedEx cuts guidance") and not pattern.search("a federal judge")
    assert pattern.search("S&P 500 slips") and not pattern.search("S&PX")
    assert pattern.search("the stock\nmarket fell")  # a phrase across a line break
    assert term_pattern(["", "  "]) is None


def test_nothing_after_as_of_or_before_since(store: NewsStore) -> None:
    since, as_of = date(2025, 5, 17), date(2025, 5, 23)
    found = search(store, ["tariff", "tariffs"], as_of, since)
    days = {new_york_day(i.published_at) for i in found}
    assert min(days) == since and max(days) == as_of  # the window's both ends, New York days
    wider = search(store, ["tariff", "tariffs"], date(2025, 12, 31), date(2025, 1, 1))
    later = [i for i in wider if i.published_at.astimezone(NEW_YORK).date() > as_of]
    earlier = [i for i in wider if i.published_at.astimezone(NEW_YORK).date() < since]
    assert later and earlier  # the feeds hold both; the window kept them out
    assert not {i.id for i in later + earlier} & {i.id for i in found}
    assert search(store, ["tariff", "tariffs"], as_of, since, limit=5) == found[:5]


def test_no_match_is_no_data_naming_the_feeds_up_to_as_of(store: NewsStore) -> None:
    got = store.news_search(["zzyzx"], date(2025, 5, 31), date(2025, 5, 1))
    assert isinstance(got, Err) and got.code is ErrorCode.NO_DATA
    assert "zzyzx" in got.reason and "2025-05-01..2025-05-31" in got.reason
    assert "TradingView (2025-04-09..2025-05-25)" in got.reason
    assert "StockNewsAPI (nothing)" in got.reason  # its articles are all after this as-of date
    assert "2025-11" not in got.reason
    blank = store.news_search(["  "], date(2025, 5, 31), date(2025, 5, 1))
    assert isinstance(blank, Err) and blank.code is ErrorCode.INVALID_INPUT


async def test_the_vendor_serves_the_category(snapshot_dir: Path) -> None:
    vendor = SnapshotVendor(snapshot_dir)
    got = await vendor.news_search(["tariff"], date(2025, 5, 23), date(2025, 5, 23))
    assert isinstance(got, Ok) and got.value
    assert all(new_york_day(i.published_at) == date(2025, 5, 23) for i in got.value)


def test_the_window_is_new_york_days_at_both_ends(snapshot_dir: Path, tmp_path: Path) -> None:
    """Plants around the window's edges in a copy of the finance_news feed: 23:30 in New York on the
    day before ``since`` and 00:30 after ``as_of`` stay out; the minutes just inside are found."""
    feed = "news/finance_news_2025-05-01_2025-08-26.csv"
    (tmp_path / "news").mkdir()
    out = io.StringIO()
    rows = {
        "before since": "2025-05-17 03:30:00+00:00",  # 23:30 New York, 2025-05-16
        "first minute": "2025-05-17 04:30:00+00:00",  # 00:30 New York, 2025-05-17
        "last minute": "2025-05-24 03:30:00+00:00",  # 23:30 New York, 2025-05-23
        "after as_of": "2025-05-24 04:30:00+00:00",  # 00:30 New York, 2025-05-24
    }
    for name, when in rows.items():
        url = f"https://example.com/{name.replace(' ', '-')}"
        csv.writer(out, lineterminator="\n").writerow(
            [f"PLANTED zanzibarite {name}", url, "", "example.com", "['nflx']", "[]", when, when[:10], ""]
        )
    (tmp_path / feed).write_bytes((snapshot_dir / feed).read_bytes() + out.getvalue().encode())
    planted = NewsStore(SnapshotFiles(tmp_path))
    found = search(planted, ["zanzibarite"], date(2025, 5, 23), date(2025, 5, 17))
    assert [i.title for i in found] == ["PLANTED zanzibarite last minute", "PLANTED zanzibarite first minute"]
    everything = search(planted, ["zanzibarite"], date(2025, 5, 31), date(2025, 5, 1))
    assert len(everything) == 4  # the plants outside the window are real data to the store
