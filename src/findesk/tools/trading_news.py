"""Trading desk news tools: insider transactions.

Rules:
- ``get_insider_transactions`` answers with the insider buys and sells (SEC Form 4) of a company over
  a window ending at the run's as-of date. No source for them exists yet: the offline snapshot holds
  no Form 4 transaction tables and no live vendor is configured, so it returns ``no_data`` with a
  one-line reason. Unknown is never reported as "no insider activity" (0 buys, 0 sells).
- Shaped for a vendor: the arguments and the result model (transactions, buys, sells, net shares)
  are what a Form 4 source fills; adding one changes ``_insider`` only.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from findesk.core.result import Err, ErrorCode, Result
from findesk.tools.args import POINT_IN_TIME, QUOTE_RULE, Ticker, ToolArgs
from findesk.tools.base import Tool, ToolContext

DEFAULT_DAYS = 90


class InsiderArgs(ToolArgs):
    symbol: Ticker
    days: Annotated[
        int, Field(ge=1, le=365, description="Transactions filed in this many days up to the as-of date.")
    ] = DEFAULT_DAYS


class InsiderTransaction(BaseModel):
    model_config = ConfigDict(extra="forbid")

    filed: date
    traded: date | None = None
    insider: str
    role: str | None = None  # "CEO", "Director", "10% owner"
    kind: Literal["buy", "sell", "other"]  # Form 4 code P is a buy, S a sell; grants and exercises other
    shares: float
    price: float | None = None
    source: str  # the filing's URL or accession number


class InsiderTransactions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    symbol: str
    since: date
    until: date
    transactions: list[InsiderTransaction] = Field(default_factory=list)
    buys: int
    sells: int
    net_shares: float  # shares bought minus shares sold in open-market trades


def no_source_reason(mode: str, symbol: str) -> str:
    where = (
        "the offline snapshot holds no insider-transaction (SEC Form 4) data"
        if mode == "snapshot"
        else "no insider-transaction (SEC Form 4) vendor is configured"
    )
    return f"{where}: insider buying and selling for {symbol} is unknown, not zero"


async def _insider(args: InsiderArgs, ctx: ToolContext) -> Result[InsiderTransactions]:
    # a Form 4 vendor plugs in here: ctx.router.insider_transactions(symbol, since, ctx.as_of) over
    # since = ctx.as_of - timedelta(days=args.days), filtered to filings on or before ctx.as_of
    return Err(ErrorCode.NO_DATA, no_source_reason(ctx.context.mode, args.symbol))


def summarize_insider(found: InsiderTransactions) -> str:
    return (
        f"{found.symbol} insider transactions filed {found.since.isoformat()}..{found.until.isoformat()}: "
        f"{found.buys} buy(s), {found.sells} sell(s), net {found.net_shares:+,.0f} shares "
        f"({len(found.transactions)} transaction(s) in all)."
    )


get_insider_transactions = Tool(
    name="get_insider_transactions",
    description=(
        "Insider buys and sells (SEC Form 4) of a US company filed in the days up to the run's as-of date: "
        "each transaction's insider, role, shares and price, and the count of buys and sells with the net "
        "shares. Answers no_data when no insider-transaction source is available: unknown, never zero. "
        f"{POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=InsiderArgs,
    fn=_insider,
    summarize=summarize_insider,
)

TOOLS: tuple[Tool, ...] = (get_insider_transactions,)
