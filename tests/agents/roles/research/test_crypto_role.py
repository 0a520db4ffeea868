"""The crypto specialist on the real snapshot (as of 2025-08-29): token info with the price's own time and
currency, exact balances with when they were read, transactions, and honest no_data for TVL and holders."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date
from pathlib import Path

import pytest
from specialist_kit import open_context, run_specialist

from findesk.agents.roles.research.crypto import ROLE
from findesk.tools.base import ToolContext

BALANCE_ADDRESS = "0x3C69Bc9B9681683890ad82953Fe67d13Cd91D5EE"
HISTORY = "0xb8553D9ee35dd23BB96fbd679E651B929821969B"


@pytest.fixture
async def ctx(snapshot_dir: Path, tmp_path: Path) -> AsyncIterator[ToolContext]:
    opened = await open_context(snapshot_dir, tmp_path)
    yield opened
    await opened.router.aclose()


async def test_bitcoin_token_info_comes_with_its_price_timestamp(ctx: ToolContext) -> None:
    report, _ = await run_specialist(ROLE, ctx, "What is bitcoin trading at?", tokens=["bitcoin"])
    texts = [f.text for f in report.findings]
    assert any("no USD price with a known time" in t for t in texts)
    quote = next(f for f in report.findings if f.quantity == "BTC price ETH")
    assert (quote.value, quote.unit, quote.observed) == (31.906046, "ETH", date(2025, 1, 22))
    assert "31.91 ETH at 2025-01-22 21:46Z (219 days before the as-of date 2025-08-29)" in quote.text
    assert quote.citations[0].tool == "get_token_prices"
    assert (
        quote.citations[0].source
        == "snapshot:crypto/coingecko/simple_price_bitcoin+dai+binancecoin_vs_eth.json"
    )
    assert report.data["tokens"]["bitcoin"]["points"][0]["at"] == "2025-01-22T21:46:19Z"


async def test_a_usd_price_finding_carries_quantity_value_and_date(ctx: ToolContext) -> None:
    report, _ = await run_specialist(ROLE, ctx, "DAI price?", tokens=["dai"])
    usd = next(f for f in report.findings if f.unit == "USD" and f.quantity and "price" in f.quantity)
    assert (usd.value, usd.observed) == (0.99972, date(2025, 3, 6))
    assert "0.99972 USD as of 2025-03-06" in usd.text and "days before the as-of date" in usd.text


async def test_an_old_price_is_readable_and_says_how_old_it_is(ctx: ToolContext) -> None:
    report, _ = await run_specialist(ROLE, ctx, "ETH price?", tokens=["ethereum"])
    price = next(f for f in report.findings if f.quantity == "ETH price USD")
    assert price.text.startswith(
        "Ethereum (ETH) was priced at 2,279.94 USD as of 2024-01-01"
    )  # not 2,279.9410…
    assert "(606 days before the as-of date 2025-08-29)" in price.text
    cap = next(f for f in report.findings if f.quantity == "ETH market cap USD")
    assert cap.text.endswith("as of 2024-01-01 00:00Z.")  # a market cap is never undated


async def test_large_holders_offline_are_data_unavailable_with_the_reason(ctx: ToolContext) -> None:
    report, outcomes = await run_specialist(
        ROLE, ctx, "Who are the largest USDC holders?", tokens=["usd-coin"]
    )
    assert "holders:usd-coin" in outcomes
    warning = next(w for w in report.warnings if "large holders" in w)
    assert warning.startswith("data unavailable: large holders of usd-coin")
    assert "Dune" in warning and "live only" in warning
    assert "Do not estimate or invent" not in warning


async def test_balance_and_transactions_of_an_address_in_the_text(ctx: ToolContext) -> None:
    report, _ = await run_specialist(
        ROLE, ctx, f"What does {BALANCE_ADDRESS} hold, and what did {HISTORY} do?"
    )
    balance = next(f for f in report.findings if f.quantity == f"{BALANCE_ADDRESS} ETH balance")
    assert balance.value == 0.960071318 and balance.observed == date(2023, 12, 19)
    assert "held 0.960071318 ETH when read at 2023-12-19 15:01Z" in balance.text
    txs = next(f for f in report.findings if f.text.startswith(f"{HISTORY}: the 10 newest"))
    assert txs.citations and all(c.tool == "get_onchain_txs" for c in txs.citations)
    assert any(w.startswith(f"data unavailable: ETH balance of {HISTORY}") for w in report.warnings)
    assert any(
        w.startswith(f"data unavailable: no transactions of {BALANCE_ADDRESS}") for w in report.warnings
    )


async def test_tvl_is_unavailable_offline_and_no_subject_is_said(ctx: ToolContext) -> None:
    report, _ = await run_specialist(ROLE, ctx, "Aave TVL?", protocols=["aave"])
    assert report.findings == [] and report.warnings[0].startswith("data unavailable: TVL of aave")
    empty, outcomes = await run_specialist(ROLE, ctx, "How is crypto doing?")
    assert outcomes == {} and empty.warnings == [
        "data unavailable: the question names no token, address or protocol"
    ]
