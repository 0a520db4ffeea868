"""DefiLlama parsing: the real recorded coins.llama.fi prices and a hand-written protocol fixture."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.formats import defillama
from findesk.data.models import Source

FIXTURE = Path(__file__).parents[2] / "fixtures" / "defillama" / "protocol_examplefi_handwritten.json"
SRC = Source(vendor="test", ref="x")


def test_tvl_takes_last_point_on_or_before_as_of() -> None:
    payload = json.loads(FIXTURE.read_text())
    got = defillama.parse_protocol_tvl(payload, "examplefi", date(2025, 8, 27), SRC)
    assert isinstance(got, Ok)
    assert got.value.tvl_usd == 1000000.5
    assert got.value.as_of == datetime(2025, 8, 28, tzinfo=UTC)  # 20:00 New York on 08-27
    assert got.value.chain_tvls == {"Ethereum": 800000.5, "Arbitrum": 200000.0}  # no staking buckets
    later = defillama.parse_protocol_tvl(payload, "examplefi", date(2025, 8, 28), SRC)
    assert isinstance(later, Ok) and later.value.tvl_usd == 1200000.25


def test_tvl_before_first_point_is_no_data() -> None:
    payload = json.loads(FIXTURE.read_text())
    got = defillama.parse_protocol_tvl(payload, "examplefi", date(2025, 8, 26), SRC)
    assert isinstance(got, Err) and got.code == ErrorCode.NO_DATA


def test_tvl_malformed() -> None:
    got = defillama.parse_protocol_tvl({"name": "x"}, "x", date(2025, 8, 29), SRC)
    assert isinstance(got, Err) and got.code == ErrorCode.BAD_RESPONSE
    got = defillama.parse_protocol_tvl({"tvl": [{"date": "x"}]}, "x", date(2025, 8, 29), SRC)
    assert isinstance(got, Err) and got.code == ErrorCode.BAD_RESPONSE


def test_recorded_current_prices(snapshot_dir: Path) -> None:
    raw = (snapshot_dir / "crypto/defillama/prices_current_arbitrum+dai+chainlink.json").read_bytes()
    got = defillama.parse_current_prices(json.loads(raw))
    assert isinstance(got, Ok)
    link = got.value["coingecko:chainlink"]
    assert (link.symbol, link.price_usd, link.decimals) == ("LINK", 17.22, 18)
    assert link.timestamp == datetime.fromtimestamp(1741276615, tz=UTC)
    assert defillama.parse_current_prices({"coins": []}).ok is False
