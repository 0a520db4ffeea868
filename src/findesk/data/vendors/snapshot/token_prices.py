"""A token's dated price points from the recorded CoinGecko and DefiLlama answers under ``crypto/``.

Rules this store keeps:
- A recording is visible only from its recording time (``crypto/index.csv``, read once by
  ``CryptoStore``), and a point only if the moment it describes is on or before the as-of day's end.
- Each point keeps its own moment and currency: a CoinGecko ``history`` day is that day at 00:00 UTC
  in USD; a ``simple/price`` quote is the recording's time in the currency asked (often ETH, never
  converted); a DefiLlama current price is its own timestamp in USD.
- The snapshot holds no ``market_chart`` series, so a "history" is the few recorded points; none
  visible is ``no_data`` naming the coins recorded by then, never an interpolation.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from urllib.parse import urlparse

from findesk.core.dates import end_of_day, visible_at
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats import coingecko, defillama
from findesk.data.models.onchain_risk import TokenPrice, TokenPriceHistory
from findesk.data.vendors.snapshot.crypto import CryptoStore
from findesk.data.vendors.snapshot.files import Lazy


class TokenPriceStore:
    def __init__(self, crypto: CryptoStore) -> None:
        self.files = crypto.files
        self._crypto = crypto
        # coin id -> [(recorded, point)], symbol by coin id where a source names it
        self._points = Lazy(self._load)

    def _load(self) -> tuple[dict[str, list[tuple[datetime, TokenPrice]]], dict[str, str]]:
        points: dict[str, list[tuple[datetime, TokenPrice]]] = {}
        symbols: dict[str, str] = {}
        for rec in self._crypto.recordings():
            rel, recorded, params, stamp = rec.rel, rec.recorded, rec.params, rec.stamp
            parts = urlparse(rec.url).path.strip("/").split("/")
            if rel.startswith("crypto/coingecko/") and parts[-1] == "history" and "date" in params:
                day = datetime.strptime(params["date"], "%d-%m-%Y").date()
                info = coingecko.parse_history(self.files.read_json(rel), day, self.files.source(rel, stamp))
                if isinstance(info, Ok) and info.value.price_usd is not None:
                    symbols[info.value.id] = info.value.symbol
                    moment = datetime.combine(day, time.min, UTC)
                    point = TokenPrice(
                        price=info.value.price_usd,
                        currency="usd",
                        at=moment,
                        kind="daily",
                        source=info.value.source,
                    )
                    points.setdefault(info.value.id, []).append((recorded, point))
            elif rel.startswith("crypto/coingecko/") and parts[-1] == "price":
                quotes = coingecko.parse_simple_price(self.files.read_json(rel))
                if isinstance(quotes, Ok):
                    for coin, per in quotes.value.items():
                        for currency, price in sorted(per.items()):
                            point = TokenPrice(
                                price=price,
                                currency=currency,
                                at=recorded,
                                kind="spot",
                                source=self.files.source(rel, f"CoinGecko simple/price, {stamp}"),
                            )
                            points.setdefault(coin, []).append((recorded, point))
            elif rel.startswith("crypto/defillama/") and "prices" in parts:
                llama = defillama.parse_current_prices(self.files.read_json(rel))
                if isinstance(llama, Ok):
                    for key, p in llama.value.items():
                        if key.startswith("coingecko:"):
                            coin = key.removeprefix("coingecko:")
                            symbols.setdefault(coin, p.symbol.lower())
                            point = TokenPrice(
                                price=p.price_usd,
                                currency="usd",
                                at=p.timestamp,
                                kind="spot",
                                source=self.files.source(rel, f"DefiLlama current price, {stamp}"),
                            )
                            points.setdefault(coin, []).append((recorded, point))
        return points, symbols

    def history(self, token_id: str, as_of: date) -> Result[TokenPriceHistory]:
        wanted = token_id.strip().lower()
        if not wanted or len(wanted) > 80:
            return Err(
                ErrorCode.INVALID_INPUT, "Give a CoinGecko id or a symbol (1-80 characters).", "snapshot"
            )
        points, symbols = self._points.get()
        cutoff = end_of_day(as_of)
        visible = {
            coin: [p for rec, p in found if visible_at(rec, as_of) and p.at <= cutoff]
            for coin, found in points.items()
        }
        visible = {coin: found for coin, found in visible.items() if found}
        refs = [coingecko.CoinRef(coin, symbols.get(coin, ""), coin) for coin in visible]
        ids = coingecko.resolve_ids(wanted, refs)
        ids = [i for i in ids if i in visible]
        if len(ids) != 1:
            recorded = ", ".join(sorted(visible)) or "none"
            why = "fits several coins" if ids else "has no recorded price"
            return Err(
                ErrorCode.NO_DATA if not ids else ErrorCode.INVALID_INPUT,
                f"{token_id.strip()!r} {why} on or before {as_of.isoformat()} in the snapshot (coins with "
                f"recorded prices by then: {recorded}); the snapshot has no price series, do not estimate.",
                "snapshot",
            )
        coin = ids[0]
        ordered = sorted(visible[coin], key=lambda p: (p.at, p.currency))
        return Ok(TokenPriceHistory(token_id=coin, points=ordered))
