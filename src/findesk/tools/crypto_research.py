"""Crypto research tools beyond ``macro_crypto``: a token's dated prices, an address's ETH balance and
a token's large holders.

Rules:
- Thin: each tool calls one ``DataRouter`` method with ``ctx.as_of`` and returns its ``Result``.
- Every price keeps its own moment and currency (a spot quote in ETH stays in ETH); the summary
  gives both, and the snapshot's few recorded points are never joined into a line.
- A balance is the balance when it was read: the summary gives that time, and the full exact amount.
- Large holders come from Dune, which is live only and needs a key; offline the answer is an honest
  ``no_data`` that says so, never a list from memory.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints

from findesk.core.result import Result
from findesk.data.models.onchain_risk import EthBalance, TokenHolders, TokenPriceHistory
from findesk.tools.args import POINT_IN_TIME, QUOTE_RULE, ToolArgs
from findesk.tools.base import Tool, ToolContext
from findesk.tools.compliance import AddressArgs
from findesk.tools.macro_crypto import TokenArgs
from findesk.tools.summaries import cited, exact, fit_lines, when


async def _prices(args: TokenArgs, ctx: ToolContext) -> Result[TokenPriceHistory]:
    return await ctx.router.token_prices(args.token_id, ctx.as_of)


def summarize_prices(h: TokenPriceHistory) -> str:
    head = f"{h.token_id}: {len(h.points)} recorded price points up to the as-of date, oldest first:"
    lines = [
        f"- {when(p.at)}: {exact(p.price)} {p.currency.upper()} ({p.kind}) — {cited(p.source)}"
        for p in h.points
    ]
    return fit_lines(head, lines)


get_token_prices = Tool(
    name="get_token_prices",
    description=(
        "A crypto token's dated price points (CoinGecko daily history, spot quotes, DefiLlama prices), each "
        "with its own time and currency (some spot quotes are in ETH, not USD). Use it for price history "
        f"and for the time a price is from. {POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=TokenArgs,
    fn=_prices,
    summarize=summarize_prices,
)


async def _balance(args: AddressArgs, ctx: ToolContext) -> Result[EthBalance]:
    return await ctx.router.eth_balance(args.address, ctx.as_of)


def summarize_balance(b: EthBalance) -> str:
    amount = f"{b.balance_eth:f}"
    return f"{b.address}: {amount} ETH, as read {when(b.observed_at)}. Source: {cited(b.source)}"


get_eth_balance = Tool(
    name="get_eth_balance",
    description=(
        "The ETH balance of an Ethereum address, exact, with the time it was read (the newest reading on or "
        f"before the run's as-of date; it may be older: say when). {POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=AddressArgs,
    fn=_balance,
    summarize=summarize_balance,
)


class HoldersArgs(ToolArgs):
    token: Annotated[
        str,
        StringConstraints(strip_whitespace=True, min_length=1, max_length=80),
        Field(description="The token's contract address (0x…) or its symbol, e.g. USDC."),
    ]
    limit: Annotated[int, Field(ge=1, le=100, description="At most this many holders (default 10).")] = 10


async def _holders(args: HoldersArgs, ctx: ToolContext) -> Result[TokenHolders]:
    return await ctx.router.large_holders(args.token, ctx.as_of, args.limit)


def summarize_holders(h: TokenHolders) -> str:
    head = f"Largest holders of {h.token} as of {when(h.observed_at)}:"
    lines = [f"- {x.address}: {x.balance:f}" + (f" ({x.label})" if x.label else "") for x in h.holders] or [
        "- none returned"
    ]
    return fit_lines(head, lines, f"Source: {cited(h.source)}")


get_large_holders = Tool(
    name="get_large_holders",
    description=(
        "The largest holders of a token (Dune query; live only, needs a Dune API key). Offline it answers "
        f"no_data: then say holder data is unavailable. {QUOTE_RULE}"
    ),
    args=HoldersArgs,
    fn=_holders,
    summarize=summarize_holders,
)

TOOLS: tuple[Tool, ...] = (get_token_prices, get_eth_balance, get_large_holders)
