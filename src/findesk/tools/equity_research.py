"""Equity research tools: quarterly fundamentals, valuation ratios and index peers.

Rules:
- Thin: the fundamentals and peers tools call one ``DataRouter`` method with ``ctx.as_of``; the
  valuation tool reads the quote and the fundamentals (I/O here) and computes with
  ``analytics.valuation`` (maths there).
- Point in time: only quarters counted as reported at the as-of date are used (the data layer applies
  and states the lag), and the price is the last session's quote at the as-of date. Every summary names
  the quarters, dates and sources it used, and a ratio that cannot be computed says why.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from findesk.analytics.valuation import Valuation, valuation
from findesk.core.result import Err, Ok, Result
from findesk.data.models.fundamentals import IndexPeers, QuarterlyFundamentals
from findesk.tools.args import POINT_IN_TIME, QUOTE_RULE, SymbolArgs, Ticker, ToolArgs
from findesk.tools.base import Tool, ToolContext
from findesk.tools.summaries import compact, exact, fit_lines, money

DEFAULT_QUARTERS = 4
MAX_QUARTERS = 8
MAX_PEERS_SHOWN = 25


class FundamentalsArgs(ToolArgs):
    symbol: Ticker
    quarters: Annotated[
        int,
        Field(
            ge=1,
            le=MAX_QUARTERS,
            description=f"How many of the latest reported quarters (default {DEFAULT_QUARTERS}).",
        ),
    ] = DEFAULT_QUARTERS


async def _fundamentals(args: FundamentalsArgs, ctx: ToolContext) -> Result[QuarterlyFundamentals]:
    got = await ctx.router.quarterly_fundamentals(args.symbol, ctx.as_of)
    if isinstance(got, Err):
        return got
    return Ok(got.value.model_copy(update={"quarters": got.value.quarters[: args.quarters]}))


def _usd(value: float | None) -> str:
    return "n/a" if value is None else f"{exact(value)} USD"


def summarize_fundamentals(f: QuarterlyFundamentals) -> str:
    lines = [
        f"- quarter ended {q.quarter_end.isoformat()} "
        f"(counted as reported from {q.visible_from.isoformat()}): "
        f"revenue {_usd(q.total_revenue)}; net income {_usd(q.net_income)}; EBITDA {_usd(q.ebitda)}; "
        f"diluted EPS {money(q.diluted_eps)}; shares outstanding {compact(q.shares_outstanding)}"
        for q in f.quarters
    ]
    hidden = ""
    if f.hidden_quarters:
        hidden = f" {f.hidden_quarters} later quarter(s) in the file are not yet reported at the as-of date."
    head = f"{f.symbol} quarterly fundamentals, newest first ({f.visibility}).{hidden}"
    return fit_lines(head, lines, f"Source: {f.source.cite()}")


get_quarterly_fundamentals = Tool(
    name="get_quarterly_fundamentals",
    description=(
        "Quarterly income-statement and balance-sheet figures of an S&P 500 company (revenue, net income, "
        "EBITDA, diluted EPS, shares, debt, cash), only quarters counted as reported at the run's as-of "
        "date, newest first; each quarter says from when it counts as reported. Use get_xbrl_facts for the "
        f"company's own filed figures. {POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=FundamentalsArgs,
    fn=_fundamentals,
    summarize=summarize_fundamentals,
)


class ValuationReport(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    symbol: str
    valuation: Valuation
    price_source: str
    fundamentals_source: str
    visibility: str


async def _valuation(args: SymbolArgs, ctx: ToolContext) -> Result[ValuationReport]:
    quote, fundamentals = await asyncio.gather(
        ctx.router.quote(args.symbol, ctx.as_of), ctx.router.quarterly_fundamentals(args.symbol, ctx.as_of)
    )
    if isinstance(quote, Err):
        return quote
    if isinstance(fundamentals, Err):
        return fundamentals
    q, f = quote.value, fundamentals.value
    return Ok(
        ValuationReport(
            symbol=args.symbol,
            valuation=valuation(q.price, q.session_date, f.quarters),
            price_source=q.source.cite(),
            fundamentals_source=f.source.cite(),
            visibility=f.visibility,
        )
    )


def _ratio_line(name: str, value: float | None, method: str | None, reason: str | None) -> str:
    if value is None:
        return f"- {name}: {reason}"
    return f"- {name} {value:.2f} = {method}"


def summarize_valuation(v: ValuationReport) -> str:
    val = v.valuation
    lines = [_ratio_line(r.name, r.value, r.method, r.reason) for r in val.ratios]
    lines += [f"Note: {n}" for n in val.notes]
    head = (
        f"{v.symbol} valuation at the price {money(val.price)} of {val.price_date.isoformat()} "
        f"(quarters counted as reported: {v.visibility}):"
    )
    return fit_lines(head, lines, f"Sources: price {v.price_source}; figures {v.fundamentals_source}")


get_valuation_ratios = Tool(
    name="get_valuation_ratios",
    description=(
        "Valuation ratios of an S&P 500 company at the run's as-of date: P/E (price / trailing-twelve-month "
        "diluted EPS), EV/EBITDA and P/S, from the last session's price and the latest four reported "
        "quarters; each ratio states the figures and dates used, or why it is not available. "
        f"{POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=SymbolArgs,
    fn=_valuation,
    summarize=summarize_valuation,
)


async def _peers(args: SymbolArgs, ctx: ToolContext) -> Result[IndexPeers]:
    return await ctx.router.index_peers(args.symbol, ctx.as_of)


def summarize_peers(p: IndexPeers) -> str:
    shown = ", ".join(f"{x.symbol} ({x.name})" for x in p.peers[:MAX_PEERS_SHOWN])
    more = f" and {len(p.peers) - MAX_PEERS_SHOWN} more" if len(p.peers) > MAX_PEERS_SHOWN else ""
    listed = shown + more if p.peers else "none (no other member of this sub-industry)"
    return (
        f"{p.symbol} ({p.name}): GICS sector {p.sector}, sub-industry {p.sub_industry}. S&P 500 peers in the "
        f"same sub-industry per the constituents list of {p.list_date.isoformat()}: {listed}. "
        f"Source: {p.source.cite()}"
    )


get_peers = Tool(
    name="get_peers",
    description=(
        "Peers of an S&P 500 company: the other index members in its GICS sub-industry, from the latest "
        f"constituents list dated on or before the run's as-of date. {POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=SymbolArgs,
    fn=_peers,
    summarize=summarize_peers,
)


TOOLS: tuple[Tool, ...] = (get_quarterly_fundamentals, get_valuation_ratios, get_peers)
