"""CoinGecko v3 responses: ``coins/{id}``, ``coins/{id}/history``, ``simple/price``, ``coins/list``.

Rules this module keeps:
- Pure: JSON in, typed models or ``Err`` out; never raises for a bad body.
- A price carries the moment it describes: ``market_data.last_updated`` for ``coins/{id}``, 00:00 UTC
  of the requested day for ``coins/{id}/history`` (that is what CoinGecko's daily snapshot is).
- Symbols are ambiguous on CoinGecko (dozens of coins call themselves "btc"); a symbol resolves to
  one id only through the pinned majors below or when exactly one listed coin has it.
- CoinGecko error bodies (``{"error": ...}``, ``{"status": {"error_code": 429}}``) become typed errors.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from typing import Any

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats.timestamps import parse_utc
from findesk.data.models import Source, TokenInfo

VENDOR = "coingecko"

# The coins people mean by these symbols; every other symbol needs a unique match or an id.
MAJOR_SYMBOLS: dict[str, str] = {
    "btc": "bitcoin",
    "eth": "ethereum",
    "usdt": "tether",
    "usdc": "usd-coin",
    "bnb": "binancecoin",
    "sol": "solana",
    "xrp": "ripple",
    "ada": "cardano",
    "doge": "dogecoin",
    "dai": "dai",
    "link": "chainlink",
    "arb": "arbitrum",
    "yfi": "yearn-finance",
    "matic": "matic-network",
    "dot": "polkadot",
    "ltc": "litecoin",
    "trx": "tron",
    "xmr": "monero",
    "avax": "avalanche-2",
}


@dataclass(frozen=True, slots=True)
class CoinRef:
    id: str
    symbol: str
    name: str


def error_in_body(payload: Any) -> Err | None:
    """The typed error a CoinGecko error body describes, or None for a data body."""
    if not isinstance(payload, dict):
        return None
    status = payload.get("status")
    if isinstance(status, dict) and status.get("error_code"):
        code = int(status.get("error_code") or 0)
        message = str(status.get("error_message") or "error")
        if code == 429:
            return Err(ErrorCode.RATE_LIMITED, f"CoinGecko asked us to slow down: {message}.", VENDOR)
        return Err(ErrorCode.UNAVAILABLE, f"CoinGecko answered error {code}: {message}.", VENDOR)
    error = payload.get("error")
    if isinstance(error, str) and "id" not in payload:
        if "not found" in error.lower():
            return Err(ErrorCode.NOT_FOUND, f"CoinGecko does not know this coin ({error}).", VENDOR)
        return Err(ErrorCode.UNAVAILABLE, f"CoinGecko answered with an error: {error}.", VENDOR)
    return None


def parse_coin(payload: Any, source: Source) -> Result[TokenInfo]:
    """``coins/{id}``: metadata, and the current USD market data when it was requested."""
    bad = error_in_body(payload)
    if bad is not None:
        return bad
    if not isinstance(payload, dict):
        return Err(ErrorCode.BAD_RESPONSE, "CoinGecko's coin answer is not a JSON object.", VENDOR)
    market = payload.get("market_data")
    price_as_of = None
    if isinstance(market, dict):
        price_as_of = parse_utc(market.get("last_updated") or payload.get("last_updated"))
    return _token(payload, market, price_as_of, source)


def parse_history(payload: Any, day: date, source: Source) -> Result[TokenInfo]:
    """``coins/{id}/history?date=DD-MM-YYYY``: the daily snapshot at 00:00 UTC of ``day``."""
    bad = error_in_body(payload)
    if bad is not None:
        return bad
    if not isinstance(payload, dict):
        return Err(ErrorCode.BAD_RESPONSE, "CoinGecko's history answer is not a JSON object.", VENDOR)
    moment = datetime.combine(day, time.min, tzinfo=UTC)
    return _token(payload, payload.get("market_data"), moment, source)


def _token(
    payload: dict[str, Any], market: Any, price_as_of: datetime | None, source: Source
) -> Result[TokenInfo]:
    try:
        coin_id, symbol, name = str(payload["id"]), str(payload["symbol"]), str(payload["name"])
    except KeyError as exc:
        return Err(ErrorCode.BAD_RESPONSE, f"CoinGecko's coin answer lacks the field {exc}.", VENDOR)
    platforms = payload.get("platforms")
    contracts = (
        {str(k): str(v) for k, v in platforms.items() if k and v} if isinstance(platforms, dict) else {}
    )
    price = _usd(market, "current_price")
    return Ok(
        TokenInfo(
            id=coin_id,
            symbol=symbol,
            name=name,
            price_usd=price,
            market_cap_usd=_usd(market, "market_cap"),
            volume_24h_usd=_usd(market, "total_volume"),
            price_as_of=price_as_of if price is not None else None,
            contracts=contracts,
            source=source,
        )
    )


def _usd(market: Any, key: str) -> float | None:
    if not isinstance(market, dict):
        return None
    block = market.get(key)
    value = block.get("usd") if isinstance(block, dict) else None
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def parse_simple_price(payload: Any) -> Result[dict[str, dict[str, float]]]:
    """``simple/price``: ``{coin id: {vs currency: price}}``."""
    bad = error_in_body(payload)
    if bad is not None:
        return bad
    if not isinstance(payload, dict):
        return Err(ErrorCode.BAD_RESPONSE, "CoinGecko's simple/price answer is not a JSON object.", VENDOR)
    out: dict[str, dict[str, float]] = {}
    for coin, quotes in payload.items():
        if not isinstance(quotes, dict):
            return Err(
                ErrorCode.BAD_RESPONSE, f"CoinGecko's simple/price entry for {coin} is malformed.", VENDOR
            )
        out[str(coin)] = {
            str(k): float(v)
            for k, v in quotes.items()
            if isinstance(v, int | float) and not isinstance(v, bool)
        }
    return Ok(out)


def parse_coins_list(payload: Any) -> Result[list[CoinRef]]:
    """``coins/list``: every coin's id, symbol and name."""
    bad = error_in_body(payload)
    if bad is not None:
        return bad
    if not isinstance(payload, list):
        return Err(ErrorCode.BAD_RESPONSE, "CoinGecko's coins/list answer is not a JSON list.", VENDOR)
    out: list[CoinRef] = []
    for row in payload:
        if not isinstance(row, dict) or "id" not in row:
            return Err(ErrorCode.BAD_RESPONSE, "CoinGecko's coins/list holds a malformed entry.", VENDOR)
        out.append(CoinRef(str(row["id"]), str(row.get("symbol") or ""), str(row.get("name") or "")))
    return Ok(out)


def resolve_ids(query: str, coins: Iterable[CoinRef]) -> list[str]:
    """The CoinGecko ids ``query`` may mean: an exact id first, then a pinned major, then by symbol."""
    wanted = query.strip().lower()
    listed = list(coins)
    if any(c.id == wanted for c in listed):
        return [wanted]
    if wanted in MAJOR_SYMBOLS:
        return [MAJOR_SYMBOLS[wanted]]
    return sorted({c.id for c in listed if c.symbol.lower() == wanted})
