"""Calculator tools: return statistics, correlation and a normalized price chart of named assets.

Rules:
- Thin over ``analytics.risk_metrics``: the tools fetch dated values through the ``DataRouter`` (I/O
  here) and compute there (maths there); every result names its window, basis and sources.
- An asset is named as asked and resolved by one rule (``resolve_asset``): an index alias (^GSPC, SPX,
  ^VIX) reads the index level from FRED (SP500, VIXCLS), since the price files hold no index bars a
  ticker can name; ``FRED:<ID>`` is a FRED series; a crypto name (BTC, bitcoin, ETH, ``CRYPTO:<id>``)
  reads the token's daily USD prices (``DataRouter.token_prices``), and without at least two of them in
  the window it is ``no_data`` naming what the data does hold; anything else is a US ticker (stock or
  ETF) checked by the router. Nothing is substituted for a missing asset.
- Prices and index levels are compared by returns; rate series (yields, spreads) by their changes.
  Two series are paired on the dates both have, before any change is computed.
- The risk-free rate of a Sharpe ratio is the latest DGS3MO, else FEDFUNDS, value known at the end of
  the window (release lag applied by the router); with neither, 0 %, and the result says which.
- A condition (``DGS10>4.5``) starts the correlation window at the latest crossing at or before the
  as-of date (``risk_metrics.latest_crossing``); the window then runs ``window_days`` from there,
  never past the as-of date.
- Point in time twice: the router returns nothing after the as-of date, and a value dated after it is
  dropped here as well, so a vendor's mistake cannot reach a statistic.
- The chart is drawn off the event loop with matplotlib's Agg canvas (no global pyplot state).
"""

from __future__ import annotations

import asyncio
import base64
import io
from dataclasses import replace
from datetime import date, timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from findesk.analytics.risk_metrics import (
    MIN_POINTS,
    VOL_BASIS,
    Drawdown,
    Point,
    annualized_volatility_pct,
    changes,
    clean,
    correlation,
    latest_crossing,
    max_drawdown,
    paired,
    parse_condition,
    returns,
    rolling_correlation,
    sharpe_ratio,
    total_return_pct,
)
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models.market import Quote
from findesk.data.router import DO_NOT_ESTIMATE
from findesk.tools.args import POINT_IN_TIME, QUOTE_RULE, ToolArgs
from findesk.tools.base import Tool, ToolContext
from findesk.tools.summaries import money

DEFAULT_LOOKBACK_DAYS = 90
MAX_LOOKBACK_DAYS = 1_300
ADJUSTED_NOTE = "split/dividend-adjusted closes"
CONDITION_HISTORY_DAYS = 365 * 5  # how far back a condition's crossing is looked for
ROLLING_POINTS = 20  # paired changes per rolling correlation
MAX_CHART_ASSETS = 4
RISK_FREE_SERIES = ("DGS3MO", "FEDFUNDS")

INDEX_ALIASES = {"^GSPC": "SP500", "^SPX": "SP500", "SPX": "SP500", "GSPC": "SP500", "^VIX": "VIXCLS"}
INDEX_NAMES = {"SP500": "^GSPC", "VIXCLS": "^VIX"}  # one name per index, so two reports compare
# FRED series that are prices or index levels (compared by returns); other series are rates
LEVEL_SERIES = frozenset({"SP500", "VIXCLS", "DCOILWTICO", "DCOILBRENTEU", "DTWEXBGS", "NASDAQCOM", "DJIA"})
CRYPTO_NAMES = frozenset(
    {
        "BTC",
        "BITCOIN",
        "BTC-USD",
        "XBT",
        "ETH",
        "ETHEREUM",
        "ETH-USD",
        "SOL",
        "SOLANA",
        "DOGE",
        "USDT",
        "USDC",
    }
)

_TOKEN_SPELLINGS = {"xbt": "btc"}  # an exchange's name for a coin -> the symbol the token data knows

AssetName = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=40),
    Field(
        description=(
            "A US ticker or ETF (SPY, XLK, NVDA), an index (^GSPC or SPX for the S&P 500, ^VIX), a FRED "
            "series as FRED:<ID> (FRED:DGS10), or a crypto asset (BTC, ETH)."
        )
    ),
]


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Asset(Model):
    name: str  # as asked, upper-cased
    kind: Literal["ticker", "index", "series", "crypto"]
    key: str  # the ticker or the FRED series id
    basis: Literal["returns", "changes"]


class Values(Model):
    asset: Asset
    points: list[Point]
    source: str  # Source.cite() of the data read
    note: str | None = None  # e.g. "split/dividend-adjusted closes"


def resolve_asset(raw: str) -> Result[Asset]:
    name = raw.strip().upper()
    if name in INDEX_ALIASES:
        series = INDEX_ALIASES[name]
        return Ok(Asset(name=INDEX_NAMES[series], kind="index", key=series, basis="returns"))
    if name.startswith("FRED:"):
        series = name.removeprefix("FRED:").strip()
        if not series.replace("_", "").isalnum():
            return Err(ErrorCode.INVALID_INPUT, f"{raw!r} is not a FRED series id (e.g. FRED:DGS10)")
        basis: Literal["returns", "changes"] = "returns" if series in LEVEL_SERIES else "changes"
        return Ok(Asset(name=name, kind="series", key=series, basis=basis))
    if name in CRYPTO_NAMES or name.startswith("CRYPTO:"):
        token = raw.strip().split(":", 1)[-1].strip().lower().removesuffix("-usd")
        token = _TOKEN_SPELLINGS.get(token, token)
        if not token or not token.replace("-", "").isalnum():
            return Err(ErrorCode.INVALID_INPUT, f"{raw!r} is not a token name (e.g. BTC, bitcoin)")
        return Ok(Asset(name=token.upper(), kind="crypto", key=token, basis="returns"))
    return Ok(Asset(name=name, kind="ticker", key=name, basis="returns"))


async def fetch_values(asset: Asset, start: date, end: date, ctx: ToolContext) -> Result[Values]:
    """The asset's dated values in [start, end], point in time at the run's as-of date."""
    if asset.kind == "ticker":
        bars = await ctx.router.bars(asset.key, start, end, ctx.as_of)
        if isinstance(bars, Err):
            return bars
        b = bars.value
        note = ADJUSTED_NOTE if b.adjusted else "as-traded closes"
        return Ok(
            Values(
                asset=asset,
                points=clean([(x.date, x.close) for x in b.bars if x.date <= ctx.as_of]),
                source=b.source.cite(),
                note=note,
            )
        )
    if asset.kind == "crypto":
        return await _token_values(asset, start, min(end, ctx.as_of), ctx)
    series = await ctx.router.macro(asset.key, ctx.as_of, start)
    if isinstance(series, Err):
        return series
    m = series.value
    last = min(end, ctx.as_of)
    points = clean(
        [(o.date, o.value) for o in m.observations if o.value is not None and start <= o.date <= last]
    )
    lag = f"release lag {m.release_lag_days} days" if m.release_lag_days else "no release lag"
    what = "index level" if asset.kind == "index" else (m.units or "value")
    return Ok(
        Values(asset=asset, points=points, source=m.source.cite(), note=f"FRED {m.series_id} {what}, {lag}")
    )


async def _token_values(asset: Asset, start: date, end: date, ctx: ToolContext) -> Result[Values]:
    got = await ctx.router.token_prices(asset.key, ctx.as_of)
    if isinstance(got, Err):
        return got
    held = got.value.points
    daily = [
        p for p in held if p.kind == "daily" and p.currency.lower() == "usd" and start <= p.at.date() <= end
    ]
    if len(daily) < 2:
        kinds = (
            ", ".join(f"{p.kind} {p.currency.upper()} {p.at.date().isoformat()}" for p in held[:3]) or "none"
        )
        return Err(
            ErrorCode.NO_DATA,
            f"no daily USD price history for {asset.name} between {start} and {end} is in the data (it holds "
            f"{len(held)} price point(s): {kinds}; a daily history such as CoinGecko's market_chart is not "
            "recorded), so returns and correlations with it cannot be computed. Do not estimate them.",
        )
    sources = "; ".join(dict.fromkeys(p.source.cite() for p in daily))
    points = clean([(p.at.date(), p.price) for p in daily])
    return Ok(Values(asset=asset, points=points, source=sources, note="daily USD prices (00:00 UTC)"))


def _moves(points: list[Point], basis: str) -> list[Point]:
    return returns(points) if basis == "returns" else changes(points)


# ---- return statistics ---------------------------------------------------------------------------


class StatsArgs(ToolArgs):
    asset: AssetName
    lookback_days: Annotated[
        int,
        Field(
            ge=5,
            le=MAX_LOOKBACK_DAYS,
            description=f"Calendar days back from the as-of date (default {DEFAULT_LOOKBACK_DAYS}).",
        ),
    ] = DEFAULT_LOOKBACK_DAYS


class ReturnStats(Model):
    asset: str
    start: date  # first observation used
    end: date  # last observation used
    observations: int
    first_value: float
    last_value: float
    total_return_pct: float | None
    volatility_pct: float | None
    volatility_basis: str
    sharpe: float | None
    risk_free_pct: float
    risk_free_basis: str  # which rate, its date and source, or "0 %: no rate available"
    max_drawdown: Drawdown | None
    source: str
    note: str | None = None
    # Adjusted series carry corporate actions recorded after the as-of date: their last level is not the
    # price quoted that day. The as-traded close of the same session, when a source has it.
    traded_close: float | None = None
    traded_close_source: str | None = None


async def risk_free_rate(at: date, ctx: ToolContext) -> tuple[float, str]:
    """The latest short rate known at ``at`` (percent a year) and how it was chosen."""
    reasons = []
    for series_id in RISK_FREE_SERIES:
        got = await ctx.router.macro(series_id, min(at, ctx.as_of), at - timedelta(days=400))
        if isinstance(got, Ok):
            known = [o for o in got.value.observations if o.value is not None]
            if known:
                last = known[-1]
                assert last.value is not None
                return last.value, (
                    f"{series_id} {last.value:g}% for {last.date.isoformat()} ({got.value.source.cite()})"
                )
        reasons.append(f"{series_id} unavailable")
    return 0.0, f"0% ({'; '.join(reasons)})"


async def _return_stats(args: StatsArgs, ctx: ToolContext) -> Result[ReturnStats]:
    asset = resolve_asset(args.asset)
    if isinstance(asset, Err):
        return asset
    if asset.value.basis == "changes":
        return Err(
            ErrorCode.INVALID_INPUT,
            f"{asset.value.key} is a rate series: it has no returns; use get_macro_series for its levels",
        )
    start = ctx.as_of - timedelta(days=args.lookback_days)
    got = await fetch_values(asset.value, start, ctx.as_of, ctx)
    if isinstance(got, Err):
        return got
    points = got.value.points
    if len(points) < 2:
        return Err(
            ErrorCode.NO_DATA,
            f"only {len(points)} observation(s) of {asset.value.name} between {start} and {ctx.as_of}; "
            "at least 2 are needed",
        )
    moves = [r for _, r in returns(points)]
    rf, rf_basis = await risk_free_rate(points[-1][0], ctx)
    traded: Quote | None = None
    if asset.value.kind == "ticker" and got.value.note == ADJUSTED_NOTE:
        quote = await ctx.router.quote(asset.value.key, ctx.as_of)
        if isinstance(quote, Ok) and quote.value.basis == "as_traded":
            traded = quote.value if quote.value.session_date == points[-1][0] else None
    return Ok(
        ReturnStats(
            asset=asset.value.name,
            start=points[0][0],
            end=points[-1][0],
            observations=len(points),
            first_value=points[0][1],
            last_value=points[-1][1],
            total_return_pct=total_return_pct(points),
            volatility_pct=annualized_volatility_pct(moves),
            volatility_basis=VOL_BASIS,
            sharpe=sharpe_ratio(moves, rf),
            risk_free_pct=rf,
            risk_free_basis=rf_basis,
            max_drawdown=max_drawdown(points),
            source=got.value.source,
            note=got.value.note,
            traded_close=traded.price if traded else None,
            traded_close_source=traded.source.cite() if traded else None,
        )
    )


def _pct(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:+.{digits}f}%"


def summarize_stats(s: ReturnStats) -> str:
    dd = s.max_drawdown
    drawdown = (
        f"max drawdown {dd.depth_pct:.2f}% (peak {dd.peak.isoformat()}, trough {dd.trough.isoformat()})"
        if dd
        else "max drawdown n/a"
    )
    vol = "n/a" if s.volatility_pct is None else f"{s.volatility_pct:.2f}%"
    sharpe = "n/a" if s.sharpe is None else f"{s.sharpe:.2f}"
    return (
        f"{s.asset} {s.start.isoformat()}..{s.end.isoformat()} ({s.observations} observations, {s.note}): "
        f"{money(s.first_value)} -> {money(s.last_value)}, total return {_pct(s.total_return_pct)}; "
        f"annualized volatility {vol} ({s.volatility_basis}); Sharpe {sharpe} (annualized, risk-free "
        f"{s.risk_free_basis}); {drawdown}. Source: {s.source}"
    )


get_return_stats = Tool(
    name="get_return_stats",
    description=(
        "Return statistics of one asset (US stock or ETF, ^GSPC/SPX index, FRED:SP500) over a window ending "
        "at the run's as-of date: first and last value with dates, total return, annualized volatility "
        "(stated basis), Sharpe ratio (with the risk-free rate used and its date) and max drawdown with its "
        f"peak and trough dates. {POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=StatsArgs,
    fn=_return_stats,
    summarize=summarize_stats,
)


# ---- correlation ---------------------------------------------------------------------------------


class CorrelationArgs(ToolArgs):
    a: AssetName
    b: AssetName
    window_days: Annotated[
        int, Field(ge=7, le=MAX_LOOKBACK_DAYS, description="Window length in calendar days (default 30).")
    ] = 30
    condition: Annotated[
        str | None,
        StringConstraints(strip_whitespace=True, max_length=60),
        Field(
            description=(
                "Optional condition on a FRED series, SERIES<op>VALUE (e.g. DGS10>4.5): the window starts at "
                "the latest date at or before the as-of date on which the condition began to hold."
            )
        ),
    ] = None


class Correlation(Model):
    a: str
    b: str
    a_basis: str  # "daily returns" or "daily changes"
    b_basis: str
    start: date  # first paired observation
    end: date  # last paired observation
    pairs: int  # paired changes the correlation is computed from
    r: float
    condition: str | None = None
    crossing: date | None = None  # when the condition began to hold
    condition_source: str | None = None
    rolling: list[Point] = Field(default_factory=list)  # trailing ROLLING_POINTS-change correlations
    sources: list[str]
    notes: list[str] = Field(default_factory=list)


async def _window(
    args: CorrelationArgs, ctx: ToolContext
) -> Result[tuple[date, date, date | None, str | None]]:
    """(start, end, crossing, condition source) of the correlation window."""
    if args.condition is None:
        return Ok((ctx.as_of - timedelta(days=args.window_days), ctx.as_of, None, None))
    condition = parse_condition(args.condition)
    if condition is None:
        return Err(
            ErrorCode.INVALID_INPUT,
            f"condition {args.condition!r} is not SERIES<op>VALUE (e.g. DGS10>4.5; op one of > >= < <=)",
        )
    since = ctx.as_of - timedelta(days=CONDITION_HISTORY_DAYS)
    series = await ctx.router.macro(condition.series, ctx.as_of, since)
    if isinstance(series, Err):
        return series
    points = clean([(o.date, o.value) for o in series.value.observations if o.value is not None])
    crossing = latest_crossing(points, condition, ctx.as_of)
    if crossing is None:
        return Err(
            ErrorCode.NO_DATA,
            f"{condition.text()} did not hold on any {condition.series} observation from {since} to "
            f"{ctx.as_of}, so there is no window after a crossing",
        )
    end = min(crossing + timedelta(days=args.window_days), ctx.as_of)
    return Ok((crossing, end, crossing, series.value.source.cite()))


async def _correlation(args: CorrelationArgs, ctx: ToolContext) -> Result[Correlation]:
    assets = [resolve_asset(args.a), resolve_asset(args.b)]
    for asset in assets:
        if isinstance(asset, Err):
            return asset
    a, b = (x.value for x in assets if isinstance(x, Ok))
    window = await _window(args, ctx)
    if isinstance(window, Err):
        return window
    start, end, crossing, condition_source = window.value
    got_a, got_b = await asyncio.gather(fetch_values(a, start, end, ctx), fetch_values(b, start, end, ctx))
    for got in (got_a, got_b):
        if isinstance(got, Err):
            if crossing is None:
                return got
            # The crossing was found; a reader asking "after 10Y crossed 4.5%" still learns when it was.
            return replace(
                got,
                reason=f"{got.reason} (the window after {args.condition} began to hold on "
                f"{crossing.isoformat()}, per {condition_source})",
            )
    assert isinstance(got_a, Ok) and isinstance(got_b, Ok)
    both = paired(got_a.value.points, got_b.value.points)
    moves_a = _moves([(d, x) for d, x, _ in both], a.basis)
    moves_b = _moves([(d, y) for d, _, y in both], b.basis)
    pairs = paired(moves_a, moves_b)
    r = correlation([x for _, x, _ in pairs], [y for _, _, y in pairs])
    if r is None:
        why = (
            f"only {len(pairs)} paired daily moves" if len(pairs) < MIN_POINTS else "one series did not move"
        )
        return Err(
            ErrorCode.NO_DATA,
            f"no correlation of {a.name} and {b.name} between {start} and {end}: {why} "
            f"(at least {MIN_POINTS} paired moves are needed)",
        )
    notes = list(dict.fromkeys(n for n in (got_a.value.note, got_b.value.note) if n))
    if crossing is not None and end - crossing < timedelta(days=args.window_days):
        notes.append(f"the window is cut short at the as-of date {ctx.as_of.isoformat()}")
    return Ok(
        Correlation(
            a=a.name,
            b=b.name,
            a_basis=f"daily {a.basis}",
            b_basis=f"daily {b.basis}",
            start=both[0][0],
            end=both[-1][0],
            pairs=len(pairs),
            r=r,
            condition=args.condition,
            crossing=crossing,
            condition_source=condition_source,
            rolling=rolling_correlation(pairs, ROLLING_POINTS) if len(pairs) > ROLLING_POINTS else [],
            sources=list(dict.fromkeys([got_a.value.source, got_b.value.source])),
            notes=notes,
        )
    )


def summarize_correlation(c: Correlation) -> str:
    cond = ""
    if c.condition and c.crossing:
        cond = f" after {c.condition} began to hold on {c.crossing.isoformat()} ({c.condition_source})"
    rolling = ""
    if c.rolling:
        lo, hi = min(v for _, v in c.rolling), max(v for _, v in c.rolling)
        rolling = f"; rolling {ROLLING_POINTS}-move correlation ranged {lo:.2f}..{hi:.2f}"
    notes = "".join(f"\nNote: {n}" for n in c.notes)
    return (
        f"Correlation of {c.a} ({c.a_basis}) and {c.b} ({c.b_basis}) "
        f"{c.start.isoformat()}..{c.end.isoformat()}{cond}: "
        f"r = {c.r:.3f} over {c.pairs} paired moves{rolling}. "
        f"Sources: {'; '.join(c.sources)}{notes}"
    )


get_correlation = Tool(
    name="get_correlation",
    description=(
        "Pearson correlation of two assets' daily moves over a window ending at the run's as-of date, or, "
        "with a condition like DGS10>4.5, over the window after the condition's latest crossing. Assets: US "
        "tickers and ETFs, ^GSPC/SPX, ^VIX, FRED:<ID> series (rates compared by daily changes), crypto (BTC, "
        f"ETH: only where daily USD prices exist, else an explicit no_data). {POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=CorrelationArgs,
    fn=_correlation,
    summarize=summarize_correlation,
)


# ---- chart ---------------------------------------------------------------------------------------


class ChartArgs(ToolArgs):
    assets: Annotated[
        list[AssetName],
        Field(
            min_length=1, max_length=MAX_CHART_ASSETS, description='The assets to draw, e.g. ["NVDA", "SPY"].'
        ),
    ]
    lookback_days: Annotated[
        int,
        Field(
            ge=5, le=MAX_LOOKBACK_DAYS, description=f"Calendar days back (default {DEFAULT_LOOKBACK_DAYS})."
        ),
    ] = DEFAULT_LOOKBACK_DAYS


class PriceChart(Model):
    title: str
    png_base64: str
    assets: list[str]  # the assets drawn
    start: date
    end: date
    sources: list[str]
    missing: list[str] = Field(default_factory=list)  # assets not drawn, with why


def render_paths(title: str, paths: dict[str, list[Point]]) -> str:
    """A PNG (base64) of each path rebased to 100 at its first value."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 3.6), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for name, points in paths.items():
        base = points[0][1]
        days: list[Any] = [d for d, _ in points]  # matplotlib's date converter takes ``date``s
        ax.plot(days, [v / base * 100 for _, v in points], label=name, linewidth=1.4)
    ax.set_title(title, fontsize=10)
    ax.set_ylabel("rebased to 100")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.autofmt_xdate()
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


async def _chart(args: ChartArgs, ctx: ToolContext) -> Result[PriceChart]:
    start = ctx.as_of - timedelta(days=args.lookback_days)
    missing: list[str] = []
    fetched: list[Values] = []
    resolved = [(raw, resolve_asset(raw)) for raw in dict.fromkeys(a.upper() for a in args.assets)]
    got = await asyncio.gather(
        *(fetch_values(r.value, start, ctx.as_of, ctx) for _, r in resolved if isinstance(r, Ok))
    )
    it = iter(got)
    for raw, r in resolved:
        result = r if isinstance(r, Err) else next(it)
        if isinstance(result, Err):
            missing.append(f"{raw}: {result.reason.replace(DO_NOT_ESTIMATE, '').strip().rstrip('.')}")
        elif len(result.value.points) < 2 or result.value.points[0][1] <= 0:
            missing.append(f"{raw}: fewer than 2 positive values in the window")
        else:
            fetched.append(result.value)
    if not fetched:
        return Err(ErrorCode.NO_DATA, "nothing to draw: " + "; ".join(missing))
    names = [v.asset.name for v in fetched]
    title = f"{', '.join(names)}: rebased to 100, {start.isoformat()}..{ctx.as_of.isoformat()}"
    png = await asyncio.to_thread(render_paths, title, {v.asset.name: v.points for v in fetched})
    return Ok(
        PriceChart(
            title=title,
            png_base64=png,
            assets=names,
            start=min(v.points[0][0] for v in fetched),
            end=max(v.points[-1][0] for v in fetched),
            sources=list(dict.fromkeys(v.source for v in fetched)),
            missing=missing,
        )
    )


def summarize_chart(c: PriceChart) -> str:
    missing = f" Not drawn: {'; '.join(c.missing)}." if c.missing else ""
    return (
        f"Chart '{c.title}' drawn ({len(c.png_base64):,} base64 characters of PNG): {', '.join(c.assets)} "
        f"{c.start.isoformat()}..{c.end.isoformat()}.{missing} Sources: {'; '.join(c.sources)}"
    )


make_price_chart = Tool(
    name="make_price_chart",
    description=(
        f"Draw a PNG chart of up to {MAX_CHART_ASSETS} assets' price paths rebased to 100 over a window "
        "ending at the run's as-of date (tickers, ETFs, ^GSPC/SPX, FRED:<ID>). The image goes into the "
        f"answer; the summary lists what was drawn and what could not be. {QUOTE_RULE}"
    ),
    args=ChartArgs,
    fn=_chart,
    summarize=summarize_chart,
)

TOOLS: tuple[Tool, ...] = (get_return_stats, get_correlation, make_price_chart)
