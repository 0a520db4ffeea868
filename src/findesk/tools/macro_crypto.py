"""Macro, crypto and compliance tools: FRED series, on-chain transactions, tokens, DeFi TVL,
sanctions screening.

Rules:
- Thin: each tool calls one ``DataRouter`` method with ``ctx.as_of`` and returns its ``Result``;
  the macro tool's only shaping is a default start date so a daily series since 1962 does not
  flood the audit log.
- Every summary states how current its figures are: the macro series' latest observation and the
  release lag applied, a token price's own timestamp, a sanctions list's date and staleness.
- A sanctions screen with no match says which lists were checked and how old they are: "no match"
  on a stale list is not a clearance.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated

from pydantic import Field, StringConstraints

from findesk.core.result import Result
from findesk.data.models import MacroSeries, OnchainTx, ProtocolTVL, SanctionsScreen, TokenInfo
from findesk.tools.args import POINT_IN_TIME, QUOTE_RULE, ToolArgs
from findesk.tools.base import Tool, ToolContext
from findesk.tools.summaries import cited, compact, exact, fit_lines, money, sources_line, when

DEFAULT_MACRO_YEARS = 5
RECENT_POINTS = 6


class MacroArgs(ToolArgs):
    series_id: Annotated[
        str,
        StringConstraints(strip_whitespace=True, to_upper=True, pattern=r"^[A-Za-z0-9_]{1,40}$"),
        Field(
            description=(
                "FRED series id, e.g. DGS10 (10-year Treasury yield, %), DGS2, T10Y2Y, CPIAUCSL (CPI "
                "index), UNRATE (unemployment rate, %), GDP, FEDFUNDS, VIXCLS."
            )
        ),
    ]
    start: Annotated[
        date | None,
        Field(description=f"First observation date YYYY-MM-DD (default: {DEFAULT_MACRO_YEARS} years back)."),
    ] = None


async def _macro(args: MacroArgs, ctx: ToolContext) -> Result[MacroSeries]:
    start = args.start or ctx.as_of - timedelta(days=365 * DEFAULT_MACRO_YEARS + 1)
    return await ctx.router.macro(args.series_id, ctx.as_of, start)


def summarize_macro(m: MacroSeries) -> str:
    title = f"{m.series_id}" + (f" — {m.title}" if m.title else "") + (f" ({m.units})" if m.units else "")
    freq = f", frequency {m.frequency}" if m.frequency else ""
    known = [o for o in m.observations if o.value is not None]
    if not known:
        return f"{title}{freq}: no observations with a value. Source: {m.source.cite()}"
    latest = known[-1]
    assert latest.value is not None  # narrowed by ``known``
    lines = [f"{title}{freq}: latest {exact(latest.value)} for {latest.date.isoformat()}"]
    recent = m.observations[-RECENT_POINTS:]
    shown = ", ".join(
        f"{o.date.isoformat()} {'missing' if o.value is None else exact(o.value)}" for o in recent
    )
    lines.append(f"recent observations: {shown}")
    cutoff = latest.date - timedelta(days=365)
    year_ago = [o for o in known if o.date <= cutoff]
    if year_ago and year_ago[-1].value is not None:
        lines.append(f"a year earlier: {year_ago[-1].date.isoformat()} {exact(year_ago[-1].value)}")
    first = m.observations[0].date.isoformat()
    lines.append(f"{len(m.observations)} observations from {first}; dates are observation periods")
    if m.release_lag_days:
        lines.append(
            f"release lag: an observation counts as published {m.release_lag_days} days after its period "
            "date, so later periods are not yet known at the as-of date"
        )
    else:
        lines.append("no release lag: each observation is known on its own date")
    return "\n".join(lines) + f"\nSource: {cited(m.source)}"


get_macro_series = Tool(
    name="get_macro_series",
    description=(
        "A FRED macroeconomic series as it was known at the run's as-of date (publication lags applied to "
        "monthly/quarterly data): title, units, frequency, the latest value and its date, recent "
        "observations and the value a year earlier. Units are FRED's (yields and rates in percent, CPI "
        "as an index level, GDP in billions of USD). Use it for rates, inflation, employment, growth. "
        f"{QUOTE_RULE}"
    ),
    args=MacroArgs,
    fn=_macro,
    summarize=summarize_macro,
)


Address = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=3, max_length=100),
    Field(description="A blockchain address, e.g. an Ethereum 0x… address (42 characters)."),
]


class OnchainArgs(ToolArgs):
    address: Address
    limit: Annotated[int, Field(ge=1, le=100, description="At most this many transactions (default 10).")] = (
        10
    )


async def _onchain(args: OnchainArgs, ctx: ToolContext) -> Result[list[OnchainTx]]:
    return await ctx.router.onchain_txs(args.address, ctx.as_of, args.limit)


def _tx_line(t: OnchainTx) -> str:
    failed = " FAILED" if t.is_error else ""
    amount = f"{t.value:,f}".rstrip("0").rstrip(".") if t.value else "0"
    target = t.to_address or "(contract creation)"
    moved = f"{t.from_address} -> {target} {amount} {t.asset}"
    return f"- {when(t.timestamp)} {t.kind}{failed}: {moved} tx {t.hash}"


def summarize_txs(txs: list[OnchainTx]) -> str:
    if not txs:
        return "No transactions recorded for this address."
    head = f"{len(txs)} {txs[0].chain} transactions, newest first (amounts in whole units of the asset):"
    return fit_lines(head, [_tx_line(t) for t in txs], sources_line(t.source for t in txs))


get_onchain_txs = Tool(
    name="get_onchain_txs",
    description=(
        "On-chain transactions of a blockchain address (Ethereum: normal, internal and token transfers) "
        "up to the run's as-of date, newest first: time (UTC), kind, from and to addresses, amount in whole "
        "units of the asset (ETH, USDC, ..., not wei), asset and transaction hash. Use it to trace flows; "
        f"screen counterparties with screen_sanctions. {QUOTE_RULE}"
    ),
    args=OnchainArgs,
    fn=_onchain,
    summarize=summarize_txs,
)


class TokenArgs(ToolArgs):
    token_id: Annotated[
        str,
        StringConstraints(strip_whitespace=True, min_length=1, max_length=80),
        Field(description="CoinGecko id or ticker symbol, e.g. bitcoin, ethereum, ETH, USDC."),
    ]


async def _token(args: TokenArgs, ctx: ToolContext) -> Result[TokenInfo]:
    return await ctx.router.token(args.token_id, ctx.as_of)


def summarize_token(t: TokenInfo) -> str:
    dated = f" as of {when(t.price_as_of)}" if t.price_as_of else " (price time unknown)"
    lines = [f"{t.name} ({t.symbol.upper()}, id {t.id}): price {money(t.price_usd)} USD{dated}"]
    if t.market_cap_usd is not None:
        lines.append(f"market cap {compact(t.market_cap_usd)} USD")
    if t.volume_24h_usd is not None:
        lines.append(f"24h volume {compact(t.volume_24h_usd)} USD")
    if t.contracts:
        lines.append("contracts: " + ", ".join(f"{k} {v}" for k, v in sorted(t.contracts.items())))
    return "; ".join(lines) + f". Source: {cited(t.source)}"


get_token = Tool(
    name="get_token",
    description=(
        "A crypto token's price in USD with the time that price is from, market cap, 24h trading volume "
        "and contract addresses per chain. The price may be older than the as-of date: state its "
        f"timestamp when you quote it. {POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=TokenArgs,
    fn=_token,
    summarize=summarize_token,
)


class TvlArgs(ToolArgs):
    protocol: Annotated[
        str,
        StringConstraints(strip_whitespace=True, min_length=1, max_length=80),
        Field(description="DefiLlama protocol slug, e.g. aave, lido, uniswap."),
    ]


async def _tvl(args: TvlArgs, ctx: ToolContext) -> Result[ProtocolTVL]:
    return await ctx.router.tvl(args.protocol, ctx.as_of)


def summarize_tvl(p: ProtocolTVL) -> str:
    chains = sorted(p.chain_tvls.items(), key=lambda kv: (-kv[1], kv[0]))[:8]
    by_chain = "; by chain: " + ", ".join(f"{c} {compact(v)}" for c, v in chains) if chains else ""
    return (
        f"{p.protocol}: total value locked {compact(p.tvl_usd)} USD ({exact(round(p.tvl_usd))}) as of "
        f"{when(p.as_of)}{by_chain}. Source: {p.source.cite()}"
    )


get_protocol_tvl = Tool(
    name="get_protocol_tvl",
    description=(
        "Total value locked (USD) in a DeFi protocol, with its date and the split by chain. Use it to size "
        f"a protocol. {POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=TvlArgs,
    fn=_tvl,
    summarize=summarize_tvl,
)


class SanctionsArgs(ToolArgs):
    query: Annotated[
        str,
        StringConstraints(strip_whitespace=True, min_length=2, max_length=200),
        Field(description="A crypto address (0x…) or a person's or entity's name."),
    ]


async def _sanctions(args: SanctionsArgs, ctx: ToolContext) -> Result[SanctionsScreen]:
    return await ctx.router.sanctions(args.query, ctx.as_of)


def summarize_sanctions(s: SanctionsScreen) -> str:
    checked = [
        f"- {lst.name}: list of {lst.list_date.isoformat()}, {lst.stale_days} days before the as-of date"
        + (" (STALE)" if lst.stale else "")
        + f" — {lst.source.cite()}"
        for lst in s.lists_checked
    ]
    if not s.matches:
        head = f"NO MATCH for {s.query!r} on the lists checked (not a clearance if a list is stale):"
        return fit_lines(head, checked)
    lines = []
    for m in s.matches:
        details = [f"entity {m.entity}" if m.entity else None, f"program {m.program}" if m.program else None]
        details += [f"SDN id {m.entry_id}" if m.entry_id else None, f"asset {m.asset}" if m.asset else None]
        shown = ", ".join(d for d in details if d)
        lines.append(
            f"- {m.list_name} (list of {m.list_date.isoformat()}): matched {m.matched_value}"
            + (f"; {shown}" if shown else "")
            + f" — {m.source.cite()}"
        )
    entries = "entry" if len(s.matches) == 1 else "entries"
    head = f"MATCH: {s.query!r} is on {len(s.matches)} sanctions list {entries}:"
    return fit_lines(head, lines, "\n".join(["Lists checked:", *checked]))


screen_sanctions = Tool(
    name="screen_sanctions",
    description=(
        "Screen a crypto address or a name against the US sanctions lists (OFAC SDN and sanctioned "
        "digital-currency addresses) known at the run's as-of date. Returns every match with its list, list "
        "date, SDN entity, program and entry id, and the lists checked with their dates and staleness. "
        "A name matches when it is part of a listed name or a.k.a., or all its words appear in it; spelling "
        "variants are not matched, so a no-match is not a clearance, and a stale list may miss recent "
        f"designations. {QUOTE_RULE}"
    ),
    args=SanctionsArgs,
    fn=_sanctions,
    summarize=summarize_sanctions,
)

TOOLS: tuple[Tool, ...] = (get_macro_series, get_onchain_txs, get_token, get_protocol_tvl, screen_sanctions)
