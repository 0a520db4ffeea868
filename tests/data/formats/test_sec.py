"""SEC format parsers on the snapshot's real EDGAR bodies (submissions, companyfacts, ticker tables)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.formats import sec as fmt
from findesk.data.models import Source

AS_OF = date(2025, 8, 29)
SRC = Source(vendor="snapshot", ref="sec/test")


def _load(snapshot_dir: Path, rel: str) -> Any:
    return json.loads((snapshot_dir / rel).read_bytes())


@pytest.fixture(scope="module")
def aapl_subs(snapshot_dir: Path) -> Any:
    return _load(snapshot_dir, "sec/submissions/CIK0000320193.json")


@pytest.fixture(scope="module")
def nvda_subs(snapshot_dir: Path) -> Any:
    return _load(snapshot_dir, "sec/submissions/CIK0001045810.json")


@pytest.fixture(scope="module")
def nvda_facts(snapshot_dir: Path) -> Any:
    return _load(snapshot_dir, "sec/companyfacts/CIK0001045810.json")


def test_submissions_give_aapl_fy2024_10k_with_archives_url(aapl_subs: Any) -> None:
    got = fmt.parse_submissions(aapl_subs, ticker="AAPL", source=SRC)
    assert isinstance(got, Ok)
    tenk = next(f for f in got.value if f.accession_number == "0000320193-24-000123")
    assert tenk.form == "10-K"
    assert tenk.cik == 320193
    assert tenk.filing_date == date(2024, 11, 1)
    assert tenk.report_date == date(2024, 9, 28)
    assert tenk.primary_document == "aapl-20240928.htm"
    assert tenk.url == "https://www.sec.gov/Archives/edgar/data/320193/000032019324000123/aapl-20240928.htm"
    assert tenk.accepted_at is not None and tenk.accepted_at.isoformat() == "2024-11-01T06:01:36+00:00"
    assert tenk.items == []


def test_submissions_as_of_drops_later_filings(aapl_subs: Any) -> None:
    everything = fmt.parse_submissions(aapl_subs, ticker="AAPL", source=SRC)
    visible = fmt.parse_submissions(aapl_subs, ticker="AAPL", source=SRC, as_of=AS_OF)
    assert isinstance(everything, Ok) and isinstance(visible, Ok)
    # the recording runs into 2026; the as-of view must not see any of it
    assert max(f.filing_date for f in everything.value) >= date(2026, 1, 1)
    assert max(f.filing_date for f in visible.value) <= AS_OF
    assert len(everything.value) - len(visible.value) == 47


def test_nvda_8k_items_expand_to_official_titles(nvda_subs: Any) -> None:
    got = fmt.parse_submissions(nvda_subs, ticker="NVDA", source=SRC, as_of=AS_OF)
    assert isinstance(got, Ok)
    latest_8k = next(f for f in got.value if f.form == "8-K")
    assert latest_8k.filing_date == date(2025, 8, 27)
    assert latest_8k.items == ["2.02", "9.01"]
    events = fmt.material_events(got.value)
    earnings = [e for e in events if e.item == "2.02"]
    assert len(earnings) >= 20  # quarterly results since 2019
    assert earnings[0].title == "Results of Operations and Financial Condition"
    assert earnings[0].filing_date == date(2025, 8, 27)
    assert all(e.form in ("8-K", "8-K/A") for e in events)
    amended = [e for e in events if e.form == "8-K/A"]
    assert {e.item for e in amended} == {"2.01", "9.01"}  # the 2020-07-01 Mellanox amendment


def test_unknown_item_code_is_kept_with_unknown_title(nvda_subs: Any) -> None:
    got = fmt.parse_submissions(nvda_subs, ticker="NVDA", source=SRC, as_of=AS_OF)
    assert isinstance(got, Ok)
    eight_k = next(f for f in got.value if f.form == "8-K").model_copy(update={"items": ["2.02", "7.99"]})
    events = fmt.material_events([eight_k])
    assert [(e.item, e.title) for e in events] == [
        ("2.02", "Results of Operations and Financial Condition"),
        ("7.99", "Unknown item"),
    ]


def test_material_events_ignore_other_forms(aapl_subs: Any) -> None:
    got = fmt.parse_submissions(aapl_subs, ticker="AAPL", source=SRC)
    assert isinstance(got, Ok)
    assert fmt.material_events([f for f in got.value if f.form in ("10-K", "10-Q", "4")]) == []


def test_older_page_parses_with_given_cik(snapshot_dir: Path) -> None:
    main = _load(snapshot_dir, "sec/submissions/CIK0001318605.json")
    pages = fmt.older_pages(main)
    assert pages == [("CIK0001318605-submissions-001.json", date(2005, 2, 17), date(2018, 2, 11))]
    page = _load(snapshot_dir, "sec/submissions/CIK0001318605-submissions-001.json")
    got = fmt.parse_submissions(page, ticker="TSLA", source=SRC, cik=1318605)
    assert isinstance(got, Ok)
    assert len(got.value) == 720
    ipo = [f for f in got.value if f.form == "424B4"]
    assert ipo and ipo[-1].filing_date == date(2010, 6, 29)
    assert all(f.url and f.url.startswith("https://www.sec.gov/Archives/edgar/data/1318605/") for f in ipo)
    # an older page does not name its company: without a CIK it cannot be read
    assert isinstance(fmt.parse_submissions(page, ticker="TSLA", source=SRC), Err)


def test_broken_submissions_body_is_bad_response() -> None:
    bodies: list[Any] = [{}, [], {"filings": {"recent": {"accessionNumber": 5}}, "cik": "1"}]
    for body in bodies:
        got = fmt.parse_submissions(body, ticker="X", source=SRC)
        assert isinstance(got, Err) and got.code is ErrorCode.BAD_RESPONSE


def test_nvda_revenues_facts_respect_filed_date(nvda_facts: Any) -> None:
    everything = fmt.parse_facts(nvda_facts, "Revenues", ticker="NVDA", source=SRC)
    visible = fmt.parse_facts(nvda_facts, "us-gaap:revenues", ticker="NVDA", source=SRC, as_of=AS_OF)
    assert isinstance(everything, Ok) and isinstance(visible, Ok)
    assert any(f.filed > AS_OF for f in everything.value)
    assert visible.value and all(f.filed <= AS_OF for f in visible.value)
    q2 = [f for f in visible.value if f.frame == "CY2025Q2"]
    assert len(q2) == 1
    assert q2[0].value == 46_743_000_000.0
    assert (q2[0].period_start, q2[0].period_end) == (date(2025, 4, 28), date(2025, 7, 27))
    assert (q2[0].fiscal_year, q2[0].fiscal_period, q2[0].form) == (2026, "Q2", "10-Q")
    assert q2[0].accession_number == "0001045810-25-000209"
    assert {f.unit for f in visible.value} == {"USD"}


def test_facts_cover_all_units_and_taxonomies(nvda_facts: Any) -> None:
    got = fmt.parse_facts(nvda_facts, "EntityCommonStockSharesOutstanding", ticker="NVDA", source=SRC)
    assert isinstance(got, Ok)
    assert {(f.taxonomy, f.unit) for f in got.value} == {("dei", "shares")}
    assert all(f.period_start is None for f in got.value)  # instant facts


def test_unknown_concept_names_close_matches(nvda_facts: Any) -> None:
    got = fmt.parse_facts(nvda_facts, "Revenue", ticker="NVDA", source=SRC)
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_FOUND
    assert "us-gaap:Revenues" in got.reason
    assert 0 < len(got.details["close_matches"]) <= 5
    wrong_taxonomy = fmt.parse_facts(nvda_facts, "dei:Revenues", ticker="NVDA", source=SRC)
    assert isinstance(wrong_taxonomy, Err) and wrong_taxonomy.code is ErrorCode.NOT_FOUND


def test_company_tickers_json(snapshot_dir: Path) -> None:
    got = fmt.parse_company_tickers(_load(snapshot_dir, "sec/company_tickers.json"))
    assert isinstance(got, Ok)
    assert got.value["AAPL"] == fmt.TickerEntry("AAPL", 320193, "Apple Inc.", None)
    assert got.value["BRK-B"].cik == 1067983
    assert "SPY" in got.value and "XLK" not in got.value  # vintage 2024-05-14: sector ETFs absent
    assert len(got.value) == 9610


def test_company_tickers_exchange_csv(snapshot_dir: Path) -> None:
    text = (snapshot_dir / "sec/company_tickers_exchange.csv").read_text(encoding="utf-8")
    got = fmt.parse_company_tickers_exchange(text)
    assert isinstance(got, Ok)
    assert got.value["F"] == fmt.TickerEntry("F", 37996, "FORD MOTOR CO", "NYSE")
    assert got.value["GOOG"].cik == got.value["GOOGL"].cik == 1652044
    assert got.value["NVDA"].exchange == "Nasdaq"
    assert isinstance(fmt.parse_company_tickers_exchange("a,b\n1,2\n"), Err)


def test_normalize_ticker() -> None:
    assert fmt.normalize_ticker(" brk.b ") == "BRK-B"
    assert fmt.normalize_ticker("BRK/A") == "BRK-A"
    assert fmt.cik10(320193) == "0000320193"
