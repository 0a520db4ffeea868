"""The fundamentals tools on the real snapshot: NVDA's TTM at 2024-05-10 from XBRL equals an independent
reading of its companyfacts and uses nothing filed after the date (its Q1 FY2025 10-Q came on
2024-05-29); MSFT at 2025-08-29 from the yfinance quarters; a company with no fundamentals is an honest
no_data; the sector alpha matches closes read straight from the price files."""

from __future__ import annotations

import csv
import gzip
import json
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from findesk.core.result import Err, Ok
from findesk.tools.base import ToolOutcome
from findesk.tools.trading_fundamentals import FundamentalTrends, SectorAlpha

NVDA_DAY = date(2024, 5, 10)
MSFT_DAY = date(2025, 8, 29)
Call = Callable[..., ToolOutcome]


def _value(out: ToolOutcome) -> Any:
    assert isinstance(out.result, Ok), out.summary
    return out.result.value


def _xbrl_quarter_revenue(snapshot: Path, as_of: date) -> dict[str, float]:
    """NVDA's quarterly revenue read from companyfacts by hand: 3-month facts, and the fiscal Q4 as the
    fiscal year minus its 9-month year to date; per period the newest filing on or before ``as_of``."""
    data = json.loads((snapshot / "sec/companyfacts/CIK0001045810.json").read_text())
    rows = [
        f for f in data["facts"]["us-gaap"]["Revenues"]["units"]["USD"] if f["filed"] <= as_of.isoformat()
    ]
    newest: dict[tuple[str, str], dict[str, Any]] = {}
    for f in sorted(rows, key=lambda f: f["filed"]):
        newest[(f["start"], f["end"])] = f
    span = {k: (date.fromisoformat(k[1]) - date.fromisoformat(k[0])).days for k in newest}
    quarters = {k[1]: float(v["val"]) for k, v in newest.items() if 80 <= span[k] <= 100}
    year = max((k for k in newest if span[k] > 350), key=lambda k: k[1])
    nine = next(k for k in newest if k[0] == year[0] and 260 <= span[k] <= 280)
    quarters[year[1]] = float(newest[year]["val"]) - float(newest[nine]["val"])
    return quarters


def test_nvda_ttm_revenue_equals_the_sum_of_its_four_quarters_filed_by_the_date(
    call: Call, snapshot_dir: Path
) -> None:
    out = call("get_fundamental_trends", at=NVDA_DAY, symbol="NVDA")
    assert out.ok, out.summary
    value: FundamentalTrends = _value(out)
    assert value.source == "xbrl" and value.trends is not None
    latest = value.trends.points[0]
    by_hand = _xbrl_quarter_revenue(snapshot_dir, NVDA_DAY)
    last_four = sorted(by_hand)[-4:]
    assert last_four == ["2023-04-30", "2023-07-30", "2023-10-29", "2024-01-28"]
    assert latest.quarter_end == date(2024, 1, 28)
    assert latest.revenue_ttm == sum(by_hand[k] for k in last_four) == 60_922_000_000
    assert "60.92B USD" in out.summary and "fiscal Q4" not in out.summary
    # the fiscal Q4 is derived and the result says so
    assert any(n.startswith("revenue 2023-10-30..2024-01-28 derived") for n in value.trends.notes)


def test_nvda_at_2024_05_10_uses_nothing_filed_after_the_date(call: Call) -> None:
    out = call("get_fundamental_trends", at=NVDA_DAY, symbol="NVDA")
    value: FundamentalTrends = _value(out)
    assert value.trends is not None
    # the quarter ended 2024-04-28 (10-Q filed 2024-05-29) is not there, nor its revenue of 26.04B
    assert all(d < date(2024, 4, 28) for d in value.trends.quarters_used)
    assert all(p.filed is not None and p.filed <= NVDA_DAY for p in value.trends.points)
    assert "2024-04-28" not in out.summary and "26,044,000,000" not in json.dumps(out.payload)
    assert "26.04B" not in out.summary
    # the valuation is at that day's as-traded price with the pre-split EPS the filings then gave
    assert value.valuation["pe"] == pytest.approx(898.78 / 11.93, rel=1e-4)
    assert "P/E 75.34" in out.summary
    # eight TTM points back from the latest, with growth, margins, ROE and debt/equity
    assert len(value.trends.points) == 8
    first = value.trends.points[0]
    assert first.revenue_growth_yoy_pct == pytest.approx((60_922 / 26_974 - 1) * 100)
    assert first.fcf_ttm == 28_090_000_000 - 1_069_000_000  # operating cash flow - capex, FY2024
    assert first.debt_to_equity == pytest.approx(9_709 / 42_978)


def test_msft_at_2025_08_29_from_the_yfinance_quarters(call: Call, snapshot_dir: Path) -> None:
    out = call("get_fundamental_trends", at=MSFT_DAY, symbol="MSFT")
    assert out.ok, out.summary
    value: FundamentalTrends = _value(out)
    assert value.source == "yfinance" and value.trends is not None
    path = snapshot_dir / "fundamentals/yfinance_quarterly_sp500_2024Q3-2025Q3.csv.gz"
    with gzip.open(path, "rt", encoding="utf-8", newline="") as fh:
        rows = {r["date"][:10]: r for r in csv.DictReader(fh) if r["ticker"] == "MSFT" and r["Total Revenue"]}
    # counted as reported 60 days after the quarter end: 2025-06-30 is the newest by 2025-08-29
    expected = sum(
        float(rows[d]["Total Revenue"]) for d in ("2024-09-30", "2024-12-31", "2025-03-31", "2025-06-30")
    )
    assert value.trends.points[0].revenue_ttm == expected == 281_724_000_000
    assert value.trends.quarters_used == [
        date(2025, 6, 30),
        date(2025, 3, 31),
        date(2024, 12, 31),
        date(2024, 9, 30),
    ]
    assert "2025-09-30" in rows and "not yet counted as reported" in value.hidden
    # no cash flow in that source: free cash flow is None with the reason, never 0
    assert value.trends.points[0].fcf_ttm is None
    assert any("no cash-flow statement" in w for w in value.warnings)
    assert value.valuation["pe"] == pytest.approx(506.69 / (3.3 + 3.23 + 3.46 + 3.65), rel=1e-6)


def test_a_company_without_fundamentals_is_no_data_with_the_reason(call: Call) -> None:
    out = call("get_fundamental_trends", at=MSFT_DAY, symbol="RIVN")
    assert not out.ok and isinstance(out.result, Err)
    assert out.error_code == "no_data"
    assert "XBRL" in out.summary and "yfinance" in out.summary and "RIVN" in out.summary


def _closes_from_files(snapshot: Path, stock: str, etf: str) -> tuple[dict[str, float], dict[str, float]]:
    """Closes read straight from the two adjusted price files, by ISO date."""
    path = snapshot / "prices/equities/sp500_daily_ohlcv_adj_2021-01-04_2025-12-30.csv.gz"
    with gzip.open(path, "rt", encoding="utf-8", newline="") as fh:
        s = {r["date"][:10]: float(r["close"]) for r in csv.DictReader(fh) if r["ticker"] == stock}
    funds = pq.read_table(
        snapshot / "prices/etfs/etf_daily_ohlcv_adj_1670_2021-01-04_2025-12-24.parquet",
        columns=["date", "ticker", "close"],
        filters=[("ticker", "==", etf)],
    ).to_pylist()
    e = {r["date"].isoformat(): float(r["close"]) for r in funds}
    return s, e


def test_sector_alpha_matches_closes_read_from_the_price_files(call: Call, snapshot_dir: Path) -> None:
    out = call("get_sector_alpha", at=NVDA_DAY, symbol="NVDA")
    assert out.ok, out.summary
    value: SectorAlpha = _value(out)
    assert value.etf == "XLK" and value.sector == "Information Technology"
    stock, etf = _closes_from_files(snapshot_dir, "NVDA", "XLK")
    end = "2024-05-10"
    starts = {
        "1W": "2024-05-03",
        "1M": "2024-04-10",
        "3M": "2024-02-09",
        "6M": "2023-11-10",
        "YTD": "2023-12-29",
    }
    rows: dict[str, Any] = {r.window: r for r in value.relative}
    assert set(rows) == set(starts)
    for window, start in starts.items():
        r = rows[window]
        assert r.start.isoformat() == start
        # the data layer serves closes rounded to 6 decimals: returns agree to well under 0.0001 pp
        assert r.stock_pct == pytest.approx((stock[end] / stock[start] - 1) * 100, abs=1e-4)
        assert r.etf_pct == pytest.approx((etf[end] / etf[start] - 1) * 100, abs=1e-4)
        assert r.alpha_pp == pytest.approx(r.stock_pct - r.etf_pct)
    assert all(r.start < NVDA_DAY for r in value.relative) and value.session == NVDA_DAY
    assert f"alpha {rows['3M'].alpha_pp:+.2f} pp" in out.summary


def test_peer_ranks_use_the_list_and_figures_known_at_the_date(call: Call) -> None:
    early = _value(call("get_sector_alpha", at=NVDA_DAY, symbol="NVDA"))
    assert early.sub_industry == "Semiconductors" and early.ranking is not None
    assert "constituents_2023-12-31" in " ".join(early.sources)  # the list dated on or before 2024-05-10
    assert set(early.ranking.ranks) == {"return_3m_pct", "return_6m_pct"}  # no quarter reported yet
    assert early.ranking.ranks["return_6m_pct"] == 1
    assert any("no peer valuation" in w for w in early.warnings)
    late = _value(call("get_sector_alpha", at=MSFT_DAY, symbol="MSFT"))
    assert {"pe", "ps"} <= set(late.ranking.ranks)
    assert late.gap is not None and late.gap.metric == "pe"
    peers_pe = sorted(p.pe for p in late.peers if p.symbol != "MSFT" and p.pe is not None and p.pe > 0)
    assert late.gap.peer_median == pytest.approx(
        peers_pe[len(peers_pe) // 2]
        if len(peers_pe) % 2
        else (peers_pe[len(peers_pe) // 2 - 1] + peers_pe[len(peers_pe) // 2]) / 2
    )


def test_a_sector_outside_the_spdr_map_is_no_data_and_the_s_and_p_sector_wins(call: Call) -> None:
    out = call("get_sector_alpha", at=MSFT_DAY, symbol="RIVN", sector="Miscellaneous")
    assert out.error_code == "no_data" and "Miscellaneous" in out.summary
    # a mapped sector, but the snapshot has no adjusted bars for this non-member: an error, not a guess
    given = call("get_sector_alpha", at=MSFT_DAY, symbol="RIVN", sector="Consumer Discretionary")
    assert not given.ok and given.error_code == "not_found"
    # the S&P list's GICS sector wins over a sector the caller gives
    msft = call("get_sector_alpha", at=MSFT_DAY, symbol="MSFT", sector="Finance")
    assert _value(msft).etf == "XLK"
