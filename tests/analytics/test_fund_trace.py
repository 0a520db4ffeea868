"""Upstream tracing over fake transactions: who paid the address and who paid them, nothing after the
cutoff, bounded fan-out stated, letter case ignored, paths in the direction the funds moved."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from findesk.analytics.fund_trace import build_trace, incoming_edges, senders_to_follow
from findesk.data.models import OnchainTx, Source

T = "0x" + "a" * 40
S1 = "0x" + "b" * 40
S2 = "0x" + "c" * 40
BASE = datetime(2025, 1, 1, tzinfo=UTC)
CUTOFF = datetime(2025, 6, 1, tzinfo=UTC)
_n = 0


def tx(sender: str, receiver: str, day: int = 0, value: str = "1", **kw: object) -> OnchainTx:
    global _n
    _n += 1
    return OnchainTx(
        chain="ethereum",
        hash=f"0x{_n:064x}",
        block_number=_n,
        timestamp=BASE + timedelta(days=day),
        from_address=sender,
        to_address=receiver,
        value=Decimal(value),
        asset="ETH",
        source=Source(vendor="fake", ref=f"fake/{sender[:6]}"),
        **kw,  # type: ignore[arg-type]
    )


def test_two_hops_give_paths_ending_at_the_traced_address() -> None:
    trace = build_trace(T, [tx(S1, T)], {S1: [tx(S2, S1), tx(S1, T)]}, CUTOFF)
    assert [(e.sender, e.receiver, e.hop) for e in trace.incoming] == [(S1, T, 1), (S2, S1, 2)]
    ((path, edge),) = trace.paths_through([S2])
    assert path == [S2, S1, T] and edge.hop == 2
    assert trace.followed == [S1] and trace.gaps == []


def test_a_transfer_after_the_cutoff_is_never_used() -> None:
    late = tx(S2, T, day=400)
    trace = build_trace(T, [tx(S1, T), late], {S1: [tx(S2, S1, day=300)]}, CUTOFF)
    assert [e.sender for e in trace.incoming if e.hop == 1] == [S1]
    assert all(e.last <= CUTOFF for e in trace.incoming)
    assert S2 not in [e.sender for e in trace.incoming]  # its only link to S1 is after the cutoff too
    assert trace.gaps == [f"the recorded history of {S1} shows no incoming transfer"]


def test_failed_zero_and_self_transfers_link_nobody() -> None:
    txs = [tx(S1, T, is_error=True), tx(S2, T, value="0"), tx(T, T)]
    assert incoming_edges(T, txs, CUTOFF) == []


def test_letter_case_is_not_identity_and_the_given_spelling_is_kept() -> None:
    mixed = "0x" + "A" * 40
    trace = build_trace(mixed, [tx(S1.upper().replace("0X", "0x"), T)], {}, CUTOFF)
    assert trace.incoming[0].receiver == mixed
    assert trace.address == mixed


def test_fan_out_is_bounded_and_what_was_left_out_is_said() -> None:
    senders = [f"0x{i:040x}" for i in range(1, 8)]
    own = [tx(s, T) for s in senders] + [tx(senders[6], T) for _ in range(3)]
    trace = build_trace(T, own, {s: [] for s in senders}, CUTOFF, fan_out=3)
    assert trace.followed[0] == senders[6]  # the most transfers first
    assert len(trace.followed) == 3 and len(trace.not_followed) == 4
    assert any("4 direct senders beyond the fan-out of 3" in g for g in trace.gaps)
    assert len([e for e in trace.incoming if e.hop == 1]) == 7  # still edges, so still screened


def test_an_unrecorded_sender_is_a_gap_not_a_clean_result() -> None:
    trace = build_trace(T, [tx(S1, T)], {S1: None}, CUTOFF)
    assert trace.gaps == [f"no recorded transactions for {S1}: who funded it is unknown"]


def test_edges_sum_amounts_per_asset_and_keep_the_newest_hashes() -> None:
    own = [tx(S1, T, day=d, value="0.5") for d in range(5)]
    (edge,) = incoming_edges(T, own, CUTOFF)
    assert edge.transfers == 5 and edge.amounts == {"ETH": Decimal("2.5")}
    assert edge.tx_hashes[0] == own[-1].hash and len(edge.tx_hashes) == 3


def test_ranking_is_deterministic_on_ties() -> None:
    edges = incoming_edges(T, [tx(S2, T), tx(S1, T)], BASE + timedelta(days=1))
    assert senders_to_follow(edges, 5) == ([S1, S2], [])
    assert senders_to_follow(edges, 1) == ([S1], [S2])


def test_a_large_history_traces_quickly() -> None:
    senders = [f"0x{i:040x}" for i in range(1, 2001)]
    own = [tx(s, T, day=i % 100) for i, s in enumerate(senders)]
    upstream = {s: [tx(S2, s)] for s in senders[:10]}
    started = time.perf_counter()
    trace = build_trace(T, own, upstream, CUTOFF, fan_out=10)
    assert time.perf_counter() - started < 2
    assert len(trace.followed) == 10 and len(trace.not_followed) == 1990


def test_a_second_hop_sender_beyond_the_fan_out_is_still_an_edge_so_it_is_screened() -> None:
    funders = [f"0x{i:040x}" for i in range(1, 5)]
    sanctioned = "0x" + "d" * 40  # one transfer: ranked last of the senders to S1
    history = [tx(f, S1) for f in funders for _ in range(2)] + [tx(sanctioned, S1)]
    trace = build_trace(T, [tx(S1, T)], {S1: history}, CUTOFF, fan_out=2)
    second = [e.sender for e in trace.incoming if e.hop == 2]
    assert len(second) == 5 and second[-1] == sanctioned
    ((path, edge),) = trace.paths_through([sanctioned])
    assert path == [sanctioned, S1, T] and edge.hop == 2
    assert sanctioned in trace.addresses()


def test_a_transfer_recorded_twice_counts_once() -> None:
    once = tx(S1, T, value="2")
    again = once.model_copy(update={"hash": once.hash.upper().replace("0X", "0x")})
    (edge,) = incoming_edges(T, [once, again], CUTOFF)
    assert edge.transfers == 1 and edge.amounts == {"ETH": Decimal("2")}
