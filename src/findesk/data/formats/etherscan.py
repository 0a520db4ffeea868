"""Etherscan v2 account responses (``txlist``, ``txlistinternal``, ``tokentx``) and ``getblocknobytime``.

Rules this module keeps:
- Pure: bytes/JSON in, typed models or ``Err`` out; no I/O, never raises for a bad body.
- Etherscan answers HTTP 200 even for errors: ``{"status": "0", "message": "NOTOK", "result": "<why>"}``.
  Rate-limit strings become ``rate_limited``, key problems ``not_configured``, a bad address
  ``invalid_input``; ``"No transactions found"`` is an empty list, not an error.
- Amounts are exact: native values are wei -> ``Decimal`` ETH (10^-18), token values are scaled by
  the transfer's own ``tokenDecimal``; never floats.
- Timestamps are the block's Unix time, as UTC datetimes.
- Several answers for one address (the three actions, or overlapping recordings) merge into one list
  (``merge_txs``): each transfer once, none after the cutoff, newest first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any, Literal

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import OnchainTx, Source

TxKind = Literal["normal", "internal", "token"]

# Etherscan action name -> the OnchainTx.kind it yields.
ACTIONS: dict[str, TxKind] = {"txlist": "normal", "txlistinternal": "internal", "tokentx": "token"}

ADDRESS_RE = re.compile(r"^0x[0-9a-fA-F]{40}$")
WEI_DECIMALS = 18

_KIND_ORDER = {"normal": 0, "internal": 1, "token": 2}  # in one block: the call, then what it caused
_NO_RESULTS = ("no transactions found", "no records found", "no token transfers found")


def is_address(text: str) -> bool:
    return bool(ADDRESS_RE.match(text.strip()))


def scale(raw: str, decimals: int) -> Decimal:
    """An integer amount in base units -> whole units, exactly (``"1500" , 3 -> 1.5``)."""
    value = Decimal(int(raw)).scaleb(-decimals).normalize()
    # normalize() writes 100 as 1E+2; whole amounts keep a plain integer exponent instead
    return value.quantize(Decimal(1)) if value.as_tuple().exponent > 0 else value  # type: ignore[operator]


def check_envelope(payload: Any, source: str = "etherscan") -> Result[Any]:
    """The ``result`` of a well-formed answer, or the typed error the envelope describes."""
    if not isinstance(payload, dict) or "status" not in payload or "result" not in payload:
        return Err(ErrorCode.BAD_RESPONSE, "Etherscan answered without the status/result envelope.", source)
    status = str(payload.get("status"))
    message = str(payload.get("message") or "")
    result = payload["result"]
    if status == "1":
        return Ok(result)
    detail = result if isinstance(result, str) else message
    text = f"{message} {detail}".lower()
    if any(marker in text for marker in _NO_RESULTS):
        return Ok([])
    if "rate limit" in text:
        return Err(ErrorCode.RATE_LIMITED, f"Etherscan asked us to slow down: {detail}.", source)
    if "api key" in text or "apikey" in text:
        return Err(
            ErrorCode.NOT_CONFIGURED,
            f"Etherscan rejected the API key ({detail}); check FINDESK_ETHERSCAN_API_KEY.",
            source,
        )
    if "invalid address" in text:
        return Err(ErrorCode.INVALID_INPUT, f"Etherscan rejected the address: {detail}.", source)
    if "timeout" in text:
        return Err(ErrorCode.TIMEOUT, f"Etherscan timed out answering the query: {detail}.", source)
    return Err(ErrorCode.UNAVAILABLE, f"Etherscan answered with an error: {detail or message}.", source)


def parse_txs(
    payload: Any, kind: TxKind, source: Source, *, chain: str = "ethereum", vendor: str = "etherscan"
) -> Result[list[OnchainTx]]:
    """Parse one account-action answer into transactions (in the order given)."""
    got = check_envelope(payload, vendor)
    if isinstance(got, Err):
        return got
    rows = got.value
    if not isinstance(rows, list):
        return Err(
            ErrorCode.BAD_RESPONSE, f"Etherscan's {kind} result is not a list of transactions.", vendor
        )
    out: list[OnchainTx] = []
    for row in rows:
        tx = _parse_row(row, kind, source, chain)
        if tx is None:
            return Err(
                ErrorCode.BAD_RESPONSE, f"Etherscan returned a malformed {kind} transaction row.", vendor
            )
        out.append(tx)
    return Ok(out)


def _parse_row(row: Any, kind: TxKind, source: Source, chain: str) -> OnchainTx | None:
    if not isinstance(row, dict):
        return None
    try:
        if kind == "token":
            decimals = int(row.get("tokenDecimal") or 0)
            asset = str(row.get("tokenSymbol") or row.get("tokenName") or "?")
            contract: str | None = str(row.get("contractAddress") or "") or None
        else:
            decimals, asset, contract = WEI_DECIMALS, "ETH", None
        to_address = str(row.get("to") or "") or None
        if to_address is None and kind != "token" and row.get("contractAddress"):
            # contract creation: Etherscan leaves ``to`` empty and names the new contract separately
            contract = str(row["contractAddress"])
        return OnchainTx(
            chain=chain,
            hash=str(row["hash"]),
            block_number=int(row["blockNumber"]),
            timestamp=datetime.fromtimestamp(int(row["timeStamp"]), tz=UTC),
            from_address=str(row.get("from") or ""),
            to_address=to_address,
            value=scale(str(row.get("value") or "0"), decimals),
            asset=asset,
            token_contract=contract,
            kind=kind,
            is_error=str(row.get("isError") or "0") == "1",
            source=source,
        )
    except (KeyError, ValueError, TypeError, InvalidOperation, OverflowError):
        return None


def dedupe_key(tx: OnchainTx) -> tuple[str, ...]:
    """Identity of a transfer across overlapping recordings (one hash can carry several transfers)."""
    return (
        tx.kind,
        tx.hash.lower(),
        tx.from_address.lower(),
        (tx.to_address or "").lower(),
        str(tx.value),
        (tx.token_contract or "").lower(),
    )


def merge_txs(batches: Iterable[Iterable[OnchainTx]], cutoff: datetime, limit: int) -> list[OnchainTx]:
    """The newest ``limit`` distinct transfers at or before ``cutoff`` from several answers: newest
    block time first, then the higher block, then normal, internal, token transfers."""
    seen: set[tuple[str, ...]] = set()
    merged: list[OnchainTx] = []
    for batch in batches:
        for tx in batch:
            key = dedupe_key(tx)
            if tx.timestamp <= cutoff and key not in seen:
                seen.add(key)
                merged.append(tx)
    merged.sort(key=lambda t: (-t.timestamp.timestamp(), -t.block_number, _KIND_ORDER.get(t.kind, 3)))
    return merged[:limit]


def parse_block_number(payload: Any, source: str = "etherscan") -> Result[int]:
    """``getblocknobytime`` -> the block number."""
    got = check_envelope(payload, source)
    if isinstance(got, Err):
        return got
    try:
        return Ok(int(got.value))
    except (TypeError, ValueError):
        return Err(
            ErrorCode.BAD_RESPONSE, "Etherscan's getblocknobytime result is not a block number.", source
        )
