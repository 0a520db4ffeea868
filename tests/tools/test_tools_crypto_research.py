"""The crypto research tools on the real snapshot: dated token prices (bitcoin's only recorded quote is in
ETH, with its time), exact ETH balances with the time they were read, and large holders offline.
As-of dates: 2025-08-29 (default), 2024-12-01 and 2023-12-18 (before the recordings)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from decimal import Decimal

from findesk.tools.base import ToolOutcome

Call = Callable[..., ToolOutcome]
BALANCE_ADDRESS = "0x3C69Bc9B9681683890ad82953Fe67d13Cd91D5EE"


def test_bitcoin_price_comes_with_its_timestamp_and_currency(call: Call) -> None:
    outcome = call("get_token_prices", token_id="bitcoin")
    history = outcome.result.unwrap()
    assert history.token_id == "bitcoin"
    (point,) = history.points
    assert (point.price, point.currency, point.kind) == (31.906046, "eth", "spot")
    assert point.at == datetime(2025, 1, 22, 21, 46, 19, tzinfo=UTC)
    assert "2025-01-22 21:46Z: 31.906046 ETH (spot)" in outcome.summary
    assert call("get_token_prices", token_id="BTC").result.unwrap() == history


def test_a_price_recorded_after_as_of_is_not_visible(call: Call) -> None:
    outcome = call("get_token_prices", at=date(2024, 12, 1), token_id="bitcoin")
    assert outcome.error_code == "no_data"
    assert "ethereum" in outcome.summary  # the coins that did have a price by then


def test_ethereum_daily_history_point_is_usd_at_midnight_utc(call: Call) -> None:
    (point,) = call("get_token_prices", token_id="ethereum").result.unwrap().points
    assert point.currency == "usd" and point.kind == "daily"
    assert point.at == datetime(2024, 1, 1, tzinfo=UTC)


def test_eth_balance_is_exact_and_says_when_it_was_read(call: Call) -> None:
    outcome = call("get_eth_balance", address=BALANCE_ADDRESS.lower())
    balance = outcome.result.unwrap()
    assert balance.balance_eth == Decimal("0.960071318")
    assert balance.observed_at == datetime(2023, 12, 19, 15, 1, 31, tzinfo=UTC)
    assert "0.960071318 ETH, as read 2023-12-19 15:01Z" in outcome.summary


def test_eth_balance_before_its_recording_is_no_data_naming_what_exists(call: Call) -> None:
    outcome = call("get_eth_balance", at=date(2023, 12, 18), address=BALANCE_ADDRESS)
    assert outcome.error_code == "no_data" and BALANCE_ADDRESS in outcome.summary
    assert call("get_eth_balance", address="0x1234").error_code == "invalid_input"


def test_offline_large_holder_query_is_no_data_with_the_reason(call: Call) -> None:
    outcome = call("get_large_holders", token="USDC")
    assert outcome.error_code == "no_data"
    assert "Dune" in outcome.summary and "live only" in outcome.summary
    assert "FINDESK_DUNE_API_KEY" in outcome.summary
    assert call("get_large_holders", token="USDC", limit=1000).error_code == "invalid_input"
