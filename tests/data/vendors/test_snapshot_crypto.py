"""CryptoStore on the recorded Etherscan, CoinGecko and DefiLlama responses."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.vendors.snapshot import SnapshotVendor
from findesk.data.vendors.snapshot.crypto import CryptoStore
from findesk.data.vendors.snapshot.files import SnapshotFiles

B855 = "0xb8553D9ee35dd23BB96fbd679E651B929821969B"
A1E4 = "0xA1E4380A3B1f749673E270229993eE55F35663b4"
AS_OF = date(2025, 8, 29)


@pytest.fixture(scope="module")
def store(snapshot_dir: Path) -> CryptoStore:
    return CryptoStore(SnapshotFiles(snapshot_dir))


def test_txs_merge_normal_internal_token_newest_first(store: CryptoStore) -> None:
    got = store.txs(B855.lower(), AS_OF, 100)  # case-insensitive address
    assert isinstance(got, Ok)
    txs = got.value
    # 19 normal + 5 internal + 5 token transfers; the overlapping block-range recordings add nothing new
    assert len(txs) == 29
    assert {t.kind for t in txs} == {"normal", "internal", "token"}
    assert [t.timestamp for t in txs] == sorted((t.timestamp for t in txs), reverse=True)
    newest = [
        t for t in txs if t.hash == "0x375f529c5ed649b257abca3da182c48310e78cbb0ded2c8de264f3f1924144cf"
    ]
    assert [(t.kind, t.asset, t.value) for t in newest] == [
        ("normal", "ETH", Decimal("0.000444264835797091")),
        ("internal", "ETH", Decimal("0.000003941437945815")),
        ("token", "USDC", Decimal(110)),
    ]
    assert newest[0].source.ref.startswith("crypto/etherscan/txlist_0xb8553D9e")
    assert "blocks 0-16295684" in (newest[0].source.note or "")


def test_txs_point_in_time(store: CryptoStore) -> None:
    got = store.txs(A1E4, date(2022, 7, 16), 500)
    assert isinstance(got, Ok)
    cutoff = datetime(2022, 7, 17, 3, 59, 59, 999999, tzinfo=UTC)  # end of 2022-07-16 in New York
    assert got.value and all(t.timestamp <= cutoff for t in got.value)
    full = store.txs(A1E4, AS_OF, 500)
    assert isinstance(full, Ok) and len(full.value) == 136
    assert len(got.value) < 136
    assert full.value[-1].value == Decimal(2000) and full.value[-1].from_address == "GENESIS"


def test_txs_limit(store: CryptoStore) -> None:
    got = store.txs(A1E4, AS_OF, 3)
    assert isinstance(got, Ok) and len(got.value) == 3
    assert got.value[0].hash == "0x769c1bbc0374a06a6932f791110f12b2ecc09a76d8518b26c0a7b63c796f62aa"


def test_txs_unknown_and_invalid_address(store: CryptoStore) -> None:
    got = store.txs("0x" + "1" * 40, AS_OF, 10)
    assert isinstance(got, Err) and got.code == ErrorCode.NO_DATA
    assert "only holds Etherscan recordings for these addresses" in got.reason and B855 in got.reason
    bad = store.txs("0x1234", AS_OF, 10)
    assert isinstance(bad, Err) and bad.code == ErrorCode.INVALID_INPUT


def test_recorded_empty_history_is_empty(store: CryptoStore) -> None:
    assert store.txs("0x3C69Bc9B9681683890ad82953Fe67d13Cd91D5EE", AS_OF, 10) == Ok([])


def test_token_by_symbol_with_dated_price(store: CryptoStore) -> None:
    got = store.token("ETH", AS_OF)
    assert isinstance(got, Ok)
    info = got.value
    assert (info.id, info.name, info.price_usd) == ("ethereum", "Ethereum", 2279.9410085689606)
    assert info.price_as_of == datetime(2024, 1, 1, tzinfo=UTC)
    assert info.source.ref == "crypto/coingecko/coins_ethereum_history_01-01-2024.json"


def test_token_only_from_recordings_dated_on_or_before_as_of(store: CryptoStore) -> None:
    # the ethereum history response was recorded on 2024-03-27
    early = store.token("ethereum", date(2024, 3, 26))
    assert isinstance(early, Err) and early.code == ErrorCode.NO_DATA
    assert isinstance(store.token("ethereum", date(2024, 3, 27)), Ok)
    # DAI's only USD price is DefiLlama's, recorded 2025-03-06; before that only a price in ETH exists
    before = store.token("dai", date(2025, 3, 5))
    assert isinstance(before, Ok) and before.value.price_usd is None
    assert "0.0003068 ETH" in (before.value.source.note or "")
    after = store.token("dai", date(2025, 3, 6))
    assert isinstance(after, Ok) and after.value.price_usd == 0.99972


def test_token_metadata_and_defillama_price(store: CryptoStore) -> None:
    yfi = store.token("yfi", AS_OF)
    assert isinstance(yfi, Ok)
    assert yfi.value.contracts["ethereum"] == "0x0bc529c00c6401aef6d220be8c6ea1667f6ad93e"
    assert yfi.value.price_usd is None  # metadata was recorded without market data
    dai = store.token("dai", AS_OF)
    assert isinstance(dai, Ok)
    assert dai.value.price_usd == 0.99972
    assert dai.value.price_as_of == datetime.fromtimestamp(1741276617, tz=UTC)
    assert dai.value.name == "Dai"  # from the coins/list recording


def test_token_unknown(store: CryptoStore) -> None:
    got = store.token("dogecoin", AS_OF)
    assert isinstance(got, Err) and got.code == ErrorCode.NO_DATA
    assert "do not estimate" in got.reason


def test_tvl_is_absent(store: CryptoStore) -> None:
    got = store.tvl("aave", AS_OF)
    assert isinstance(got, Err) and got.code == ErrorCode.NO_DATA
    assert "no DefiLlama TVL" in got.reason


async def test_through_the_snapshot_vendor(snapshot_dir: Path) -> None:
    vendor = SnapshotVendor(snapshot_dir)
    got = await vendor.onchain_txs(B855, AS_OF, 5)
    assert isinstance(got, Ok) and len(got.value) == 5
    token = await vendor.token("bitcoin", AS_OF)
    assert isinstance(token, Ok) and token.value.symbol == "btc"
