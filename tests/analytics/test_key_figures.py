"""Key figures against the raw companyfacts JSON of AAPL, NVDA and Alphabet (issue 12, defects 4 and 5).

The expected values are read from the raw JSON here, independently of ``analytics.key_figures``: the
latest 10-K row of about a year and the latest 10-Q row of about a quarter filed by the as-of date,
across the revenue concepts (both concepts must agree where they overlap).
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from findesk.analytics.key_figures import CONCEPTS, KeyFigures, Metric, key_figures
from findesk.core.result import Ok
from findesk.data.models import Fact
from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.sec import SecStore

CIKS = {"AAPL": "0000320193", "NVDA": "0001045810", "GOOGL": "0001652044"}
DATES = (date(2025, 8, 29), date(2024, 11, 15))
REVENUE = ("Revenues", "RevenueFromContractWithCustomerExcludingAssessedTax")
PRICE = 200.0


@pytest.fixture(scope="module")
def store(snapshot_dir: Path) -> SecStore:
    return SecStore(SnapshotFiles(snapshot_dir))


def _facts(store: SecStore, ticker: str, as_of: date) -> dict[Metric, list[Fact]]:
    out: dict[Metric, list[Fact]] = {}
    for metric, concepts in CONCEPTS.items():
        got = [store.facts(ticker, c, as_of) for c in concepts]
        out[metric] = [f for r in got if isinstance(r, Ok) for f in r.value]
    return out


def _figures(store: SecStore, ticker: str, as_of: date) -> KeyFigures:
    return key_figures(_facts(store, ticker, as_of), PRICE, as_of, as_of)


def _raw_latest(
    snapshot_dir: Path, ticker: str, concepts: tuple[str, ...], unit: str, form: str, as_of: date
) -> dict[str, Any]:
    """The raw ``form`` row with the latest period end filed by ``as_of`` (10-K ~1 year, 10-Q ~3 months)."""
    raw = json.loads((snapshot_dir / f"sec/companyfacts/CIK{CIKS[ticker]}.json").read_text())
    span = (350, 380) if form == "10-K" else (80, 100)
    rows = [
        r
        for c in concepts
        if c in raw["facts"]["us-gaap"]
        for r in raw["facts"]["us-gaap"][c]["units"].get(unit, [])
        if r.get("form") == form
        and r.get("start")
        and r["filed"] <= as_of.isoformat()
        and span[0] <= (date.fromisoformat(r["end"]) - date.fromisoformat(r["start"])).days <= span[1]
    ]
    latest = max(r["end"] for r in rows)
    values = {r["val"] for r in rows if r["end"] == latest}
    assert len(values) == 1, f"{ticker} concepts disagree for {latest}: {values}"
    return next(r for r in rows if r["end"] == latest)


@pytest.mark.parametrize("as_of", DATES, ids=str)
@pytest.mark.parametrize("ticker", sorted(CIKS))
def test_latest_quarter_and_year_match_the_raw_companyfacts(
    store: SecStore, snapshot_dir: Path, ticker: str, as_of: date
) -> None:
    kf = _figures(store, ticker, as_of)
    shown = {(c.metric, c.period): c.current for c in kf.comparisons}
    for metric, concepts, unit in (
        ("revenue", REVENUE, "USD"),
        ("eps", ("EarningsPerShareDiluted",), "USD/shares"),
    ):
        for period, form in (("year", "10-K"), ("quarter", "10-Q")):
            raw = _raw_latest(snapshot_dir, ticker, concepts, unit, form, as_of)
            got = shown[(metric, period)]
            assert (got.value, got.period_end.isoformat(), got.filed.isoformat(), got.form) == (
                raw["val"],
                raw["end"],
                raw["filed"],
                form,
            ), (ticker, metric, period)
            assert got.accession_number == raw["accn"] and raw["accn"].replace("-", "") in got.citation


def test_aapl_fiscal_2024_revenue_and_eps_are_shown_at_2025_08_29(store: SecStore) -> None:
    # Defect 5: the annual figures were the 11th row of a query capped at 8.
    kf = _figures(store, "AAPL", date(2025, 8, 29))
    year = {c.metric: c for c in kf.comparisons if c.period == "year"}
    assert year["revenue"].current.value == 391_035_000_000
    assert year["revenue"].year_earlier is not None and year["revenue"].year_earlier.value == 383_285_000_000
    assert year["eps"].current.value == 6.08 and year["eps"].current.form == "10-K"
    assert year["eps"].current.filed == date(2024, 11, 1)
    quarter = {c.metric: c for c in kf.comparisons if c.period == "quarter"}
    assert quarter["revenue"].current.value == 94_036_000_000
    assert quarter["revenue"].growth_pct == pytest.approx((94_036 - 85_777) / 85_777 * 100)


def test_googl_shows_fiscal_2024_not_2021_across_revenue_concepts(store: SecStore) -> None:
    # Defect 4: ``Revenues`` stops at FY2021 in 10-Ks; FY2024 is tagged RevenueFromContract….
    kf = _figures(store, "GOOGL", date(2025, 8, 29))
    year = next(c for c in kf.comparisons if (c.metric, c.period) == ("revenue", "year"))
    assert year.current.value == 350_018_000_000 and year.current.period_end == date(2024, 12, 31)
    assert year.current.filed == date(2025, 2, 5)
    assert year.year_earlier is not None and year.year_earlier.value == 307_394_000_000
    quarter = next(c for c in kf.comparisons if (c.metric, c.period) == ("revenue", "quarter"))
    assert quarter.current.value == 96_428_000_000 and quarter.current.concept == "Revenues"


def test_googl_annual_figures_are_shown_at_2024_11_15(store: SecStore) -> None:
    kf = _figures(store, "GOOGL", date(2024, 11, 15))
    year = {c.metric: c.current for c in kf.comparisons if c.period == "year"}
    assert year["revenue"].value == 307_394_000_000 and year["eps"].value == 5.80


def test_trailing_pe_states_its_method_and_inputs(store: SecStore) -> None:
    kf = _figures(store, "AAPL", date(2025, 8, 29))
    pe = kf.trailing_pe
    assert pe is not None and pe.value is not None
    # FY2024 6.08 + nine months to 2025-06-28 5.62 - nine months to 2024-06-29 5.11 (all filed by as_of)
    assert pe.value == pytest.approx(PRICE / (6.08 + 5.62 - 5.11))
    assert pe.method is not None and "year to date 5.62" in pe.method
    assert all(f.filed <= date(2025, 8, 29) for f in pe.inputs)
    dy = kf.dividend_yield
    assert dy is not None and dy.value == pytest.approx((0.98 + 0.76 - 0.73) / PRICE * 100)


def test_a_stock_split_between_inputs_is_not_summed(store: SecStore) -> None:
    # NVDA split 10-for-1 in June 2024: its FY2024 EPS (10-K of 2024-02-21) is on the old basis.
    kf = _figures(store, "NVDA", date(2024, 11, 15))
    assert kf.trailing_pe is not None and kf.trailing_pe.value is None
    assert "stock split" in (kf.trailing_pe.reason or "")
    fy = next(c for c in kf.comparisons if (c.metric, c.period) == ("eps", "year"))
    assert fy.current.value == 11.93 and "stock split" in (fy.note or "")
    later = _figures(store, "NVDA", date(2025, 8, 29))
    assert later.trailing_pe is not None and later.trailing_pe.value == pytest.approx(
        PRICE / (2.94 + 1.84 - 1.27)
    )


def test_no_companyfacts_means_no_figures(store: SecStore) -> None:
    kf = _figures(store, "MSFT", date(2025, 8, 29))
    assert kf.comparisons == []
    assert kf.trailing_pe is not None and kf.trailing_pe.value is None and kf.trailing_pe.reason
