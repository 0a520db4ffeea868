"""Live Etherscan v2 (``api.etherscan.io/v2/api``, chain id 1): an address's transactions.

Rules this vendor keeps:
- Never raises; without ``FINDESK_ETHERSCAN_API_KEY`` it answers ``not_configured`` and sends nothing.
- Point in time: for a past as-of date the request is capped at the last block on or before the
  as-of day's end (``getblocknobytime``), so the newest ``limit`` transactions are those of that day,
  and every row is filtered by block time again after parsing.
- Normal, internal and token transfers are fetched together and merged newest first; if any of the
  three fails the whole answer is that error, because a partial history would hide transfers.
- The API key never appears in a source, a reason or a log line.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime
from typing import Any
from urllib.parse import urlencode

from findesk.core.config import Settings
from findesk.core.dates import end_of_day
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats import etherscan
from findesk.data.http.client import HttpClient
from findesk.data.models import OnchainTx, Source
from findesk.data.vendors.base import Category, HttpVendor

API_URL = "https://api.etherscan.io/v2/api"
LATEST_BLOCK = 99_999_999
MAX_RESULTS = 10_000  # Etherscan refuses page x offset beyond this


class EtherscanVendor(HttpVendor):
    name = "etherscan"
    categories = frozenset({Category.ONCHAIN})

    def __init__(self, http: HttpClient, settings: Settings, *, chain_id: int = 1) -> None:
        super().__init__(http, settings)
        self.chain_id = chain_id

    def _key(self) -> str | None:
        secret = self.settings.etherscan_api_key
        value = secret.get_secret_value().strip() if secret is not None else ""
        return value or None

    async def onchain_txs(self, address: str, as_of: date, limit: int = 100) -> Result[list[OnchainTx]]:
        if not etherscan.is_address(address):
            return Err(
                ErrorCode.INVALID_INPUT,
                f"{address!r} is not an Ethereum address: it must be 0x followed by 40 hex digits.",
                self.name,
            )
        if not 1 <= limit <= MAX_RESULTS:
            return Err(
                ErrorCode.INVALID_INPUT, f"limit must be between 1 and {MAX_RESULTS}, got {limit}.", self.name
            )
        key = self._key()
        if key is None:
            return Err(
                ErrorCode.NOT_CONFIGURED,
                "Etherscan needs an API key: set FINDESK_ETHERSCAN_API_KEY.",
                self.name,
            )
        address = address.strip()
        cutoff = end_of_day(as_of)
        end_block = await self._end_block(cutoff, key)
        if isinstance(end_block, Err):
            return end_block
        answers = await asyncio.gather(
            *(self._action(action, address, end_block.value, limit, key) for action in etherscan.ACTIONS)
        )
        failed = next((answer for answer in answers if isinstance(answer, Err)), None)
        if failed is not None:
            return failed
        found = [answer.value for answer in answers if isinstance(answer, Ok)]
        return Ok(etherscan.merge_txs(found, cutoff, limit))

    async def _end_block(self, cutoff: datetime, key: str) -> Result[int]:
        if cutoff >= datetime.now(UTC):
            return Ok(LATEST_BLOCK)  # the as-of day is not over: everything mined so far is visible
        params = {"module": "block", "action": "getblocknobytime", "timestamp": int(cutoff.timestamp())}
        got = await self._call(params | {"closest": "before"}, key)
        if isinstance(got, Err):
            return got
        return etherscan.parse_block_number(got.value[0], self.name)

    async def _action(
        self, action: str, address: str, end_block: int, limit: int, key: str
    ) -> Result[list[OnchainTx]]:
        params: dict[str, Any] = {
            "module": "account",
            "action": action,
            "address": address,
            "startblock": 0,
            "endblock": end_block,
            "page": 1,
            "offset": limit,
            "sort": "desc",
        }
        got = await self._call(params, key)
        if isinstance(got, Err):
            return got
        payload, url = got.value
        source = Source(vendor=self.name, ref=url, retrieved_at=datetime.now(UTC))
        return etherscan.parse_txs(payload, etherscan.ACTIONS[action], source, vendor=self.name)

    async def _call(self, params: dict[str, Any], key: str) -> Result[tuple[Any, str]]:
        """One API call: the JSON body and the request URL without the key."""
        query = {"chainid": self.chain_id, **params}
        got = await self.http.get_json(
            API_URL, params=query | {"apikey": key}, freshness="crypto", source=self.name
        )
        if isinstance(got, Err):
            return Err(got.code, got.reason.replace(key, "REDACTED"), got.source or self.name, got.details)
        return Ok((got.value, f"{API_URL}?{urlencode(query)}"))
