"""The macro specialist on the real snapshot at 2025-08-29: FRED series with release-lag statements,
correlations after a macro condition, an honest no_data for bitcoin, and quantity names shared with
the equity specialist."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from equity_macro_kit import AS_OF, PNG_SIGNATURE, ask, by_quantity, open_ctx, run

from findesk.agents.roles.research import equity, macro
from findesk.agents.roles.research.conflicts import find_conflicts
from findesk.tools.base import ToolContext


@pytest.fixture(scope="module")
def ctx(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ToolContext]:
    yield from open_ctx(snapshot_dir, tmp_path_factory.mktemp("macro-cache"))


def test_dgs10_at_the_as_of_date_with_its_release_lag(ctx: ToolContext) -> None:
    report, _ = run(macro.ROLE, ask("Where is the 10-year yield and CPI?", series=["DGS10", "CPIAUCSL"]), ctx)
    found = by_quantity(report)
    dgs10 = found["DGS10 2025-08-29"]
    assert dgs10.value == pytest.approx(4.23) and dgs10.observed == AS_OF
    assert "no release lag" in dgs10.text and "4.23" in dgs10.text
    assert (
        dgs10.citations[0].tool == "get_macro_series"
        and dgs10.citations[0].source == "snapshot:fred/DGS10.csv"
    )
    # monthly CPI: the latest observation is at least its release lag before the as-of date
    cpi = next(f for q, f in found.items() if q.startswith("CPIAUCSL "))
    lag = report.data["series"]["CPIAUCSL"]["release_lag_days"]
    assert lag > 0 and f"release lag {lag} days" in cpi.text
    assert cpi.observed is not None and cpi.observed + timedelta(days=lag) <= AS_OF


def test_btc_vs_spx_after_the_10y_crossed_4_5_is_an_honest_no_data(ctx: ToolContext) -> None:
    inputs = ask(
        "BTC vs SPX 30-day correlation after 10Y crossed 4.5%",
        tickers=["SPX"],
        tokens=["bitcoin"],
        series=["DGS10"],
        window_days=30,
        threshold="DGS10>4.5",
    )
    report, outcomes = run(macro.ROLE, inputs, ctx)
    assert outcomes["correlation"].arguments["condition"] == "DGS10>4.5"
    assert outcomes["correlation"].error_code == "no_data"
    missing = [w for w in report.warnings if "correlation of" in w]
    assert len(missing) == 1 and "no daily USD price history for BITCOIN" in missing[0]
    assert "Do not estimate" not in missing[0]  # the tool's instruction to a model is not for the reader
    assert "after DGS10>4.5 began to hold on 2025-06-06" in missing[0]  # when the 10Y crossed, still told
    assert not any("correlation" in (f.quantity or "") for f in report.findings)
    # what the data has is still answered: the index (one name for SPX/^GSPC) and the yield
    found = by_quantity(report)
    assert "^GSPC close 2025-08-29" in found and "DGS10 2025-08-29" in found


def test_correlation_after_the_threshold_is_a_cited_finding(ctx: ToolContext) -> None:
    inputs = ask(
        "SPY vs XLK 30-day correlation after 10Y crossed 4.5%",
        tickers=["SPY", "XLK"],
        window_days=30,
        threshold="DGS10>4.5",
        themes=["correlation"],
    )
    report, _ = run(macro.ROLE, inputs, ctx)
    corr = next(f for f in report.findings if f.quantity and "correlation" in f.quantity)
    assert corr.quantity.startswith("SPY/XLK correlation ")  # type: ignore[union-attr]
    assert corr.value is not None and 0 < corr.value <= 1 and corr.unit == "ratio"
    assert "after DGS10>4.5 began to hold on" in corr.text
    assert {c.source for c in corr.citations} >= {"snapshot:fred/DGS10.csv"}
    assert report.data["correlation"]["crossing"] <= AS_OF.isoformat()
    assert len(report.charts) == 1 and base64.b64decode(report.charts[0].png_base64).startswith(PNG_SIGNATURE)


def test_spy_vs_the_index_correlation_is_near_one(ctx: ToolContext) -> None:
    report, _ = run(
        macro.ROLE, ask("SPY vs S&P 500 over 90 days", tickers=["SPY", "^GSPC"], window_days=90), ctx
    )
    corr = next(f for f in report.findings if f.quantity and "correlation" in f.quantity)
    assert corr.value is not None and corr.value > 0.99


def test_equity_and_macro_name_the_same_spy_figures_alike(ctx: ToolContext) -> None:
    question = "How did SPY do?"
    eq, _ = run(equity.ROLE, ask(question, tickers=["SPY"], window_days=90), ctx)
    mac, _ = run(macro.ROLE, ask(question, tickers=["SPY"]), ctx)
    shared = set(by_quantity(eq)) & set(by_quantity(mac))
    assert any(q.startswith("SPY return ") for q in shared) and "SPY adjusted close 2025-08-29" in shared
    assert not find_conflicts({"equity": eq, "macro": mac})


def test_a_close_is_the_price_quoted_that_day_not_a_later_adjusted_level(ctx: ToolContext) -> None:
    # AAPL: the as-traded close (the one the valuation ratios use), the adjusted level named as such
    eq, _ = run(equity.ROLE, ask("AAPL P/E", tickers=["AAPL"]), ctx)
    close = by_quantity(eq)["AAPL close 2025-08-29"]
    assert close.value == 232.14 and "as traded" in close.text and "reads 231.92" in close.text
    assert any("us_listed_stocks" in c.source for c in close.citations)
    assert "price 232.14 on 2025-08-29" in by_quantity(eq)["AAPL P/E 2025-08-29"].text
    # XLK split 2:1 after the as-of date: its adjusted 130.86 is never called the close (it traded ~262)
    mac, _ = run(macro.ROLE, ask("How did XLK do?", tickers=["XLK"]), ctx)
    found = by_quantity(mac)
    assert "XLK close 2025-08-29" not in found
    adjusted = found["XLK adjusted close 2025-08-29"]
    assert round(adjusted.value or 0, 2) == 130.86 and "the price quoted that day may differ" in adjusted.text
    assert "adjusted closes" in next(f.text for q, f in found.items() if q.startswith("XLK return "))


def test_unknown_series_and_tickers_are_warnings(ctx: ToolContext) -> None:
    report, _ = run(macro.ROLE, ask("NOPE1 and ZZZZ?", series=["NOPE1"], tickers=["ZZZZ"]), ctx)
    assert any(w.startswith("data unavailable: FRED series NOPE1") for w in report.warnings)
    assert any(w.startswith("data unavailable: ZZZZ price history") for w in report.warnings)
    assert not report.findings or all("ZZZZ" not in f.text for f in report.findings)


def test_the_playbook_is_bounded(ctx: ToolContext) -> None:
    inputs = ask(
        "Everything",
        series=["DGS10", "DGS2", "T10Y2Y", "UNRATE", "CPIAUCSL", "GDP"],
        tickers=["SPY", "QQQ", "XLK", "XLF", "XLE", "IWM"],
        tokens=["bitcoin"],
    )
    planned = macro._stage_one(inputs, {})
    assert sum(c.tool == "get_macro_series" for c in planned) == macro.MAX_SERIES
    assert sum(c.tool == "get_return_stats" for c in planned) == macro.MAX_ASSETS
    assert len(planned) <= macro.MAX_SERIES + macro.MAX_ASSETS + 3


def test_no_series_named_reads_the_ten_year_yield(ctx: ToolContext) -> None:
    report, outcomes = run(macro.ROLE, ask("What are rates doing?"), ctx)
    assert set(outcomes) == {"macro:DGS10"} and "DGS10 2025-08-29" in by_quantity(report)
