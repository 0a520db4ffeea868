"""Equity research tools on the real snapshot: quarterly fundamentals point in time, valuation ratios
with the figures used, S&P 500 peers; and a planted future quarter that must stay invisible."""

from __future__ import annotations

import asyncio
import csv
import gzip
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any, cast

import pytest

from findesk.data.context import DataContext
from findesk.data.router import DataRouter
from findesk.data.vendors.base import Category
from findesk.data.vendors.snapshot import SnapshotVendor
from findesk.data.vendors.snapshot.fundamentals import QUARTERLY, REPORT_LAG_DAYS
from findesk.tools.base import ToolContext, ToolOutcome, execute
from findesk.tools.equity_research import get_quarterly_fundamentals

AS_OF = date(2025, 8, 29)  # the run date of the session's ``call`` fixture
Call = Callable[..., ToolOutcome]


def test_quarters_are_shown_only_once_counted_as_reported(call: Call) -> None:
    out = call("get_quarterly_fundamentals", symbol="NVDA", quarters=8)
    assert out.ok, out.summary
    f = out.result.unwrap()
    assert all(q.visible_from <= AS_OF for q in f.quarters)
    ends = [q.quarter_end for q in f.quarters]
    assert ends == sorted(ends, reverse=True)
    # NVDA's quarter labelled 2025-07-31 (10-Q filed 2025-08-27) is not counted yet under the
    # conservative lag; the file's later quarters are counted as hidden, and the summary says why
    assert date(2025, 7, 31) not in ends and date(2025, 4, 30) in ends
    assert f.hidden_quarters >= 2
    assert f"{REPORT_LAG_DAYS} days after" in out.summary
    assert "44,062,000,000 USD" in out.summary  # revenue of the quarter labelled 2025-04-30


def test_an_earlier_as_of_date_sees_fewer_quarters(call: Call) -> None:
    now = call("get_quarterly_fundamentals", symbol="AAPL", quarters=8).result.unwrap()
    then = call("get_quarterly_fundamentals", at=date(2025, 3, 31), symbol="AAPL", quarters=8).result.unwrap()
    assert len(then.quarters) < len(now.quarters)
    assert max(q.visible_from for q in then.quarters) <= date(2025, 3, 31)


def test_aapl_valuation_ratios_name_the_figures_and_dates_used(call: Call) -> None:
    out = call("get_valuation_ratios", symbol="AAPL")
    assert out.ok, out.summary
    v = out.result.unwrap().valuation
    assert v.price_date == AS_OF and v.price == pytest.approx(232.14)  # the as-traded close of the day
    assert v.quarters_used == [date(2025, 6, 30), date(2025, 3, 31), date(2024, 12, 31), date(2024, 9, 30)]
    r = {x.name: x for x in v.ratios}
    assert r["P/E"].value == pytest.approx(232.14 / (1.57 + 1.65 + 2.40 + 0.97))
    assert r["P/S"].value is not None and r["EV/EBITDA"].value is not None
    assert 20 < r["P/E"].value < 50
    for line in (
        "P/E 35.23",
        "TTM diluted EPS 6.59",
        "quarters ended 2024-09-30..2025-06-30",
        "on 2025-08-29",
    ):
        assert line in out.summary
    assert "fundamentals/yfinance_quarterly_sp500_2024Q3-2025Q3.csv.gz" in out.summary


def test_nvda_has_too_few_reported_quarters_for_a_ttm_ratio(call: Call) -> None:
    out = call("get_valuation_ratios", symbol="NVDA")
    assert out.ok
    assert all(
        r.value is None and "4 are needed" in (r.reason or "") for r in out.result.unwrap().valuation.ratios
    )


def test_peers_share_the_gics_sub_industry_of_the_list_known_at_the_date(call: Call) -> None:
    out = call("get_peers", symbol="NVDA")
    assert out.ok, out.summary
    p = out.result.unwrap()
    assert p.sub_industry == "Semiconductors" and p.list_date == date(2025, 8, 12)
    symbols = {x.symbol for x in p.peers}
    assert {"AMD", "AVGO", "INTC"} <= symbols and "NVDA" not in symbols
    early = call("get_peers", at=date(2024, 6, 30), symbol="NVDA").result.unwrap()
    assert early.list_date == date(2023, 12, 31)
    assert call("get_peers", at=date(2023, 1, 1), symbol="NVDA").error_code == "no_data"


def test_share_classes_use_a_dash(call: Call) -> None:
    out = call("get_peers", symbol="brk-b")
    assert out.ok and out.result.unwrap().name == "Berkshire Hathaway"


@pytest.mark.parametrize(
    ("symbol", "code"), [("ZZZZ", "not_found"), ("VOD.L", "out_of_scope"), ("A$PL", "invalid_input")]
)
def test_unknown_or_bad_tickers_are_clear_errors(call: Call, symbol: str, code: str) -> None:
    for tool in ("get_quarterly_fundamentals", "get_valuation_ratios", "get_peers"):
        out = call(tool, symbol=symbol)
        assert out.error_code == code, (tool, out.summary)


def _planted_snapshot(real: Path, root: Path) -> None:
    """The real AAPL rows plus two planted quarters not reported by 2025-08-29."""
    target = root / QUARTERLY
    target.parent.mkdir(parents=True)
    with gzip.open(real / QUARTERLY, "rt", encoding="utf-8", newline="") as src:
        reader = csv.DictReader(src)
        fields = list(reader.fieldnames or [])
        rows = [r for r in reader if r["ticker"] == "AAPL"]
    planted = []
    for end in ("2025-07-31", "2025-09-30"):
        row = dict.fromkeys(fields, "")
        row.update({"date": end, "ticker": "AAPL", "Total Revenue": "999000000000.0", "Diluted EPS": "99.0"})
        planted.append(row)
    with gzip.open(target, "wt", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows + planted)


def test_a_planted_future_quarter_is_never_used(snapshot_dir: Path, tmp_path: Path) -> None:
    _planted_snapshot(snapshot_dir, tmp_path)
    router = DataRouter({Category.FUNDAMENTALS: [SnapshotVendor(tmp_path)]})

    def revenues(as_of: date) -> list[float | None]:
        ctx = ToolContext(router, cast(Any, None), DataContext(mode="snapshot", as_of=as_of))
        args = {"symbol": "AAPL", "quarters": 8}
        out = asyncio.run(execute(get_quarterly_fundamentals, "get_quarterly_fundamentals", args, ctx))
        assert out.ok, out.summary
        return [q.total_revenue for q in out.result.unwrap().quarters]

    assert 999e9 not in revenues(AS_OF)
    assert revenues(date(2025, 12, 31)).count(999e9) == 2  # the same data later: both visible
