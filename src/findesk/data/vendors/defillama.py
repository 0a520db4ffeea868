"""Live DefiLlama (``api.llama.fi/protocol/{slug}``): a protocol's total value locked.

Rules this vendor keeps:
- Never raises; HTTP problems come back as the client's typed errors, an unknown slug as
  ``not_found``.
- Point in time: the value is the last point of the ``tvl`` series on or before the as-of day's end
  (New York), and ``ProtocolTVL.as_of`` is that point's own date, not the request date.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

from findesk.core.result import Err, ErrorCode, Result
from findesk.data.formats import defillama
from findesk.data.models import ProtocolTVL, Source
from findesk.data.vendors.base import Category, HttpVendor

API_URL = "https://api.llama.fi"
_SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9.\-]{0,99}$")


class DefiLlamaVendor(HttpVendor):
    name = "defillama"
    categories = frozenset({Category.TVL})

    async def tvl(self, protocol: str, as_of: date) -> Result[ProtocolTVL]:
        slug = "-".join(protocol.strip().lower().split())
        if not _SLUG_RE.match(slug):
            return Err(
                ErrorCode.INVALID_INPUT,
                f"{protocol!r} is not a DefiLlama protocol slug (e.g. 'aave', 'uniswap-v3', 'lido').",
                self.name,
            )
        url = f"{API_URL}/protocol/{slug}"
        got = await self.http.get_json(url, freshness="crypto", source=self.name)
        if isinstance(got, Err):
            # DefiLlama answers an unknown slug with 400 (or 404) rather than an empty body.
            if got.code == ErrorCode.NOT_FOUND or got.details.get("status") == 400:
                return Err(ErrorCode.NOT_FOUND, f"DefiLlama does not know the protocol {slug!r}.", self.name)
            return got
        source = Source(vendor=self.name, ref=url, retrieved_at=datetime.now(UTC))
        return defillama.parse_protocol_tvl(got.value, slug, as_of, source)
