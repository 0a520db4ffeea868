"""Market tools on the real snapshot: company identity, quote, price history, point in time."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from findesk.data.models import Company, PriceBars, Quote
from findesk.tools.base import ToolOutcome

Call = Callable[..., ToolOutcome]


def test_company_identity(call: Call) -> None:
    out = call("get_company", symbol="AAPL")
    assert out.ok, out.summary
    company = out.result.unwrap()
    assert isinstance(company, Company)
    assert (company.name, company.cik, company.exchange) == ("Apple Inc.", 320193, "Nasdaq")
    assert "CIK 320193" in out.summary and "Information Technology" in out.summary
    assert "snapshot:sec/company_tickers_exchange.csv" in out.summary


def test_quote_carries_price_session_date_and_source(call: Call) -> None:
    out = call("get_quote", symbol="AAPL")
    assert out.ok, out.summary
    quote = out.result.unwrap()
    assert isinstance(quote, Quote) and quote.price == 232.14
    assert out.summary.startswith("AAPL last price 232.14 USD (session 2025-08-29")
    assert "vs previous close 232.56" in out.summary and "volume 39,387,990 shares" in out.summary
    assert "Source: snapshot:prices/market/" in out.summary
    assert out.payload["price"] == 232.14 and out.payload["session_date"] == "2025-08-29"


def test_an_earlier_as_of_gives_that_sessions_quote(call: Call) -> None:
    out = call("get_quote", at=date(2024, 6, 28), symbol="AAPL")
    assert out.ok, out.summary
    assert out.summary.startswith("AAPL last price 210.62 USD (session 2024-06-28")


def test_price_history_default_window_is_summarized_not_listed(call: Call) -> None:
    out = call("get_price_history", symbol="AAPL")
    assert out.ok, out.summary
    bars = out.result.unwrap()
    assert isinstance(bars, PriceBars)
    assert bars.bars[0].date == date(2025, 6, 2) and bars.bars[-1].date == date(2025, 8, 29)  # 90 days
    assert "63 sessions" in out.summary and "adjusted" in out.summary
    assert f"last close {bars.bars[-1].close:,.2f} on 2025-08-29" in out.summary
    expected = (bars.bars[-1].close / bars.bars[0].close - 1) * 100
    assert f"total return over the window {expected:+.2f}%" in out.summary
    assert "2025-07-15" not in out.summary  # individual bars stay in the full result
    assert len(out.payload["bars"]) == 63


def test_price_history_between_dates(call: Call) -> None:
    out = call("get_price_history", symbol="SPY", start="2025-08-25", end="2025-08-29")
    assert out.ok, out.summary
    assert [b["date"] for b in out.payload["bars"]] == [f"2025-08-{d}" for d in (25, 26, 27, 28, 29)]
    assert "SPY daily bars 2025-08-25 to 2025-08-29: 5 sessions" in out.summary
    assert "highest close 645.22 on 2025-08-28" in out.summary


def test_price_history_never_reaches_past_the_as_of_date(call: Call) -> None:
    out = call("get_price_history", at=date(2025, 6, 30), symbol="AAPL", end="2025-08-29")
    assert out.ok, out.summary
    assert out.payload["bars"][-1]["date"] == "2025-06-30"
    assert "to 2025-06-30:" in out.summary


def test_price_history_window_arguments_are_exclusive(call: Call) -> None:
    out = call("get_price_history", symbol="AAPL", start="2025-01-02", lookback_days=30)
    assert out.error_code == "invalid_input" and "not both" in out.summary
    assert call("get_price_history", symbol="AAPL", lookback_days=5000).error_code == "invalid_input"
    reversed_dates = call("get_price_history", symbol="AAPL", start="2025-08-29", end="2025-08-01")
    assert reversed_dates.error_code == "invalid_input"
