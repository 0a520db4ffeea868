"""Crypto data from the recorded API responses under ``crypto/`` (listed in ``crypto/index.csv``).

Rules this store keeps:
- Transactions: the recorded Etherscan ``txlist`` / ``txlistinternal`` / ``tokentx`` answers for an
  address, merged (overlapping recordings de-duplicated), newest first, only blocks whose timestamp is
  on or before the as-of day's end (New York). Addresses match case-insensitively. Each transaction's
  source says which recording it came from and how much history that request covered.
- Tokens: only recordings whose recording date (``index.csv``) is on or before ``as_of`` are read;
  a price carries the moment it describes (``price_as_of``), never the moment it was recorded.
- TVL: the snapshot holds no DefiLlama TVL series; asking for one is ``no_data``, never a guess.
- ``crypto/index.csv`` is parsed once, here (``recordings``); the balance and token-price stores
  read it through this store, so a damaged row fails all three the same way.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import date, datetime
from urllib.parse import parse_qs, urlparse

from findesk.core.dates import end_of_day, visible_at
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats import coingecko, defillama, etherscan
from findesk.data.models import OnchainTx, ProtocolTVL, TokenInfo
from findesk.data.vendors.snapshot.files import Lazy, SnapshotFiles

INDEX = "crypto/index.csv"


@dataclass(frozen=True, slots=True)
class Recording:
    """One row of ``crypto/index.csv``: a recorded answer, its request and when it was recorded."""

    rel: str
    url: str
    recorded: datetime
    params: dict[str, str]  # the request's query parameters

    @property
    def day(self) -> str:
        return self.recorded.date().isoformat()

    @property
    def stamp(self) -> str:
        """``recorded 2024-05-30T11:52:13Z``."""
        return f"recorded {self.recorded.isoformat().replace('+00:00', 'Z')}"


class CryptoStore:
    def __init__(self, files: SnapshotFiles) -> None:
        self.files = files
        self._index = Lazy(self._load_index)
        self._parsed: dict[str, Lazy[list[OnchainTx]]] = {}
        self._coins_list: Lazy[list[coingecko.CoinRef]] = Lazy(self._load_coins_list)

    # -- index -----------------------------------------------------------------------------------

    def recordings(self) -> list[Recording]:
        """Every row of ``crypto/index.csv``, parsed once; the balance and token-price stores read it here."""
        return self._index.get()

    def _load_index(self) -> list[Recording]:
        out: list[Recording] = []
        with self.files.path(INDEX).open(encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh):
                query = parse_qs(urlparse(row["request_url"]).query)
                params = {k: v[0] for k, v in query.items() if v}
                recorded = datetime.fromisoformat(row["recorded"].replace("Z", "+00:00"))
                out.append(Recording(row["path"], row["request_url"], recorded, params))
        return out

    def _etherscan(self) -> dict[str, list[Recording]]:
        by_address: dict[str, list[Recording]] = {}
        for rec in self._index.get():
            if rec.rel.startswith("crypto/etherscan/") and rec.params.get("action") in etherscan.ACTIONS:
                address = rec.params.get("address", "").lower()
                if address:
                    by_address.setdefault(address, []).append(rec)
        return by_address

    # -- transactions ----------------------------------------------------------------------------

    def txs(self, address: str, as_of: date, limit: int = 100) -> Result[list[OnchainTx]]:
        if not etherscan.is_address(address):
            return Err(
                ErrorCode.INVALID_INPUT,
                f"{address!r} is not an Ethereum address: it must be 0x followed by 40 hex digits.",
                "snapshot",
            )
        if limit < 1:
            return Err(ErrorCode.INVALID_INPUT, f"limit must be at least 1, got {limit}.", "snapshot")
        recorded = self._etherscan()
        recordings = recorded.get(address.strip().lower())
        if not recordings:
            known = ", ".join(sorted({r.params["address"] for rs in recorded.values() for r in rs}))
            return Err(
                ErrorCode.NO_DATA,
                f"The snapshot only holds Etherscan recordings for these addresses: {known}; "
                f"it has nothing for {address.strip()}.",
                "snapshot",
            )
        return Ok(etherscan.merge_txs((self._recording_txs(r) for r in recordings), end_of_day(as_of), limit))

    def _recording_txs(self, rec: Recording) -> list[OnchainTx]:
        if rec.rel not in self._parsed:
            self._parsed.setdefault(rec.rel, Lazy(lambda: self._parse_recording(rec)))
        return self._parsed[rec.rel].get()

    def _parse_recording(self, rec: Recording) -> list[OnchainTx]:
        kind = etherscan.ACTIONS[rec.params["action"]]
        source = self.files.source(rec.rel, _coverage(rec))
        parsed = etherscan.parse_txs(self.files.read_json(rec.rel), kind, source)
        if isinstance(parsed, Err):
            raise ValueError(f"{rec.rel}: {parsed.reason}")
        return parsed.value

    # -- tokens ----------------------------------------------------------------------------------

    def _load_coins_list(self) -> list[coingecko.CoinRef]:
        parsed = coingecko.parse_coins_list(self.files.read_json("crypto/coingecko/coins_list.json"))
        if isinstance(parsed, Err):
            raise ValueError(f"crypto/coingecko/coins_list.json: {parsed.reason}")
        return parsed.value

    def token(self, token_id: str, as_of: date) -> Result[TokenInfo]:
        wanted = token_id.strip().lower()
        if not wanted:
            return Err(
                ErrorCode.INVALID_INPUT, "The token id is empty; give a CoinGecko id or a symbol.", "snapshot"
            )
        visible = [r for r in self._index.get() if visible_at(r.recorded, as_of)]
        found = _TokenRecordings(self, visible)
        ids = coingecko.resolve_ids(wanted, found.refs())
        with_data = [i for i in ids if found.has_data(i)]
        if len(with_data) > 1:
            return Err(
                ErrorCode.INVALID_INPUT,
                f"The symbol {token_id!r} fits several recorded coins ({', '.join(with_data)}); "
                "give the CoinGecko id.",
                "snapshot",
            )
        if not with_data:
            recorded = ", ".join(sorted(found.ids_with_data())) or "none"
            return Err(
                ErrorCode.NO_DATA,
                f"The snapshot holds no CoinGecko or DefiLlama recording for {token_id!r} dated on or before "
                f"{as_of.isoformat()} (coins recorded by then: {recorded}); do not estimate its price.",
                "snapshot",
            )
        return Ok(found.token(with_data[0]))

    # -- TVL -------------------------------------------------------------------------------------

    def tvl(self, protocol: str, as_of: date) -> Result[ProtocolTVL]:
        return Err(
            ErrorCode.NO_DATA,
            f"The snapshot holds no DefiLlama TVL data (only coins.llama.fi prices), so it has no TVL for "
            f"{protocol.strip()!r} at {as_of.isoformat()}; use the live defillama vendor, do not estimate.",
            "snapshot",
        )


class _TokenRecordings:
    """The token recordings visible at one as-of date, parsed on demand."""

    def __init__(self, store: CryptoStore, visible: list[Recording]) -> None:
        self.store = store
        self.meta: dict[str, tuple[Recording, TokenInfo]] = {}
        self.prices: dict[str, list[tuple[Recording, TokenInfo]]] = {}
        self.simple: dict[str, list[tuple[Recording, dict[str, float]]]] = {}
        self.listed: list[coingecko.CoinRef] = []
        for rec in sorted(visible, key=lambda r: r.recorded):
            self._add(rec)

    def _add(self, rec: Recording) -> None:
        files = self.store.files
        path = urlparse(rec.url).path.strip("/")
        parts = path.split("/")
        if rec.rel.startswith("crypto/coingecko/") and parts[-1] == "list":
            self.listed = self.store._coins_list.get()
        elif rec.rel.startswith("crypto/coingecko/") and len(parts) >= 4 and parts[-1] == "history":
            day = datetime.strptime(rec.params["date"], "%d-%m-%Y").date()
            got = coingecko.parse_history(files.read_json(rec.rel), day, files.source(rec.rel, rec.stamp))
            if isinstance(got, Err):
                raise ValueError(f"{rec.rel}: {got.reason}")
            self.prices.setdefault(got.value.id, []).append((rec, got.value))
        elif rec.rel.startswith("crypto/coingecko/") and len(parts) >= 4 and parts[-2] == "coins":
            info = coingecko.parse_coin(files.read_json(rec.rel), files.source(rec.rel, rec.stamp))
            if isinstance(info, Err):
                raise ValueError(f"{rec.rel}: {info.reason}")
            self.meta[info.value.id] = (rec, info.value)
        elif rec.rel.startswith("crypto/coingecko/") and parts[-1] == "price":
            quotes = coingecko.parse_simple_price(files.read_json(rec.rel))
            if isinstance(quotes, Err):
                raise ValueError(f"{rec.rel}: {quotes.reason}")
            for coin, vs in quotes.value.items():
                self.simple.setdefault(coin, []).append((rec, vs))
        elif rec.rel.startswith("crypto/defillama/") and "prices" in parts:
            llama = defillama.parse_current_prices(files.read_json(rec.rel))
            if isinstance(llama, Err):
                raise ValueError(f"{rec.rel}: {llama.reason}")
            for key, price in llama.value.items():
                if key.startswith("coingecko:"):
                    coin = key.removeprefix("coingecko:")
                    priced = TokenInfo(
                        id=coin,
                        symbol=price.symbol.lower(),
                        name=coin,
                        price_usd=price.price_usd,
                        price_as_of=price.timestamp,
                        source=files.source(rec.rel, rec.stamp + " (DefiLlama price)"),
                    )
                    self.prices.setdefault(coin, []).append((rec, priced))

    def ids_with_data(self) -> set[str]:
        return set(self.meta) | set(self.prices) | set(self.simple)

    def has_data(self, coin: str) -> bool:
        return coin in self.ids_with_data()

    def refs(self) -> list[coingecko.CoinRef]:
        refs = list(self.listed)
        for info in [m[1] for m in self.meta.values()] + [p[1] for ps in self.prices.values() for p in ps]:
            refs.append(coingecko.CoinRef(info.id, info.symbol, info.name))
        refs.extend(coingecko.CoinRef(c, "", c) for c in self.simple)
        return refs

    def token(self, coin: str) -> TokenInfo:
        meta = self.meta.get(coin)
        prices = sorted(self.prices.get(coin, []), key=lambda p: p[1].price_as_of or p[0].recorded)
        price = prices[-1][1] if prices else None
        listed = next((c for c in self.listed if c.id == coin), None)
        base = meta[1] if meta else price
        symbol = base.symbol if base else (listed.symbol if listed else coin)
        name = meta[1].name if meta else (listed.name if listed else (price.name if price else coin))
        notes: list[str] = []
        if meta and price:
            notes.append(f"metadata from {meta[1].source.ref}")
        primary = price.source if price else (meta[1].source if meta else None)
        if primary is None:
            last = self.simple[coin][-1][0]
            primary = self.store.files.source(last.rel, last.stamp)
        for rec, vs in self.simple.get(coin, []):
            quoted = "; ".join(f"{v!r} {k.upper()}" for k, v in sorted(vs.items()))
            where = "" if rec.rel == primary.ref else f" ({rec.rel})"
            notes.append(f"CoinGecko simple/price recorded {rec.day}: {quoted}{where}")
        note = "; ".join(n for n in [primary.note, *notes] if n)
        return TokenInfo(
            id=coin,
            symbol=symbol,
            name=name,
            price_usd=price.price_usd if price else None,
            market_cap_usd=price.market_cap_usd if price else None,
            volume_24h_usd=price.volume_24h_usd if price else None,
            price_as_of=price.price_as_of if price else None,
            contracts=meta[1].contracts if meta else {},
            source=primary.model_copy(update={"note": note or None}),
        )


def _coverage(rec: Recording) -> str:
    params = rec.params
    scope = f"Etherscan {params.get('action')} recorded {rec.day}"
    if params.get("offset"):
        return f"{scope}; the request asked for only {params['offset']} result(s), so the history is partial"
    if params.get("startblock") or params.get("endblock"):
        return f"{scope}; blocks {params.get('startblock', '0')}-{params.get('endblock', 'latest')} only"
    return scope
