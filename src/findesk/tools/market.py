"""Market tools: company identity, the last session's quote, daily price history.

Rules:
- Thin: each tool shapes its arguments, calls one ``DataRouter`` method with ``ctx.as_of`` (the volume
  check two: bars and the quote) and returns the router's ``Result``; summaries only format the value.
- Every summary names the session date(s), the price basis (as traded vs adjusted) and the source,
  so each figure a model quotes can be traced back.
- Volume anomaly computes with ``analytics.volume`` over the router's daily bars (I/O here, maths there);
  the last session's volume is the quote's own figure, so one session never shows two volumes.
- Price history sends a summary (first/last, range, return, volume), never every bar; the bars
  stay in the full result for the audit log.
"""

from __future__ import annotations

import asyncio
from datetime import date, timedelta
from typing import Annotated, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from findesk.analytics.volume import (
    DEFAULT_THRESHOLD,
    DEFAULT_WINDOW,
    VolumeAnomaly,
    on_quote_volume,
    volume_anomaly,
)
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import Company, PriceBars, Quote, Source
from findesk.tools.args import POINT_IN_TIME, QUOTE_RULE, SymbolArgs, Ticker, ToolArgs
from findesk.tools.base import Tool, ToolContext
from findesk.tools.summaries import cited, compact, exact, money

DEFAULT_LOOKBACK_DAYS = 90
MAX_LOOKBACK_DAYS = 1_300


async def _company(args: SymbolArgs, ctx: ToolContext) -> Result[Company]:
    return await ctx.router.company(args.symbol, ctx.as_of)


def summarize_company(c: Company) -> str:
    parts = [
        f"{c.ticker}: {c.name or 'name unknown'}",
        f"CIK {c.cik}" if c.cik is not None else "CIK unknown",
        f"exchange {c.exchange or 'unknown'}",
        f"sector {c.sector or 'unknown'}",
        f"industry {c.industry or 'unknown'}",
        "ETF" if c.is_etf else "not an ETF",
    ]
    return "; ".join(parts) + f". Source: {cited(c.source)}"


get_company = Tool(
    name="get_company",
    description=(
        "Identify a US-listed company or ETF from its ticker: legal name, SEC CIK number, listing "
        "exchange, sector and industry, and whether it is an ETF. Use it first when you need to know "
        "what a ticker is, or need the CIK for SEC filings. Tickers with a dot (VOD.L) are non-US "
        f"listings and out of scope. {QUOTE_RULE}"
    ),
    args=SymbolArgs,
    fn=_company,
    summarize=summarize_company,
)


async def _quote(args: SymbolArgs, ctx: ToolContext) -> Result[Quote]:
    return await ctx.router.quote(args.symbol, ctx.as_of)


def summarize_quote(q: Quote) -> str:
    lines = [f"{q.symbol} last price {money(q.price)} {q.currency} (session {q.session_date.isoformat()}"]
    basis = {
        "as_traded": "as traded",
        "adjusted": "split/dividend-adjusted level, NOT the as-traded close",
        "index": "index level",
    }[q.basis]
    lines[0] += f", end-of-day/delayed, {basis})" if q.delayed else f", {basis})"
    if q.change is not None:
        pct = f" ({q.change_pct:+.2f}%)" if q.change_pct is not None else ""
        lines.append(f"change {q.change:+,.2f}{pct} vs previous close {money(q.previous_close)}")
    if q.open is not None or q.day_low is not None:
        lines.append(f"open {money(q.open)}, day range {money(q.day_low)}-{money(q.day_high)}")
    if q.volume is not None:
        lines.append(f"volume {q.volume:,} shares")
    if q.market_cap is not None:
        dated = f" as of {q.market_cap_date.isoformat()}" if q.market_cap_date else ""
        lines.append(f"market cap {compact(q.market_cap)} {q.currency}{dated}")
    r = q.range_52w
    if r is not None:
        split = ", split-adjusted" if r.split_adjusted else ""
        lines.append(
            f"52-week closing range{split} {money(r.low)} ({r.low_date.isoformat()}) to {money(r.high)} "
            f"({r.high_date.isoformat()}) over {r.sessions} sessions "
            f"{r.start.isoformat()}..{r.end.isoformat()}"
            + ("" if r.complete else " (data does not cover the full 52 weeks)")
        )
    text = "; ".join(lines) + f". Source: {cited(q.source)}"
    if r is not None:
        text += f"; 52-week range: {r.source.cite()}" + "".join(f"\nNote: {n}" for n in r.notes)
    for note in q.notes:
        text += f"\nNote: {note}"
    return text


get_quote = Tool(
    name="get_quote",
    description=(
        "The last trading session's quote for a US ticker at the run's as-of date: as-traded close "
        "(USD), change vs the previous close (USD and percent), open, day range, volume (shares) and "
        "market cap, with the session date and source. End-of-day/delayed, never real-time. Use it for "
        f"the current price or market cap; use get_price_history for performance over time. {POINT_IN_TIME} "
        f"{QUOTE_RULE}"
    ),
    args=SymbolArgs,
    fn=_quote,
    summarize=summarize_quote,
)


class PriceHistoryArgs(ToolArgs):
    symbol: Ticker
    lookback_days: Annotated[
        int | None,
        Field(
            ge=1,
            le=MAX_LOOKBACK_DAYS,
            description=(
                f"Calendar days back from `end` (default {DEFAULT_LOOKBACK_DAYS}); "
                "do not combine with `start`."
            ),
        ),
    ] = None
    start: Annotated[date | None, Field(description="First date YYYY-MM-DD (instead of lookback_days).")] = (
        None
    )
    end: Annotated[
        date | None,
        Field(description="Last date YYYY-MM-DD; default and maximum: the run's as-of date."),
    ] = None

    @model_validator(mode="after")
    def _one_window(self) -> Self:
        if self.start is not None and self.lookback_days is not None:
            raise ValueError("give either lookback_days or start (with an optional end), not both")
        return self


async def _price_history(args: PriceHistoryArgs, ctx: ToolContext) -> Result[PriceBars]:
    # A later end cannot show anything new (the router stops at the as-of date), but anchoring
    # lookback_days on it would silently shrink the window.
    end = min(args.end or ctx.as_of, ctx.as_of)
    start = args.start or end - timedelta(days=args.lookback_days or DEFAULT_LOOKBACK_DAYS)
    return await ctx.router.bars(args.symbol, start, end, ctx.as_of)


def summarize_bars(b: PriceBars) -> str:
    basis = (
        "split- and dividend-adjusted closes (compare returns, not price levels, with as-traded quotes)"
        if b.adjusted
        else "as-traded closes"
    )
    if not b.bars:
        return f"{b.symbol}: no daily bars between {b.start} and {b.end}. Source: {b.source.cite()}"
    first, last = b.bars[0], b.bars[-1]
    low = min(b.bars, key=lambda bar: bar.close)
    high = max(b.bars, key=lambda bar: bar.close)
    volumes = [bar.volume for bar in b.bars if bar.volume is not None]
    lines = [
        f"{b.symbol} daily bars {first.date.isoformat()} to {last.date.isoformat()}: {len(b.bars)} sessions, "
        f"{basis}.",
        f"first close {money(first.close)} on {first.date.isoformat()}; "
        f"last close {money(last.close)} on {last.date.isoformat()}",
        f"lowest close {money(low.close)} on {low.date.isoformat()}; "
        f"highest close {money(high.close)} on {high.date.isoformat()}",
    ]
    if first.close:
        change = (last.close / first.close - 1) * 100
        lines.append(f"total return over the window {change:+.2f}% (first to last close)")
    if volumes:
        lines.append(f"average daily volume {exact(round(sum(volumes) / len(volumes)))} shares")
    return "\n".join(lines) + f"\nSource: {cited(b.source)}"


get_price_history = Tool(
    name="get_price_history",
    description=(
        "Daily price history of a US stock or ETF (e.g. SPY for the S&P 500) over a window ending at the "
        f"run's as-of date: pass lookback_days (calendar days, default {DEFAULT_LOOKBACK_DAYS}, max "
        f"{MAX_LOOKBACK_DAYS:,}) or start/end dates. Returns the first and last close with dates, the "
        "lowest and highest close, total return in percent, average daily volume in shares and the number "
        "of sessions; prices are usually split/dividend-adjusted (the summary says which). Use it for "
        f"performance and ranges; use get_quote for the latest as-traded price. {QUOTE_RULE}"
    ),
    args=PriceHistoryArgs,
    fn=_price_history,
    summarize=summarize_bars,
)

# Calendar days fetched for a 30-session baseline: holidays and weekends need the margin.
VOLUME_LOOKBACK_DAYS = 70


class VolumeCheck(BaseModel):
    model_config = ConfigDict(frozen=True)

    symbol: str
    anomaly: VolumeAnomaly
    source: Source


async def _volume_anomaly(args: SymbolArgs, ctx: ToolContext) -> Result[VolumeCheck]:
    start = ctx.as_of - timedelta(days=VOLUME_LOOKBACK_DAYS)
    got, quote = await asyncio.gather(
        ctx.router.bars(args.symbol, start, ctx.as_of, ctx.as_of), ctx.router.quote(args.symbol, ctx.as_of)
    )
    if isinstance(got, Err):
        return got
    bars, note = got.value.bars, None
    # One session, one volume: the quote's figure for its session wins over the bars' feed.
    if isinstance(quote, Ok) and quote.value.volume is not None:
        bars, note = on_quote_volume(bars, quote.value.session_date, quote.value.volume)
    anomaly = volume_anomaly(bars, window=DEFAULT_WINDOW, threshold=DEFAULT_THRESHOLD)
    if anomaly is None:
        return Err(
            ErrorCode.NO_DATA,
            f"too little volume history for {args.symbol} before {ctx.as_of.isoformat()} to judge an anomaly "
            f"({len(got.value.bars)} sessions)",
        )
    if note is not None:
        anomaly = anomaly.model_copy(update={"note": f"{note} (quote: {quote_source(quote)})"})
    return Ok(VolumeCheck(symbol=got.value.symbol, anomaly=anomaly, source=got.value.source))


def quote_source(quote: Result[Quote]) -> str:
    return quote.value.source.cite() if isinstance(quote, Ok) else "none"


def summarize_volume(v: VolumeCheck) -> str:
    a = v.anomaly
    z = f"z-score {a.z_score:+.2f}" if a.z_score is not None else "z-score n/a (flat baseline)"
    ratio = f", {a.ratio:.2f}x the baseline mean" if a.ratio is not None else ""
    verdict = "UNUSUAL" if a.unusual else "within the normal range"
    return (
        f"{v.symbol} volume on {a.session_date.isoformat()}: {exact(a.volume)} shares vs a mean of "
        f"{exact(round(a.baseline_mean))} (stdev {exact(round(a.baseline_stdev))}) over the prior "
        f"{a.baseline_sessions} sessions {a.baseline_start.isoformat()}..{a.baseline_end.isoformat()}: "
        f"{z}{ratio}; {verdict} (|z| >= {a.threshold:g} is unusual). Source: {v.source.cite()}"
        + (f"\nNote: {a.note}" if a.note else "")
    )


get_volume_anomaly = Tool(
    name="get_volume_anomaly",
    description=(
        "Whether a US ticker's trading volume in the last session at the run's as-of date was unusual: that "
        f"session's volume against the prior {DEFAULT_WINDOW} sessions (mean, standard deviation, z-score, "
        f"ratio to the mean; |z| >= {DEFAULT_THRESHOLD:g} is unusual). Use it to tell whether social chatter "
        f"coincides with real trading activity. {POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=SymbolArgs,
    fn=_volume_anomaly,
    summarize=summarize_volume,
)

TOOLS: tuple[Tool, ...] = (get_company, get_quote, get_price_history, get_volume_anomaly)
