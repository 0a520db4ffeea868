"""Live CoinGecko public API (``api.coingecko.com/api/v3``): token metadata and price.

Rules this vendor keeps:
- Never raises; HTTP problems come back as the client's typed errors, CoinGecko error bodies as
  typed errors too.
- Point in time: for today (New York) the current ``coins/{id}`` market data is used; for a past
  as-of date the daily snapshot ``coins/{id}/history?date=DD-MM-YYYY`` (00:00 UTC of that day), so a
  price after ``as_of`` is never returned.
- A symbol is turned into an id through the pinned majors, else through ``coins/list`` when exactly
  one coin carries it; an ambiguous symbol is ``invalid_input`` naming the candidates.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from urllib.parse import urlencode

from findesk.core.dates import today_new_york
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats import coingecko
from findesk.data.models import Source, TokenInfo
from findesk.data.vendors.base import Category, HttpVendor

API_URL = "https://api.coingecko.com/api/v3"
_ID_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,99}$")
_COIN_PARAMS = {
    "localization": "false",
    "tickers": "false",
    "market_data": "true",
    "community_data": "false",
    "developer_data": "false",
    "sparkline": "false",
}


class CoinGeckoVendor(HttpVendor):
    name = "coingecko"
    categories = frozenset({Category.TOKENS})

    async def token(self, token_id: str, as_of: date) -> Result[TokenInfo]:
        wanted = token_id.strip().lower()
        if not _ID_RE.match(wanted):
            return Err(
                ErrorCode.INVALID_INPUT,
                f"{token_id!r} is not a CoinGecko id or symbol (letters, digits, '-', '.', '_').",
                self.name,
            )
        first = coingecko.MAJOR_SYMBOLS.get(wanted, wanted)
        got = await self._fetch(first, as_of)
        if not (isinstance(got, Err) and got.code == ErrorCode.NOT_FOUND):
            return got
        # Not an id: maybe a symbol CoinGecko lists under another id.
        ids = await self._ids_for_symbol(wanted)
        if isinstance(ids, Err):
            return ids
        candidates = [i for i in ids.value if i != first]
        if not candidates:
            return Err(
                ErrorCode.NOT_FOUND, f"CoinGecko knows no coin with the id or symbol {token_id!r}.", self.name
            )
        if len(candidates) > 1:
            shown = ", ".join(candidates[:8]) + (" …" if len(candidates) > 8 else "")
            return Err(
                ErrorCode.INVALID_INPUT,
                f"The symbol {token_id!r} is used by {len(candidates)} CoinGecko coins ({shown}); "
                "give the id.",
                self.name,
            )
        return await self._fetch(candidates[0], as_of)

    async def _fetch(self, coin_id: str, as_of: date) -> Result[TokenInfo]:
        if as_of >= today_new_york():
            url, params = f"{API_URL}/coins/{coin_id}", dict(_COIN_PARAMS)
        else:
            url = f"{API_URL}/coins/{coin_id}/history"
            params = {"date": as_of.strftime("%d-%m-%Y"), "localization": "false"}
        got = await self.http.get_json(url, params=params, freshness="crypto", source=self.name)
        if isinstance(got, Err):
            return got
        source = Source(vendor=self.name, ref=f"{url}?{urlencode(params)}", retrieved_at=datetime.now(UTC))
        if as_of >= today_new_york():
            return coingecko.parse_coin(got.value, source)
        return coingecko.parse_history(got.value, as_of, source)

    async def _ids_for_symbol(self, symbol: str) -> Result[list[str]]:
        got = await self.http.get_json(f"{API_URL}/coins/list", freshness="crypto", source=self.name)
        if isinstance(got, Err):
            return got
        coins = coingecko.parse_coins_list(got.value)
        if isinstance(coins, Err):
            return coins
        return Ok(coingecko.resolve_ids(symbol, coins.value))
