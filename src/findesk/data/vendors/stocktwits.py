"""Live Stocktwits: the public symbol stream ``/api/2/streams/symbol/<SYM>.json``.

Rules this vendor keeps:
- Never raises; HTTP problems come back as the shared client's typed errors (404 -> ``not_found``:
  Stocktwits does not know the symbol), an unreadable body as ``bad_response``.
- Parsed by ``formats.stocktwits``, the same code that reads the snapshot's recorded stream.
- Point in time: only messages created on or before the New York end of ``as_of``. The stream
  returns the latest 30 messages only (no paging back here), so a past ``as_of`` usually answers
  ``no_data``, which says so.
- Cache class "social".
"""

from __future__ import annotations

from datetime import UTC, date, datetime

from findesk.core.result import Err, ErrorCode, Result
from findesk.data.formats import stocktwits as fmt
from findesk.data.models import SocialPost, Source
from findesk.data.vendors.base import Category, HttpVendor, newest_visible

STREAM_URL = "https://api.stocktwits.com/api/2/streams/symbol/{symbol}.json"


class StocktwitsVendor(HttpVendor):
    name = "stocktwits"
    categories = frozenset({Category.STOCKTWITS})

    async def stocktwits_posts(self, symbol: str, as_of: date, limit: int = 30) -> Result[list[SocialPost]]:
        checked = fmt.check_symbol(symbol, self.name)
        if isinstance(checked, Err):
            return checked
        symbol = checked.value
        if limit < 1:
            return Err(ErrorCode.INVALID_INPUT, f"limit must be at least 1, got {limit}", self.name)
        url = STREAM_URL.format(symbol=symbol)
        got = await self.http.get_json(url, freshness="social", source=self.name)
        if isinstance(got, Err):
            if got.code is ErrorCode.NOT_FOUND:
                return Err(
                    ErrorCode.NOT_FOUND, f"Stocktwits has no stream for {symbol}", self.name, got.details
                )
            return got
        source = Source(vendor=self.name, ref=url, retrieved_at=datetime.now(UTC))
        return newest_visible(
            fmt.parse_stream(got.value, source),
            as_of,
            limit,
            self.name,
            lambda read: (
                f"none of the {read} latest Stocktwits messages for {symbol} was posted on or "
                f"before {as_of.isoformat()}; the live stream only returns the most recent messages"
            ),
        )
