"""Upstream fund tracing over a transaction graph: who sent funds to an address, and who sent to them.

Rules this module keeps:
- Pure: transactions in, a trace out. The tool fetches the histories; nothing here does I/O.
- Only transfers that moved value *into* an address count as upstream (receiver is the address, the
  transaction did not fail, the amount is above zero), and only those dated on or before the cutoff:
  a transaction after the as-of date is dropped here even if a source returned it.
- Fan-out is bounded and stated: per address at most ``fan_out`` senders are followed to the next hop,
  ranked by number of transfers, then by the latest one, then by address (deterministic). The bound
  limits only whose history is fetched: every sender found, at either hop, stays in the trace as an
  edge (so it is still screened); direct senders beyond it are listed as not followed, and hop-2
  senders are never followed (two hops at most).
- Addresses compare lower-cased (EIP-55 letter case is a checksum, not identity) and are shown as the
  traced address was given or as the source wrote them.
- A path lists addresses in the direction the funds moved, ending at the traced address for upstream
  links (``[sender of sender, sender, address]``) or starting at it for its own outgoing transfers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from decimal import Decimal

from pydantic import BaseModel, Field

from findesk.data.formats.etherscan import dedupe_key
from findesk.data.models import OnchainTx

MAX_HOPS = 2
DEFAULT_FAN_OUT = 5
MAX_FAN_OUT = 10
HASHES_KEPT = 3


class Edge(BaseModel):
    sender: str
    receiver: str
    hop: int  # 1: paid the traced address (or, outgoing, was paid by it); 2: paid a hop-1 sender
    transfers: int
    amounts: dict[str, Decimal] = Field(default_factory=dict)  # asset -> total moved, whole units
    first: datetime
    last: datetime
    tx_hashes: list[str] = Field(default_factory=list)  # the newest few
    sources: list[str] = Field(default_factory=list)  # citations of the records the transfers came from


class FundTrace(BaseModel):
    address: str
    hops: int
    fan_out: int
    cutoff: datetime
    incoming: list[Edge] = Field(default_factory=list)  # hop 1 and hop 2, upstream
    outgoing: list[Edge] = Field(default_factory=list)  # the traced address's own payments (hop 1)
    followed: list[str] = Field(default_factory=list)  # hop-1 senders whose own history was traced
    not_followed: list[str] = Field(default_factory=list)  # hop-1 senders beyond the fan-out
    gaps: list[str] = Field(default_factory=list)  # where the recorded data ends

    def addresses(self) -> list[str]:
        """Every counterparty in the trace, once, in order of appearance (traced address excluded)."""
        seen: dict[str, str] = {}
        for edge in [*self.incoming, *self.outgoing]:
            for who in (edge.sender, edge.receiver):
                if _key(who) != _key(self.address):
                    seen.setdefault(_key(who), who)
        return list(seen.values())

    def paths_through(self, flagged: Iterable[str]) -> list[tuple[list[str], Edge]]:
        """Each path that links the traced address to a flagged address, with the edge that touches it."""
        wanted = {_key(a) for a in flagged}
        out: list[tuple[list[str], Edge]] = []
        for edge in self.incoming:
            if _key(edge.sender) not in wanted:
                continue
            path = (
                [edge.sender, self.address] if edge.hop == 1 else [edge.sender, edge.receiver, self.address]
            )
            out.append((path, edge))
        for edge in self.outgoing:
            if _key(edge.receiver) in wanted:
                out.append(([self.address, edge.receiver], edge))
        return out


def _key(address: str) -> str:
    return address.strip().lower()


def _counts(tx: OnchainTx, cutoff: datetime) -> bool:
    return not tx.is_error and tx.value > 0 and tx.timestamp <= cutoff and tx.to_address is not None


def _edges(
    txs: Iterable[OnchainTx], cutoff: datetime, hop: int, *, receiver: str | None, sender: str | None
) -> list[Edge]:
    grouped: dict[tuple[str, str], list[OnchainTx]] = {}
    for tx in txs:
        if not _counts(tx, cutoff) or tx.to_address is None:
            continue
        if receiver is not None and _key(tx.to_address) != _key(receiver):
            continue
        if sender is not None and _key(tx.from_address) != _key(sender):
            continue
        if _key(tx.from_address) == _key(tx.to_address):
            continue  # a self-transfer links the address to nobody
        grouped.setdefault((_key(tx.from_address), _key(tx.to_address)), []).append(tx)
    edges: list[Edge] = []
    for group in grouped.values():
        unique = {dedupe_key(t): t for t in group}.values()
        newest = sorted(unique, key=lambda t: (t.timestamp, t.block_number), reverse=True)
        amounts: dict[str, Decimal] = {}
        for t in newest:
            amounts[t.asset] = amounts.get(t.asset, Decimal(0)) + t.value
        edges.append(
            Edge(
                sender=_as_given(newest[0].from_address, sender),
                receiver=_as_given(newest[0].to_address or "", receiver),
                hop=hop,
                transfers=len(newest),
                amounts=amounts,
                first=newest[-1].timestamp,
                last=newest[0].timestamp,
                tx_hashes=[t.hash for t in newest[:HASHES_KEPT]],
                sources=sorted({t.source.cite() for t in newest}),
            )
        )
    return edges


def _as_given(found: str, given: str | None) -> str:
    """The address as the caller gave it when it is that address, else as the source wrote it."""
    return given.strip() if given is not None and _key(given) == _key(found) else found


def incoming_edges(address: str, txs: Iterable[OnchainTx], cutoff: datetime, hop: int = 1) -> list[Edge]:
    """Who paid ``address`` (one edge per sender), visible at ``cutoff``."""
    return _edges(txs, cutoff, hop, receiver=address, sender=None)


def outgoing_edges(address: str, txs: Iterable[OnchainTx], cutoff: datetime) -> list[Edge]:
    """Whom ``address`` paid (one edge per receiver), visible at ``cutoff``."""
    return _edges(txs, cutoff, 1, receiver=None, sender=address)


def rank(edges: list[Edge]) -> list[Edge]:
    """Most transfers first, then the most recent, then by address."""
    return sorted(edges, key=lambda e: (-e.transfers, -e.last.timestamp(), _key(e.sender)))


def senders_to_follow(edges: list[Edge], fan_out: int) -> tuple[list[str], list[str]]:
    """The senders to follow to the next hop (at most ``fan_out``) and the ones left out."""
    ranked = [e.sender for e in rank(edges)]
    return ranked[:fan_out], ranked[fan_out:]


def first_hop(
    address: str,
    own: list[OnchainTx],
    cutoff: datetime,
    fan_out: int = DEFAULT_FAN_OUT,
    hops: int = MAX_HOPS,
) -> FundTrace:
    """The hop-1 trace of ``address`` from its own transactions, with the senders to follow in
    ``followed`` (none with ``hops=1``). ``add_upstream`` completes it with their histories."""
    fan_out = max(1, min(fan_out, MAX_FAN_OUT))
    hops = max(1, min(hops, MAX_HOPS))
    first = rank(incoming_edges(address, own, cutoff, 1))
    followed, not_followed = (
        senders_to_follow(first, fan_out) if hops > 1 else ([], [e.sender for e in first])
    )
    return FundTrace(
        address=address.strip(),
        hops=hops,
        fan_out=fan_out,
        cutoff=cutoff,
        incoming=first,
        outgoing=rank(outgoing_edges(address, own, cutoff)),
        followed=followed,
        not_followed=not_followed,
    )


def add_upstream(trace: FundTrace, upstream: Mapping[str, list[OnchainTx] | None]) -> FundTrace:
    """``trace`` (from ``first_hop``) with the hop-2 senders of each followed sender and the gaps.

    ``upstream`` maps a followed sender (any letter case) to its transactions, or to None when its
    history is not available; senders it does not hold were not fetched.
    """
    fetched = {_key(k): v for k, v in upstream.items()}
    gaps: list[str] = []
    second: list[Edge] = []
    for sender in trace.followed:
        history = fetched.get(_key(sender))
        if history is None:
            gaps.append(f"no recorded transactions for {sender}: who funded it is unknown")
            continue
        found = rank(incoming_edges(sender, history, trace.cutoff, 2))
        if not found:
            gaps.append(f"the recorded history of {sender} shows no incoming transfer")
        second.extend(found)
    if trace.not_followed:
        which = "" if trace.hops == 1 else f" beyond the fan-out of {trace.fan_out}"
        gaps.append(f"{len(trace.not_followed)} direct senders{which} were screened but not traced further")
    return trace.model_copy(update={"incoming": [*trace.incoming, *second], "gaps": [*trace.gaps, *gaps]})


def build_trace(
    address: str,
    own: list[OnchainTx],
    upstream: Mapping[str, list[OnchainTx] | None],
    cutoff: datetime,
    fan_out: int = DEFAULT_FAN_OUT,
) -> FundTrace:
    """The two-hop trace of ``address`` from its own transactions and those of the senders followed
    (``first_hop`` then ``add_upstream``)."""
    return add_upstream(first_hop(address, own, cutoff, fan_out), upstream)
