"""DefiLlama responses: ``api.llama.fi/protocol/{slug}`` (TVL history) and ``coins.llama.fi/prices``.

Rules this module keeps:
- Pure: JSON in, typed models or ``Err`` out; never raises for a bad body.
- Point in time: a TVL value is the last point of the ``tvl`` series dated on or before the as-of
  day's end (New York); later points are never read. Per-chain values follow the same rule on each
  ``chainTvls[chain].tvl`` series.
- Only real chains go into ``chain_tvls``: DefiLlama's derived buckets (``staking``, ``borrowed``,
  ``pool2``, ``Ethereum-staking`` …) are not chains and would double count.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from findesk.core.dates import end_of_day
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import ProtocolTVL, Source

VENDOR = "defillama"

_BUCKETS = frozenset({"staking", "pool2", "borrowed", "vesting", "offers", "treasury", "doublecounted"})


@dataclass(frozen=True, slots=True)
class LlamaPrice:
    key: str  # "coingecko:dai" or "ethereum:0x…"
    symbol: str
    price_usd: float
    timestamp: datetime
    decimals: int | None
    confidence: float | None


def parse_protocol_tvl(payload: Any, slug: str, as_of: date, source: Source) -> Result[ProtocolTVL]:
    if not isinstance(payload, dict) or not isinstance(payload.get("tvl"), list):
        return Err(ErrorCode.BAD_RESPONSE, f"DefiLlama's answer for {slug} has no tvl series.", VENDOR)
    cutoff = end_of_day(as_of)
    point = _last_point(payload["tvl"], cutoff)
    if isinstance(point, Err):
        return point
    if point is None:
        return Err(
            ErrorCode.NO_DATA, f"DefiLlama has no TVL for {slug} on or before {as_of.isoformat()}.", VENDOR
        )
    chains: dict[str, float] = {}
    chain_tvls = payload.get("chainTvls")
    if isinstance(chain_tvls, dict):
        for chain, block in chain_tvls.items():
            if "-" in chain or chain.lower() in _BUCKETS or not isinstance(block, dict):
                continue
            series = block.get("tvl")
            got = _last_point(series, cutoff) if isinstance(series, list) else None
            if isinstance(got, Err):
                return got
            if got is not None:
                chains[str(chain)] = got[1]
    return Ok(
        ProtocolTVL(
            protocol=str(payload.get("name") or slug),
            tvl_usd=point[1],
            as_of=point[0],
            chain_tvls=chains,
            source=source,
        )
    )


def _last_point(series: list[Any], cutoff: datetime) -> tuple[datetime, float] | Err | None:
    best: tuple[datetime, float] | None = None
    for row in series:
        try:
            moment = datetime.fromtimestamp(int(row["date"]), tz=UTC)
            value = float(row["totalLiquidityUSD"])
        except (KeyError, TypeError, ValueError, OverflowError):
            return Err(ErrorCode.BAD_RESPONSE, "DefiLlama's tvl series holds a malformed point.", VENDOR)
        if moment <= cutoff and (best is None or moment >= best[0]):
            best = (moment, value)
    return best


def parse_current_prices(payload: Any) -> Result[dict[str, LlamaPrice]]:
    """``coins.llama.fi/prices/current/{keys}`` -> price per coin key."""
    coins = payload.get("coins") if isinstance(payload, dict) else None
    if not isinstance(coins, dict):
        return Err(ErrorCode.BAD_RESPONSE, "DefiLlama's prices answer has no coins object.", VENDOR)
    out: dict[str, LlamaPrice] = {}
    for key, row in coins.items():
        try:
            out[str(key)] = LlamaPrice(
                key=str(key),
                symbol=str(row["symbol"]),
                price_usd=float(row["price"]),
                timestamp=datetime.fromtimestamp(int(row["timestamp"]), tz=UTC),
                decimals=int(row["decimals"]) if row.get("decimals") is not None else None,
                confidence=float(row["confidence"]) if row.get("confidence") is not None else None,
            )
        except (KeyError, TypeError, ValueError, OverflowError):
            return Err(ErrorCode.BAD_RESPONSE, f"DefiLlama's price entry for {key} is malformed.", VENDOR)
    return Ok(out)
