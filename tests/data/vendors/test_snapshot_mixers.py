"""The snapshot's known mixer contracts and recorded Tornado Cash withdrawals, its ETH balances and its
dated token prices: point in time by each file's own date, exact amounts, honest no_data."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from findesk.core.result import Err, Ok
from findesk.data.router import DataRouter
from findesk.data.vendors.base import Category, Vendor
from findesk.data.vendors.snapshot import SnapshotVendor
from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.mixers import MixerStore

POOL = "0xD4B88Df4D29F5CedD6857912842cff3b20C8Cfa3"
RECIPIENT = "0x817e4317e50ef0e4721d020bd8b5ab775d207d6d"
AS_OF = date(2025, 8, 29)


@pytest.fixture(scope="module")
def store(snapshot_dir: Path) -> MixerStore:
    return MixerStore(SnapshotFiles(snapshot_dir))


def test_the_list_holds_every_pool_and_helper_dated_by_its_source(store: MixerStore) -> None:
    listed = store.contracts(AS_OF).unwrap()
    assert listed.list_date == date(2022, 7, 2)
    assert len([c for c in listed.contracts if c.kind == "pool"]) == 61
    assert len(listed.contracts) == 77
    found = listed.find(POOL.upper().replace("0X", "0x"))
    assert found is not None and (found.token, found.denomination, found.chain_id) == ("dai", "100", 1)
    assert listed.find(POOL, chain_id=10) is None


def test_before_its_date_the_list_is_no_data_not_an_empty_list(store: MixerStore) -> None:
    got = store.contracts(date(2022, 7, 1))
    assert isinstance(got, Err) and got.code.value == "no_data" and "2022-07-02" in got.reason


def test_withdrawals_pay_the_denomination_minus_the_relayer_fee(store: MixerStore) -> None:
    paid = store.withdrawals_to(RECIPIENT.upper().replace("0X", "0x"), AS_OF).unwrap()
    assert len(paid) == 8 and all(t.from_address == POOL and t.asset == "DAI" for t in paid)
    assert all(Decimal(0) < t.value <= Decimal(100) for t in paid)
    assert sum((t.value for t in paid), Decimal(0)) == Decimal("734.660940326856572614")
    assert [t.block_number for t in paid] == sorted((t.block_number for t in paid), reverse=True)


def test_a_withdrawal_time_is_an_upper_bound_from_the_next_deposit_and_says_so(store: MixerStore) -> None:
    newest = store.withdrawals_to(RECIPIENT, AS_OF).unwrap()[0]
    assert newest.timestamp == datetime(2021, 7, 17, 22, 9, 14, tzinfo=UTC)
    assert newest.source.note is not None and "upper bound" in newest.source.note


def test_withdrawals_are_invisible_before_the_cache_date_and_bad_addresses_are_refused(
    store: MixerStore,
) -> None:
    assert store.withdrawals_to(RECIPIENT, date(2022, 7, 1)).unwrap() == []
    bad = store.withdrawals_to("0x817e", AS_OF)
    assert isinstance(bad, Err) and bad.code.value == "invalid_input"


async def test_the_router_serves_balances_mixers_and_prices_from_the_snapshot(snapshot_dir: Path) -> None:
    vendor = SnapshotVendor(snapshot_dir)
    router = DataRouter({c: [vendor] for c in Category})
    assert isinstance(await router.mixer_contracts(AS_OF), Ok)
    assert len((await router.mixer_transfers(RECIPIENT, AS_OF)).unwrap()) == 8
    balance = (await router.eth_balance("0x6c66149E65c517605e0a2e4F707550ca342f9c1B", AS_OF)).unwrap()
    assert balance.balance_eth == Decimal(0)
    prices = (await router.token_prices("dai", AS_OF)).unwrap()
    assert [(p.currency, p.price) for p in prices.points] == [("eth", 0.0003068), ("usd", 0.99972)]
    holders = await router.large_holders("USDC", AS_OF)
    assert isinstance(holders, Err) and holders.code.value == "no_data"


async def test_a_vendor_that_does_not_serve_them_says_so() -> None:
    router = DataRouter({Category.ONCHAIN: [Vendor()], Category.SANCTIONS: [Vendor()]})
    got = await router.mixer_contracts(AS_OF)
    assert isinstance(got, Err) and got.code.value == "not_configured"
    missing = await router.large_holders("USDC", AS_OF)
    assert isinstance(missing, Err) and "no vendor is configured for holders" in missing.reason
