"""Compliance tools: two-hop upstream fund tracing, the known-mixer check and the address risk score.

Rules:
- Point in time: every history, list and screen is read at ``ctx.as_of`` through the router; the
  trace drops anything dated after the as-of day's end again (``analytics.fund_trace``).
- "Sanctioned at as_of" means: on the newest sanctions list the desk holds that is dated on or
  before ``as_of`` (the sanctions store's rule). For Tornado Cash this is the 2024 lists up to
  2026-05-26, although Treasury delisted it on 2025-03-21 (snapshot README, caveat 13): the score
  follows the lists, and the answer says the list predates the delisting and what the link would
  score as a mixer alone. From the 2026-05-26 list on, its pools are known mixers, not sanctioned.
- Bounded work, stated: the trace follows at most ``fan_out`` senders per hop, two hops deep, and at
  most ``MAX_SCREENS`` counterparties are screened; what was left out is listed as a coverage gap.
- A mixed-case address whose EIP-55 checksum is wrong is still screened (case is not identity), with
  a caveat that it may contain a typo.
- A missing history or list is a visible gap ("no recorded transactions for …"), never a clean
  result; a no-match on a stale list says the list date. The words are "risk indicator" and
  "screening result", never a legal finding.
"""

from __future__ import annotations

import asyncio
from datetime import date
from decimal import Decimal
from typing import Annotated

from pydantic import BaseModel, Field, StringConstraints

from findesk.analytics.compliance_risk import Link, RiskInputs, RiskScore, score_risk
from findesk.analytics.fund_trace import (
    DEFAULT_FAN_OUT,
    MAX_FAN_OUT,
    MAX_HOPS,
    Edge,
    FundTrace,
    add_upstream,
    first_hop,
)
from findesk.core.dates import end_of_day
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats.eip55 import checksum_ok
from findesk.data.formats.etherscan import ADDRESS_RE
from findesk.data.models import OnchainTx, SanctionsList, SanctionsMatch, SanctionsScreen
from findesk.data.models.onchain_risk import MixerContract, MixerList
from findesk.tools.args import QUOTE_RULE, ToolArgs
from findesk.tools.base import Tool, ToolContext
from findesk.tools.summaries import fit_lines, when

HISTORY_LIMIT = 100  # transactions read per address (newest first)
MAX_SCREENS = 40  # counterparties screened per risk check
# Known delistings the lists in the snapshot predate: (entity as listed, date, where it is documented)
KNOWN_DELISTINGS = {"TORNADO CASH": (date(2025, 3, 21), "snapshot README, caveat 13")}

EthAddress = Annotated[
    str,
    StringConstraints(strip_whitespace=True, pattern=ADDRESS_RE.pattern),
    Field(description="An Ethereum address: 0x followed by 40 hex digits (any letter case)."),
]


class TraceArgs(ToolArgs):
    address: EthAddress
    fan_out: Annotated[
        int, Field(ge=1, le=MAX_FAN_OUT, description=f"Senders followed per hop (default {DEFAULT_FAN_OUT}).")
    ] = DEFAULT_FAN_OUT


class AddressArgs(ToolArgs):
    address: EthAddress


# ---- tracing ------------------------------------------------------------------------------------


async def _history(ctx: ToolContext, address: str) -> tuple[list[OnchainTx] | None, list[str]]:
    """Recorded transactions and mixer withdrawals of ``address``, or None when neither is held."""
    own, mixed = await asyncio.gather(
        ctx.router.onchain_txs(address, ctx.as_of, HISTORY_LIMIT),
        ctx.router.mixer_transfers(address, ctx.as_of),
    )
    gaps: list[str] = []
    txs: list[OnchainTx] = []
    held = False
    if isinstance(own, Ok):
        held = True
        txs.extend(own.value)
        if len(own.value) >= HISTORY_LIMIT:
            gaps.append(f"only the newest {HISTORY_LIMIT} transactions of {address} were read")
    elif own.code != ErrorCode.NO_DATA:
        gaps.append(f"transactions of {address} unavailable: {own.message()}")
    if isinstance(mixed, Ok):
        held = held or bool(mixed.value)
        txs.extend(mixed.value)
    elif mixed.code == ErrorCode.NOT_CONFIGURED:
        gaps.append(f"recorded mixer withdrawals unavailable: {mixed.message()}")
    else:
        gaps.append(f"mixer withdrawals to {address} unavailable: {mixed.message()}")
    return (txs if held else None), gaps


async def collect_trace(
    ctx: ToolContext, address: str, fan_out: int = DEFAULT_FAN_OUT, hops: int = MAX_HOPS
) -> FundTrace:
    """The trace of ``address`` at ``ctx.as_of``; ``hops=1`` reads only the address's own history."""
    own, gaps = await _history(ctx, address)
    first = first_hop(address, own or [], end_of_day(ctx.as_of), fan_out, hops)
    fetched = await asyncio.gather(*(_history(ctx, sender) for sender in first.followed))
    trace = add_upstream(
        first, {sender: txs for sender, (txs, _) in zip(first.followed, fetched, strict=True)}
    )
    if own is None:
        gaps.insert(0, f"no recorded transactions for {address.strip()}: its funding cannot be traced")
    extra = [g for _, more in fetched for g in more]
    # dict.fromkeys: a source missing for every address (no mixer source configured) is said once
    return trace.model_copy(update={"gaps": list(dict.fromkeys([*gaps, *extra, *trace.gaps]))})


async def _trace(args: TraceArgs, ctx: ToolContext) -> Result[FundTrace]:
    return Ok(await collect_trace(ctx, args.address, args.fan_out))


def _amount(value: Decimal) -> str:
    text = f"{value:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _edge_line(edge: Edge) -> str:
    moved = ", ".join(f"{_amount(v)} {asset}" for asset, v in sorted(edge.amounts.items()))
    times = "1 transfer" if edge.transfers == 1 else f"{edge.transfers} transfers"
    span = when(edge.last) if edge.transfers == 1 else f"{when(edge.first)} .. {when(edge.last)}"
    return f"- hop {edge.hop}: {edge.sender} -> {edge.receiver}: {times}, {moved}, {span}"


def summarize_trace(t: FundTrace) -> str:
    head = (
        f"Upstream trace of {t.address} ({t.hops} hops, at most {t.fan_out} senders followed per hop, "
        f"transfers up to {when(t.cutoff)}): {len(t.incoming)} sender links, {len(t.outgoing)} outgoing."
    )
    lines = [_edge_line(e) for e in t.incoming] + [f"- outgoing{_edge_line(e)[1:]}" for e in t.outgoing[:10]]
    tail = "\n".join(["Coverage gaps:", *(f"- {g}" for g in t.gaps)]) if t.gaps else ""
    sources = sorted({s for e in [*t.incoming, *t.outgoing] for s in e.sources})
    if sources:
        tail += ("\n" if tail else "") + "Sources: " + "; ".join(sources)
    return fit_lines(head, lines, tail)


trace_funds = Tool(
    name="trace_funds",
    description=(
        "Two-hop upstream fund tracing of an Ethereum address up to the run's as-of date: who sent funds to "
        "it, and who sent funds to those senders (Etherscan recordings and recorded mixer withdrawals). "
        f"Follows at most fan_out senders per hop (default {DEFAULT_FAN_OUT}, max {MAX_FAN_OUT}) and lists "
        f"every coverage gap. Screen the addresses with screen_sanctions or use address_risk. {QUOTE_RULE}"
    ),
    args=TraceArgs,
    fn=_trace,
    summarize=summarize_trace,
)


# ---- mixers -------------------------------------------------------------------------------------


class MixerCheck(BaseModel):
    address: str
    is_mixer: MixerContract | None = None  # the address is itself a known mixer contract
    counterparties: list[MixerContract] = Field(default_factory=list)  # mixers it paid or was paid by
    transfers: list[Edge] = Field(default_factory=list)  # the direct transfers with those mixers
    list_date: date
    list_source: str
    gaps: list[str] = Field(default_factory=list)


async def check_mixer(ctx: ToolContext, address: str) -> Result[MixerCheck]:
    listed = await ctx.router.mixer_contracts(ctx.as_of)
    if isinstance(listed, Err):
        return listed
    mixers = listed.value
    trace = await collect_trace(ctx, address, hops=1)  # direct transfers only
    direct = [e for e in trace.incoming if e.hop == 1] + trace.outgoing
    touching: list[Edge] = []
    found: dict[str, MixerContract] = {}
    for edge in direct:
        other = edge.receiver if edge.sender.lower() == address.strip().lower() else edge.sender
        hit = mixers.find(other)
        if hit is not None:
            touching.append(edge)
            found.setdefault(hit.address.lower(), hit)
    return Ok(
        MixerCheck(
            address=address.strip(),
            is_mixer=mixers.find(address),
            counterparties=list(found.values()),
            transfers=touching,
            list_date=mixers.list_date,
            list_source=mixers.source.cite(),
            gaps=[g for g in trace.gaps if address.strip().lower() in g.lower()],
        )
    )


async def _mixer(args: AddressArgs, ctx: ToolContext) -> Result[MixerCheck]:
    return await check_mixer(ctx, args.address)


def _mixer_name(c: MixerContract) -> str:
    size = f" {c.denomination} {(c.token or '').upper()}" if c.denomination else ""
    return f"{c.mixer}{size} {c.kind} {c.address} (chain {c.chain_id})"


def summarize_mixer(m: MixerCheck) -> str:
    lines = []
    if m.is_mixer is not None:
        lines.append(f"{m.address} IS a known mixer contract: {_mixer_name(m.is_mixer)}.")
    if m.counterparties:
        lines.append("Direct transfers with known mixer contracts (a mixer interaction, a risk indicator):")
        lines += [f"- {_mixer_name(c)}" for c in m.counterparties]
        lines += [_edge_line(e) for e in m.transfers]
    elif m.is_mixer is None:
        lines.append(
            f"No direct transfer between {m.address} and a known mixer contract in the recorded data."
        )
    lines += [f"Coverage: {g}" for g in m.gaps]
    lines.append(f"Mixer list of {m.list_date.isoformat()}: {m.list_source}")
    return "\n".join(lines)


mixer_check = Tool(
    name="mixer_check",
    description=(
        "Whether an Ethereum address is a known mixer contract (the Tornado Cash pools and helpers the desk "
        "lists) and whether it sent funds to or received funds from one directly, with the transfers and "
        f"the mixer list's date. {QUOTE_RULE}"
    ),
    args=AddressArgs,
    fn=_mixer,
    summarize=summarize_mixer,
)


# ---- the risk score -----------------------------------------------------------------------------


class Flagged(BaseModel):
    address: str
    flag: str  # "sanctioned" or "mixer"
    detail: str
    source: str


class AddressRisk(BaseModel):
    address: str
    as_of: date
    risk: RiskScore
    matches: list[SanctionsMatch] = Field(default_factory=list)  # the address's own list entries
    lists_checked: list[SanctionsList] = Field(default_factory=list)
    flagged: list[Flagged] = Field(default_factory=list)  # counterparties that raised the score
    trace: FundTrace
    mixer_list: str | None = None  # citation of the mixer list used, or None when unavailable
    notes: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)  # every citation the score rests on


def _match_text(m: SanctionsMatch) -> str:
    entry = f": {m.entity}" if m.entity else ""
    sdn = f" (SDN id {m.entry_id})" if m.entry_id else ""
    return f"{m.list_name} list of {m.list_date.isoformat()}{entry}{sdn}"


def _delisting_notes(matches: list[SanctionsMatch], as_of: date) -> list[str]:
    """A note per entity whose known delisting (by ``as_of``) is newer than the lists that match it."""
    older: dict[str, list[date]] = {}
    for m in matches:
        known = KNOWN_DELISTINGS.get((m.entity or "").upper())
        if known is not None and m.list_date < known[0] <= as_of:
            older.setdefault(m.entity or "", []).append(m.list_date)
    notes = []
    for entity, dates in older.items():
        delisted, where = KNOWN_DELISTINGS[entity.upper()]
        shown = ", ".join(sorted({d.isoformat() for d in dates}))
        notes.append(
            f"{entity} was delisted on {delisted.isoformat()} ({where}); the lists of {shown} used here "
            "predate it, so this listing may be out of date."
        )
    return notes


def _stale_lists(checked: list[SanctionsList]) -> list[str]:
    """One line per list date: which lists are stale at the as-of date and by how much."""
    by_date: dict[date, list[SanctionsList]] = {}
    for lst in checked:
        if lst.stale:
            by_date.setdefault(lst.list_date, []).append(lst)
    return [
        f"lists of {day.isoformat()} ({', '.join(x.name for x in lists)}) are {lists[0].stale_days} days old "
        "at the as-of date: later designations or delistings are not reflected"
        for day, lists in sorted(by_date.items())
    ]


async def _screen(ctx: ToolContext, address: str) -> Result[SanctionsScreen]:
    return await ctx.router.sanctions(address, ctx.as_of)


async def assess(ctx: ToolContext, address: str, fan_out: int = DEFAULT_FAN_OUT) -> Result[AddressRisk]:
    address = address.strip()
    own_screen, trace, mixers = await asyncio.gather(
        _screen(ctx, address), collect_trace(ctx, address, fan_out), ctx.router.mixer_contracts(ctx.as_of)
    )
    if isinstance(own_screen, Err) and own_screen.code == ErrorCode.INVALID_INPUT:
        return own_screen
    gaps = list(trace.gaps)
    mixer_list: MixerList | None = mixers.value if isinstance(mixers, Ok) else None
    if isinstance(mixers, Err):
        gaps.append(f"mixer list unavailable: {mixers.message()}")
    matches: list[SanctionsMatch] = []
    checked: list[SanctionsList] = []
    if isinstance(own_screen, Ok):
        matches = own_screen.value.matches
        checked = own_screen.value.lists_checked
        gaps += _stale_lists(checked)
    else:
        gaps.append(f"sanctions screen of {address} unavailable: {own_screen.message()}")
    others = trace.addresses()
    if len(others) > MAX_SCREENS:
        gaps.append(
            f"{len(others) - MAX_SCREENS} counterparties beyond the first {MAX_SCREENS} were not screened"
        )
    screens = await asyncio.gather(*(_screen(ctx, a) for a in others[:MAX_SCREENS]))
    flagged: dict[str, Flagged] = {}
    links: list[Link] = []
    notes = _delisting_notes(matches, ctx.as_of)
    if checksum_ok(address) is False:
        notes.append(
            f"the letter case of {address} is not a valid EIP-55 checksum, so it may contain a typo; it was "
            "screened as written (letter case ignored)"
        )
    for other, screen in zip(others, screens, strict=False):
        hits = screen.value.matches if isinstance(screen, Ok) else []
        if isinstance(screen, Err):
            gaps.append(f"sanctions screen of {other} unavailable: {screen.message()}")
        mixer = mixer_list.find(other) if mixer_list is not None else None
        if not hits and mixer is None:
            continue
        notes += [n for n in _delisting_notes(hits, ctx.as_of) if n not in notes]
        if hits:
            detail = "; ".join(_match_text(m) for m in hits)
            flagged[other.lower()] = Flagged(
                address=other, flag="sanctioned", detail=detail, source=hits[0].source.cite()
            )
        elif mixer is not None and mixer_list is not None:
            flagged[other.lower()] = Flagged(
                address=other, flag="mixer", detail=_mixer_name(mixer), source=mixer_list.source.cite()
            )
        for path, edge in trace.paths_through([other]):
            item = flagged[other.lower()]
            links.append(
                Link(
                    path=path,
                    flag="sanctioned" if item.flag == "sanctioned" else "mixer",
                    flagged=other,
                    detail=f"{item.detail} ({item.source})",
                    transfers=edge.transfers,
                    also_mixer=mixer is not None,
                )
            )
    own_mixer = mixer_list.find(address) if mixer_list is not None else None
    risk = score_risk(
        RiskInputs(
            address=address,
            listed=[f"{_match_text(m)} ({m.source.cite()})" for m in matches],
            own_mixer=_mixer_name(own_mixer) if own_mixer is not None else None,
            links=links,
            caveats=notes,
            gaps=gaps,
        )
    )
    sources = sorted(
        {lst.source.cite() for lst in checked}
        | {m.source.cite() for m in matches}
        | {f.source for f in flagged.values()}
        | {s for e in [*trace.incoming, *trace.outgoing] for s in e.sources}
        | ({mixer_list.source.cite()} if mixer_list is not None else set())
    )
    return Ok(
        AddressRisk(
            address=address,
            as_of=ctx.as_of,
            risk=risk,
            matches=matches,
            lists_checked=checked,
            flagged=list(flagged.values()),
            trace=trace,
            mixer_list=mixer_list.source.cite() if mixer_list is not None else None,
            notes=notes,
            sources=sources,
        )
    )


async def _risk(args: TraceArgs, ctx: ToolContext) -> Result[AddressRisk]:
    return await assess(ctx, args.address, args.fan_out)


def summarize_risk(r: AddressRisk) -> str:
    head = (
        f"Risk indicator for {r.address} as of {r.as_of.isoformat()}: score {r.risk.score}/100, "
        f"band {r.risk.band} ({r.risk.band_label}). Screening result, not a legal determination."
    )
    lines = [f"- {reason}" for reason in r.risk.reasons]
    lines += [f"- path: {' -> '.join(p)}" for p in r.risk.paths]
    lists = [
        f"- {lst.name}: list of {lst.list_date.isoformat()}, {lst.stale_days} days old"
        + (" (STALE)" if lst.stale else "")
        for lst in r.lists_checked
    ]
    tail = "\n".join(["Lists checked:", *lists]) if lists else "No sanctions list could be checked."
    return fit_lines(head, lines, tail + "\nSources: " + "; ".join(r.sources))


address_risk = Tool(
    name="address_risk",
    description=(
        "Risk indicator 0-100 for an Ethereum address at the run's as-of date, with its reasoning chain: "
        "screens the address against the sanctions lists, traces funds two hops upstream, screens every "
        "counterparty and checks the known mixer contracts. Bands: 0-20 clean; 21-50 indirect link 3+ hops; "
        "51-80 two-hop link or mixer interaction; 81-100 sanctioned or one hop. A screening result, never "
        f"a legal finding. {QUOTE_RULE}"
    ),
    args=TraceArgs,
    fn=_risk,
    summarize=summarize_risk,
    timeout_s=60.0,
)

TOOLS: tuple[Tool, ...] = (trace_funds, mixer_check, address_risk)
