"""Etherscan v2 response parsing on the snapshot's real recordings (and documented error bodies)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.formats import etherscan
from findesk.data.models import Source

FIXTURES = Path(__file__).parents[2] / "fixtures" / "etherscan"
SRC = Source(vendor="test", ref="x")
B855 = "crypto/etherscan/{}_0xb8553D9ee35dd23BB96fbd679E651B929821969B_blocks0-16295684.json"


def _load(snapshot_dir: Path, rel: str) -> object:
    return json.loads((snapshot_dir / rel).read_bytes())


def test_txlist_values_in_eth(snapshot_dir: Path) -> None:
    got = etherscan.parse_txs(_load(snapshot_dir, B855.format("txlist")), "normal", SRC)
    assert isinstance(got, Ok)
    assert len(got.value) == 19
    last = got.value[-1]
    assert last.hash == "0x375f529c5ed649b257abca3da182c48310e78cbb0ded2c8de264f3f1924144cf"
    assert last.timestamp == datetime(2022, 12, 30, 5, 32, 59, tzinfo=UTC)
    assert last.value == Decimal("0.000444264835797091")
    assert last.asset == "ETH" and last.kind == "normal"


def test_internal_and_token_transfers(snapshot_dir: Path) -> None:
    internal = etherscan.parse_txs(_load(snapshot_dir, B855.format("txlistinternal")), "internal", SRC)
    assert isinstance(internal, Ok)
    assert internal.value[0].value == Decimal("0.012753569295737516")  # 12753569295737516 wei
    tokens = etherscan.parse_txs(_load(snapshot_dir, B855.format("tokentx")), "token", SRC)
    assert isinstance(tokens, Ok)
    first = tokens.value[0]
    assert (first.asset, first.value) == ("USDC", Decimal("49.673249"))  # 49673249 at 6 decimals
    assert first.token_contract == "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"


def test_genesis_allocation_has_no_sender_address(snapshot_dir: Path) -> None:
    rel = "crypto/etherscan/txlist_0x756F45E3FA69347A9A973A725E3C98bC4db0b5a0_blocks0-0.json"
    got = etherscan.parse_txs(_load(snapshot_dir, rel), "normal", SRC)
    assert isinstance(got, Ok)
    assert got.value[0].value == Decimal(200) and got.value[0].from_address == "GENESIS"


def test_no_transactions_found_is_empty(snapshot_dir: Path) -> None:
    rel = "crypto/etherscan/txlist_0x3C69Bc9B9681683890ad82953Fe67d13Cd91D5EE_page1-offset1.json"
    assert etherscan.parse_txs(_load(snapshot_dir, rel), "normal", SRC) == Ok([])


def test_documented_error_bodies_are_typed() -> None:
    limited = json.loads((FIXTURES / "notok_rate_limit_handwritten.json").read_text())
    bad_key = json.loads((FIXTURES / "notok_invalid_key_handwritten.json").read_text())
    got = etherscan.parse_txs(limited, "normal", SRC)
    assert isinstance(got, Err) and got.code == ErrorCode.RATE_LIMITED
    got = etherscan.parse_txs(bad_key, "normal", SRC)
    assert isinstance(got, Err) and got.code == ErrorCode.NOT_CONFIGURED


def test_malformed_bodies_are_bad_response() -> None:
    payloads: list[object] = [[], {"status": "1"}, {"status": "1", "message": "OK", "result": "oops"}]
    for payload in payloads:
        got = etherscan.parse_txs(payload, "normal", SRC)
        assert isinstance(got, Err) and got.code == ErrorCode.BAD_RESPONSE
    row = {"status": "1", "message": "OK", "result": [{"hash": "0x1", "timeStamp": "x"}]}
    got = etherscan.parse_txs(row, "normal", SRC)
    assert isinstance(got, Err) and got.code == ErrorCode.BAD_RESPONSE


def test_block_number(snapshot_dir: Path) -> None:
    rel = "crypto/etherscan/getblocknobytime_1672380360_before.json"
    assert etherscan.parse_block_number(_load(snapshot_dir, rel)) == Ok(16295684)


def test_scale_is_exact() -> None:
    assert etherscan.scale("1", 18) == Decimal("0.000000000000000001")
    assert str(etherscan.scale("2000000000000000000000", 18)) == "2000"
    assert str(etherscan.scale("0", 18)) == "0"
