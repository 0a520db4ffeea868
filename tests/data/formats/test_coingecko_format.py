"""CoinGecko response parsing on the snapshot's real recordings."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.formats import coingecko
from findesk.data.models import Source

SRC = Source(vendor="test", ref="x")


def _load(snapshot_dir: Path, name: str) -> object:
    return json.loads((snapshot_dir / "crypto" / "coingecko" / name).read_bytes())


def test_coin_metadata_without_market_data(snapshot_dir: Path) -> None:
    got = coingecko.parse_coin(_load(snapshot_dir, "coins_yearn-finance.json"), SRC)
    assert isinstance(got, Ok)
    info = got.value
    assert (info.id, info.symbol, info.name) == ("yearn-finance", "yfi", "yearn.finance")
    assert info.contracts["ethereum"] == "0x0bc529c00c6401aef6d220be8c6ea1667f6ad93e"
    assert info.price_usd is None and info.price_as_of is None
    btc = coingecko.parse_coin(_load(snapshot_dir, "coins_bitcoin.json"), SRC)
    assert isinstance(btc, Ok) and btc.value.contracts == {}  # CoinGecko's {"": ""} is no platform


def test_history_price_is_dated_midnight_utc(snapshot_dir: Path) -> None:
    got = coingecko.parse_history(
        _load(snapshot_dir, "coins_ethereum_history_01-01-2024.json"), date(2024, 1, 1), SRC
    )
    assert isinstance(got, Ok)
    assert got.value.price_usd == 2279.9410085689606
    assert got.value.market_cap_usd == 274292310008.21802
    assert got.value.price_as_of == datetime(2024, 1, 1, tzinfo=UTC)


def test_simple_price_and_list(snapshot_dir: Path) -> None:
    got = coingecko.parse_simple_price(
        _load(snapshot_dir, "simple_price_bitcoin+dai+binancecoin_vs_eth.json")
    )
    assert got == Ok(
        {"binancecoin": {"eth": 0.21387074}, "bitcoin": {"eth": 31.906046}, "dai": {"eth": 0.0003068}}
    )
    listed = coingecko.parse_coins_list(_load(snapshot_dir, "coins_list.json"))
    assert isinstance(listed, Ok) and len(listed.value) == 17892
    assert coingecko.resolve_ids("btc", listed.value) == ["bitcoin"]  # pinned among many "btc" coins
    assert coingecko.resolve_ids("yearn-finance", listed.value) == ["yearn-finance"]


def test_symbol_resolution_is_unique_or_ambiguous(snapshot_dir: Path) -> None:
    listed = coingecko.parse_coins_list(_load(snapshot_dir, "coins_list.json"))
    assert isinstance(listed, Ok)
    assert coingecko.resolve_ids("zcn", listed.value) == ["0chain"]
    assert len(coingecko.resolve_ids("gib", listed.value)) >= 1
    assert coingecko.resolve_ids("no-such-coin-xyz", listed.value) == []


def test_error_bodies() -> None:
    got = coingecko.parse_coin({"error": "coin not found"}, SRC)
    assert isinstance(got, Err) and got.code == ErrorCode.NOT_FOUND
    limited = {"status": {"error_code": 429, "error_message": "You've exceeded the Rate Limit."}}
    got = coingecko.parse_coin(limited, SRC)
    assert isinstance(got, Err) and got.code == ErrorCode.RATE_LIMITED
    got = coingecko.parse_coin({"symbol": "x"}, SRC)
    assert isinstance(got, Err) and got.code == ErrorCode.BAD_RESPONSE
