"""Live Dune (``api.dune.com/api/v1``): a token's largest holders from a saved query's latest results.

Rules this vendor keeps:
- Never raises; without ``FINDESK_DUNE_API_KEY`` and ``FINDESK_DUNE_HOLDERS_QUERY_ID`` (a saved query
  whose rows are ``token_address, token_symbol, address, balance`` and optionally ``label``) it
  answers ``not_configured`` and sends nothing. Dune has no generic holders endpoint, and no query id
  is invented here.
- Only the latest results are read (``GET /query/{id}/results``, filtered and sorted server-side).
  They describe the moment the query last ran: results that ran after the as-of day's end are
  ``no_data`` for a past as-of date, never passed off as history.
- The token goes into Dune's filter expression only as a checked 0x address or a plain symbol
  (letters and digits), so a question cannot inject filter syntax.
- The API key travels in the ``X-Dune-API-Key`` header and never appears in a source or a reason.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import urlencode

from findesk.core.dates import end_of_day
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats.etherscan import is_address
from findesk.data.formats.timestamps import parse_utc
from findesk.data.models import Source
from findesk.data.models.onchain_risk import TokenHolder, TokenHolders
from findesk.data.vendors.base import Category, HttpVendor

API_URL = "https://api.dune.com/api/v1"
_SYMBOL = re.compile(r"^[A-Za-z0-9]{1,20}$")


def holders_filter(token: str) -> Result[str]:
    """The Dune filter expression for ``token``, or ``invalid_input`` for anything else."""
    text = token.strip()
    if is_address(text):
        return Ok(f"token_address = '{text.lower()}'")
    if _SYMBOL.match(text) and not text.lower().startswith("0x"):  # a broken address is not a symbol
        return Ok(f"token_symbol = '{text.upper()}'")
    return Err(
        ErrorCode.INVALID_INPUT,
        f"{text[:60]!r} is neither a token contract address (0x + 40 hex digits) nor a symbol "
        "(letters and digits)",
        "dune",
    )


def parse_holders(payload: Any, token: str, cutoff: datetime, url: str) -> Result[TokenHolders]:
    """Dune's results answer -> holders, or ``no_data`` when the results ran after ``cutoff``."""
    if not isinstance(payload, dict) or not isinstance(payload.get("result"), dict):
        message = payload.get("error") if isinstance(payload, dict) else None
        return Err(
            ErrorCode.BAD_RESPONSE, f"Dune answered without a result: {message or 'no result'}", "dune"
        )
    ran = parse_utc(payload.get("execution_ended_at"))
    if ran is None:
        return Err(ErrorCode.BAD_RESPONSE, "Dune's result has no execution time; it cannot be dated", "dune")
    if ran > cutoff:
        return Err(
            ErrorCode.NO_DATA,
            f"Dune's latest holder results ran at {ran.isoformat()}, after the as-of date; Dune keeps no "
            "history of them, so holders at that date are unknown",
            "dune",
        )
    holders: list[TokenHolder] = []
    for row in payload["result"].get("rows") or []:
        try:
            balance = Decimal(str(row["balance"]))
            holders.append(TokenHolder(address=str(row["address"]), balance=balance, label=row.get("label")))
        except (KeyError, TypeError, InvalidOperation):
            return Err(ErrorCode.BAD_RESPONSE, f"Dune row without address/balance: {str(row)[:120]}", "dune")
    return Ok(
        TokenHolders(
            token=token.strip(),
            holders=holders,
            observed_at=ran,
            source=Source(
                vendor="dune", ref=url, retrieved_at=datetime.now(UTC), note=f"query ran {ran.isoformat()}"
            ),
        )
    )


class DuneVendor(HttpVendor):
    name = "dune"
    categories = frozenset({Category.HOLDERS})

    async def large_holders(self, token: str, as_of: date, limit: int = 10) -> Result[TokenHolders]:
        secret = self.settings.dune_api_key
        key = secret.get_secret_value().strip() if secret is not None else ""
        query = self.settings.dune_holders_query_id
        if not key or query is None:
            return Err(
                ErrorCode.NOT_CONFIGURED,
                "Dune needs FINDESK_DUNE_API_KEY and FINDESK_DUNE_HOLDERS_QUERY_ID (a saved holders query).",
                self.name,
            )
        where = holders_filter(token)
        if isinstance(where, Err):
            return where
        params = {"limit": limit, "filters": where.value, "sort_by": "balance desc"}
        url = f"{API_URL}/query/{query}/results"
        got = await self.http.get_json(
            url, params=params, headers={"X-Dune-API-Key": key}, freshness="crypto", source=self.name
        )
        if isinstance(got, Err):
            return Err(got.code, got.reason.replace(key, "REDACTED"), got.source or self.name, got.details)
        return parse_holders(got.value, token, end_of_day(as_of), f"{url}?{urlencode(params)}")
