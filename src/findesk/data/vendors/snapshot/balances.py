"""ETH balances from the recorded Etherscan ``balance`` answers (``crypto/etherscan/balance_*.json``).

Rules this store keeps:
- A recording is visible only from its recording time (``crypto/index.csv``, read once by
  ``CryptoStore``): a balance is the balance when it was read, so the newest recording on or before
  ``as_of`` is the answer, and its ``observed_at`` says how old it is.
- Addresses match case-insensitively; amounts are exact (wei -> ``Decimal`` ETH).
- No recording for the address by ``as_of`` is ``no_data`` naming the addresses the snapshot has.
"""

from __future__ import annotations

from datetime import date, datetime

from findesk.core.dates import visible_at
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats.etherscan import WEI_DECIMALS, check_envelope, is_address, scale
from findesk.data.models.onchain_risk import EthBalance
from findesk.data.vendors.snapshot.crypto import CryptoStore
from findesk.data.vendors.snapshot.files import Lazy


class BalanceStore:
    def __init__(self, crypto: CryptoStore) -> None:
        self.files = crypto.files
        self._crypto = crypto
        # lower-cased address -> [(recorded, rel, address as recorded)]
        self._index = Lazy(self._load_index)

    def _load_index(self) -> dict[str, list[tuple[datetime, str, str]]]:
        out: dict[str, list[tuple[datetime, str, str]]] = {}
        for rec in self._crypto.recordings():
            address = rec.params.get("address")
            if rec.params.get("action") == "balance" and address:
                out.setdefault(address.lower(), []).append((rec.recorded, rec.rel, address))
        return out

    def balance(self, address: str, as_of: date) -> Result[EthBalance]:
        if not is_address(address):
            return Err(
                ErrorCode.INVALID_INPUT,
                f"{address!r} is not an Ethereum address: it must be 0x followed by 40 hex digits.",
                "snapshot",
            )
        recorded = self._index.get()
        seen = [r for r in recorded.get(address.strip().lower(), []) if visible_at(r[0], as_of)]
        if not seen:
            known = ", ".join(sorted(a for rs in recorded.values() for _, _, a in rs))
            return Err(
                ErrorCode.NO_DATA,
                f"The snapshot holds recorded ETH balances only for {known or 'no address'}; it has none for "
                f"{address.strip()} read on or before {as_of.isoformat()}.",
                "snapshot",
            )
        when, rel, listed = max(seen)
        body = check_envelope(self.files.read_json(rel), "snapshot")
        if isinstance(body, Err):
            return body
        try:
            wei = str(int(str(body.value)))
        except ValueError:
            return Err(
                ErrorCode.BAD_RESPONSE, f"{rel}: the balance {body.value!r} is not a number", "snapshot"
            )
        note = f"Etherscan balance read {when.isoformat().replace('+00:00', 'Z')}"
        return Ok(
            EthBalance(
                address=listed,
                balance_eth=scale(wei, WEI_DECIMALS),
                observed_at=when,
                source=self.files.source(rel, note),
            )
        )
