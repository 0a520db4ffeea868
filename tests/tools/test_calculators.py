"""The calculator tools on the real snapshot: return statistics, correlations (with a macro
condition), the chart, and what happens with assets the data does not have."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, cast

import pytest

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.context import DataContext
from findesk.data.models import PriceBar, PriceBars, Source
from findesk.data.models.onchain_risk import TokenPrice, TokenPriceHistory
from findesk.data.router import DataRouter
from findesk.data.vendors.base import Category, Vendor
from findesk.tools.base import ToolContext, ToolOutcome, execute
from findesk.tools.calculators import get_correlation, get_return_stats, resolve_asset

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

AS_OF = date(2025, 8, 29)  # the run date of the session's ``call`` fixture
Call = Callable[..., ToolOutcome]


def test_spy_and_the_sp500_index_move_together(call: Call) -> None:
    out = call("get_correlation", a="SPY", b="^GSPC", window_days=90)
    assert out.ok, out.summary
    c = out.result.unwrap()
    assert c.r > 0.99
    assert c.end == AS_OF and c.pairs > 50
    assert "snapshot:fred/SP500.csv" in c.sources
    assert "r = 0.99" in out.summary


def test_index_aliases_are_one_asset() -> None:
    names = {resolve_asset(a).value.name for a in ("^GSPC", "spx", "^SPX", "GSPC")}  # type: ignore[union-attr]
    assert names == {"^GSPC"}


def test_correlation_after_a_threshold_starts_at_the_latest_crossing(call: Call) -> None:
    out = call("get_correlation", a="SPY", b="XLK", window_days=30, condition="DGS10>4.5")
    assert out.ok, out.summary
    c = out.result.unwrap()
    assert c.crossing is not None and c.crossing <= AS_OF
    dgs10 = call("get_macro_series", series_id="DGS10", start="2025-01-01").result.unwrap()
    values = {o.date: o.value for o in dgs10.observations if o.value is not None}
    days = sorted(values)
    # the crossing day held the condition and the observation before it did not
    assert values[c.crossing] > 4.5
    before = [d for d in days if d < c.crossing][-1]
    assert values[before] <= 4.5
    assert c.start >= c.crossing and (c.end - c.crossing).days <= 30
    assert c.condition_source == "snapshot:fred/DGS10.csv"
    assert 0.0 < c.r <= 1.0


def test_a_rate_series_is_compared_by_its_changes(call: Call) -> None:
    out = call("get_correlation", a="SPY", b="FRED:DGS10", window_days=60)
    assert out.ok, out.summary
    assert out.result.unwrap().b_basis == "daily changes" and -1 <= out.result.unwrap().r <= 1


def test_bitcoin_has_no_daily_history_and_says_so(call: Call) -> None:
    out = call("get_correlation", a="BTC", b="SPX", window_days=30, condition="DGS10>4.5")
    assert out.error_code == "no_data"
    assert "no daily USD price history for BTC" in out.summary and "market_chart" in out.summary
    assert "1 price point(s): spot ETH 2025-01-22" in out.summary  # what the data does hold
    # the reader who asked "after 10Y crossed 4.5%" still learns when it crossed
    crossing = call("get_correlation", a="SPY", b="XLK", window_days=30, condition="DGS10>4.5")
    day = crossing.result.unwrap().crossing.isoformat()
    assert f"after DGS10>4.5 began to hold on {day}, per snapshot:fred/DGS10.csv" in out.summary


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({"a": "SPY", "b": "^GSPC", "condition": "DGS10 above 4.5"}, "invalid_input"),
        ({"a": "SPY", "b": "^GSPC", "condition": "DGS10>99"}, "no_data"),  # never held
        ({"a": "SPY", "b": "NOPEX1"}, "not_found"),
        ({"a": "SPY", "b": "VOD.L"}, "out_of_scope"),
        ({"a": "SPY", "b": "'; DROP TABLE--"}, "invalid_input"),
        ({"a": "SPY", "b": "FRED:DGS10;rm"}, "invalid_input"),
        ({"a": "SPY", "b": "^GSPC", "window_days": 10_000}, "invalid_input"),
        ({"a": "SPY", "b": "X" * 41}, "invalid_input"),
    ],
)
def test_bad_assets_and_conditions_are_clear_errors(call: Call, args: dict[str, Any], code: str) -> None:
    out = call("get_correlation", **args)
    assert out.error_code == code, out.summary


def test_a_holiday_week_is_too_short_for_a_correlation(call: Call) -> None:
    # 2024-12-27..2025-01-03 holds five sessions: four paired moves, below the minimum of five
    out = call("get_correlation", at=date(2025, 1, 3), a="SPY", b="QQQ", window_days=7)
    assert out.error_code == "no_data" and "paired daily moves" in out.summary


def test_return_stats_of_spy_state_the_window_basis_and_risk_free_rate(call: Call) -> None:
    out = call("get_return_stats", asset="SPY", lookback_days=90)
    assert out.ok, out.summary
    s = out.result.unwrap()
    assert s.end == AS_OF and s.start >= date(2025, 5, 31)
    assert s.total_return_pct == pytest.approx((s.last_value / s.first_value - 1) * 100)
    assert s.volatility_pct is not None and 3 < s.volatility_pct < 60
    assert s.max_drawdown is not None and s.max_drawdown.depth_pct <= 0
    # DGS3MO is not in the snapshot: the rate used is FEDFUNDS, with its date and file
    assert s.risk_free_basis.startswith("FEDFUNDS") and "snapshot:fred/FEDFUNDS.csv" in s.risk_free_basis
    assert "Sharpe" in out.summary and "risk-free FEDFUNDS" in out.summary


def test_a_later_price_in_the_data_is_invisible_before_its_date(call: Call) -> None:
    before = call("get_return_stats", asset="SPY", lookback_days=30).result.unwrap()
    later = call("get_return_stats", at=date(2025, 10, 31), asset="SPY", lookback_days=30).result.unwrap()
    assert before.end == AS_OF and later.end > AS_OF
    assert before.last_value != later.last_value


def test_a_rate_series_has_no_returns(call: Call) -> None:
    out = call("get_return_stats", asset="FRED:DGS10")
    assert out.error_code == "invalid_input" and "rate series" in out.summary


class FutureBarVendor(Vendor):
    """A faulty vendor that returns a planted bar after the as-of date."""

    name = "faulty"
    categories = frozenset({Category.BARS})

    async def bars(self, symbol: str, start: date, end: date, as_of: date) -> Result[PriceBars]:
        days = [date(2025, 8, d) for d in (20, 21, 22, 25, 26, 27, 28, 29)] + [date(2025, 9, 30)]
        closes = [100.0, 101, 99, 102, 103, 101, 104, 105, 1_000_000.0]
        bars = [
            PriceBar(date=d, open=None, high=None, low=None, close=c, volume=None)
            for d, c in zip(days, closes, strict=True)
        ]
        return Ok(
            PriceBars(
                symbol=symbol,
                adjusted=False,
                start=start,
                end=end,
                bars=bars,
                source=Source(vendor="faulty", ref="x"),
            )
        )


def test_a_planted_future_bar_never_reaches_a_statistic() -> None:
    router = DataRouter({Category.BARS: [FutureBarVendor()]})
    ctx = ToolContext(router, cast(Any, None), DataContext(mode="snapshot", as_of=AS_OF))
    out = asyncio.run(
        execute(get_return_stats, "get_return_stats", {"asset": "ABC", "lookback_days": 30}, ctx)
    )
    assert out.ok, out.summary
    s = out.result.unwrap()
    assert s.end == AS_OF and s.last_value == 105.0
    corr = asyncio.run(execute(get_correlation, "get_correlation", {"a": "ABC", "b": "ABC"}, ctx))
    assert corr.ok and corr.result.unwrap().end == AS_OF


def test_chart_is_a_png_and_names_what_it_could_not_draw(call: Call) -> None:
    out = call("make_price_chart", assets=["NVDA", "AAPL", "^GSPC", "NOPEX1"], lookback_days=90)
    assert out.ok, out.summary
    chart = out.result.unwrap()
    assert base64.b64decode(chart.png_base64).startswith(PNG_SIGNATURE)
    assert chart.assets == ["NVDA", "AAPL", "^GSPC"]
    assert len(chart.missing) == 1 and chart.missing[0].startswith("NOPEX1")
    assert "NOPEX1" in out.summary


def test_chart_of_nothing_drawable_is_no_data(call: Call) -> None:
    out = call("make_price_chart", assets=["BTC", "NOPEX1"])
    assert out.error_code == "no_data" and "BTC" in out.summary and "NOPEX1" in out.summary
    too_many = call("make_price_chart", assets=["A", "B", "C", "D", "E"])
    assert too_many.error_code == "invalid_input"


def test_crypto_names_resolve_to_tokens_and_bad_ones_are_refused() -> None:
    assert resolve_asset("CRYPTO:bitcoin").unwrap().key == "bitcoin"
    assert resolve_asset("btc").unwrap().kind == "crypto"
    # the exchange spellings of bitcoin ask the token data for the same coin as "BTC"
    assert {resolve_asset(n).unwrap().key for n in ("BTC", "BTC-USD", "XBT", "btc-usd")} == {"btc"}
    assert resolve_asset("ETH-USD").unwrap().key == "eth"
    bad = resolve_asset("CRYPTO:bit coin;")
    assert isinstance(bad, Err) and bad.code == ErrorCode.INVALID_INPUT


class DailyTokenVendor(Vendor):
    """A token vendor with daily USD prices (as a live CoinGecko history would give), one planted
    after the as-of date."""

    name = "daily"
    categories = frozenset({Category.TOKEN_PRICES})

    async def token_prices(self, token_id: str, as_of: date) -> Result[TokenPriceHistory]:
        scale = 2.0 if token_id == "bitcoin" else 1.0
        closes = [100.0, 103, 101, 106, 104, 108, 107, 111]
        days = [AS_OF - timedelta(days=7 - i) for i in range(8)] + [AS_OF + timedelta(days=1)]
        points = [
            TokenPrice(
                price=c * scale,
                currency="usd",
                at=datetime.combine(d, time(), UTC),
                kind="daily",
                source=Source(vendor="daily", ref=token_id),
            )
            for d, c in zip(days, [*closes, 1e9], strict=True)
        ]
        return Ok(TokenPriceHistory(token_id=token_id, points=points))


def test_crypto_with_daily_prices_is_correlated_up_to_the_as_of_date() -> None:
    router = DataRouter({Category.TOKEN_PRICES: [DailyTokenVendor()]})
    ctx = ToolContext(router, cast(Any, None), DataContext(mode="snapshot", as_of=AS_OF))
    args = {"a": "CRYPTO:bitcoin", "b": "CRYPTO:ethereum", "window_days": 10}
    out = asyncio.run(execute(get_correlation, "get_correlation", args, ctx))
    assert out.ok, out.summary
    c = out.result.unwrap()
    assert c.r == pytest.approx(1.0) and c.end == AS_OF and c.pairs == 7
