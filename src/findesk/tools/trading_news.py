"""Trading desk news tools: insider transactions.

Rules:
- ``get_insider_transactions`` answers with the insider buys and sells (SEC Form 4) of a company over
  a window ending at the run's as-of date. No source of the transactions themselves exists yet (the
  offline snapshot holds no Form 4 contents and no live vendor is configured). What the data layer does
  know is the company's filing list (SEC submissions): the Form 4 filings filed in the window, each
  with its date and EDGAR link, are returned with ``detail = "filings_only"`` and buys, sells and net
  shares unknown (None). A company whose filing list holds no Form 4 at all is ``no_data`` with a
  one-line reason. Unknown is never reported as "no insider activity" (0 buys, 0 sells).
- Shaped for a vendor: the arguments and the result model (transactions, buys, sells, net shares)
  are what a Form 4 source fills; adding one changes ``_insider`` only.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.tools.args import POINT_IN_TIME, QUOTE_RULE, Ticker, ToolArgs
from findesk.tools.base import Tool, ToolContext

DEFAULT_DAYS = 90
MAX_FILINGS = 2_000  # the whole recent filing list of a busy company (NVDA: 580 Form 4s since 2019)


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


class Form4Filing(BaseModel):
    model_config = ConfigDict(extra="forbid")

    filed: date
    accession_number: str | None = None
    url: str | None = None


class InsiderTransactions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    symbol: str
    since: date
    until: date
    # "transactions": what each Form 4 reports; "filings_only": only that Form 4s were filed, and when
    detail: Literal["transactions", "filings_only"]
    filings: list[Form4Filing] = Field(default_factory=list)  # newest first
    transactions: list[InsiderTransaction] = Field(default_factory=list)
    buys: int | None = None  # None: unknown (the filings' contents are not in this data)
    sells: int | None = None
    net_shares: float | None = None  # shares bought minus shares sold in open-market trades
    source: str | None = None


def no_source_reason(mode: str, symbol: str) -> str:
    where = (
        f"the offline snapshot holds no insider-transaction (SEC Form 4) filing of {symbol}"
        if mode == "snapshot"
        else "no insider-transaction (SEC Form 4) vendor is configured"
    )
    return f"{where}: insider buying and selling for {symbol} is unknown, not zero"


async def _insider(args: InsiderArgs, ctx: ToolContext) -> Result[InsiderTransactions]:
    # a Form 4 transactions vendor plugs in here (ctx.router.insider_transactions(symbol, since, as_of));
    # until then the filing list says how many Form 4s were filed in the window, not what they report
    since = ctx.as_of - timedelta(days=args.days)
    listed = await ctx.router.filings(args.symbol, ctx.as_of, frozenset({"4"}), MAX_FILINGS)
    known = listed.value if isinstance(listed, Ok) else []
    if not known:  # no Form 4 in the company's filing list at all: no source, not "no insider activity"
        return Err(ErrorCode.NO_DATA, no_source_reason(ctx.context.mode, args.symbol))
    window = [f for f in known if since <= f.filing_date <= ctx.as_of]
    window.sort(key=lambda f: f.filing_date, reverse=True)
    return Ok(
        InsiderTransactions(
            symbol=args.symbol,
            since=since,
            until=ctx.as_of,
            detail="filings_only",
            filings=[
                Form4Filing(filed=f.filing_date, accession_number=f.accession_number, url=f.url)
                for f in window
            ],
            source=known[0].source.cite(),
        )
    )


def summarize_insider(found: InsiderTransactions) -> str:
    span = f"{found.since.isoformat()}..{found.until.isoformat()}"
    if found.detail == "filings_only":
        dates = ", ".join(f.filed.isoformat() for f in found.filings[:10]) or "none"
        return (
            f"{found.symbol}: {len(found.filings)} insider-transaction report(s) (SEC Form 4) filed {span} "
            f"(filed: {dates}). Their contents are not in this data: insider buys, sells and net shares are "
            f"unknown, not zero. Source: {found.source or 'SEC filing list'}"
        )
    net = "n/a" if found.net_shares is None else f"{found.net_shares:+,.0f}"
    return (
        f"{found.symbol} insider transactions filed {span}: {found.buys} buy(s), {found.sells} sell(s), "
        f"net {net} shares ({len(found.transactions)} transaction(s) in all)."
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
