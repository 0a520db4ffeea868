"""Trading desk tools for the market analyst: a stock's technicals and the macro regime, point in time.

Rules:
- Thin: each tool reads through ``ctx.router`` with ``ctx.as_of`` and computes with
  ``analytics.trading`` (``technicals``, ``regime``); nothing here is maths.
- ``get_technicals`` reads ``HISTORY_DAYS`` calendar days of daily bars (enough for SMA200 with
  holidays) ending at the as-of date; a symbol without bars is the router's error, passed on.
- ``get_market_regime`` reads FRED VIXCLS, BAMLH0A0HYM2 and T10Y2Y, SPY and the 11 Select Sector
  SPDRs concurrently. A failed source is not an error of the tool: its component is left out of the
  vote with the reason in the regime's warnings. Breadth is *sector breadth* (the SPDRs above their
  50-day average), named so.
- Each result value carries every figure its summary and the market analyst's signal lines state,
  the windows and thresholds included, so the number trace finds them; summaries state every figure
  with the session date and the source.
"""

from __future__ import annotations

import asyncio
from datetime import date, timedelta

from pydantic import BaseModel, ConfigDict, Field

from findesk.analytics.trading.regime import RULES, SECTOR_SPDRS, Obs, Regime, RegimeInputs, regime
from findesk.analytics.trading.technicals import PERIODS, Technicals, as_traded, missing_figures, technicals
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import MacroSeries, PriceBars
from findesk.data.router import DO_NOT_ESTIMATE
from findesk.tools.args import POINT_IN_TIME, QUOTE_RULE, SymbolArgs, ToolArgs
from findesk.tools.base import Tool, ToolContext
from findesk.tools.summaries import clip, exact

HISTORY_DAYS = 420  # calendar days: ~290 sessions, SMA200 and MACD with room for holidays
MACRO_DAYS = 60  # a month's change of the credit spread, with room for holidays
_REASON_CHARS = 200


class TechnicalsResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    symbol: str
    as_of: date
    technicals: Technicals
    adjusted: bool  # split/dividend-adjusted bars: levels may differ from what traded that day
    periods: dict[str, float] = Field(default_factory=lambda: dict(PERIODS))
    missing: list[str] = Field(default_factory=list)  # indicators without enough history
    source: str  # citation of the bars


class RegimeResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    as_of: date
    regime: Regime
    rules: dict[str, float] = Field(default_factory=lambda: dict(RULES))
    sources: list[str] = Field(default_factory=list)


# --- get_technicals ---------------------------------------------------------------------------------


async def _technicals(args: SymbolArgs, ctx: ToolContext) -> Result[TechnicalsResult]:
    got, quote = await asyncio.gather(
        ctx.router.bars(args.symbol, ctx.as_of - timedelta(days=HISTORY_DAYS), ctx.as_of, ctx.as_of),
        ctx.router.quote(args.symbol, ctx.as_of),
    )
    if isinstance(got, Err):
        return got
    bars = got.value
    tech = technicals(bars.bars, ctx.as_of)
    if tech is None:
        return Err(
            ErrorCode.NO_DATA,
            f"no daily bar for {bars.symbol} on or before {ctx.as_of.isoformat()}; do not estimate it",
        )
    traded = isinstance(quote, Ok) and quote.value.basis == "as_traded"
    if bars.adjusted and isinstance(quote, Ok) and traded and quote.value.session_date == tech.session:
        # levels as they traded that day: a plan's entry, stop and target must be tradable prices
        tech = as_traded(tech, quote.value.price, quote.value.volume)
    return Ok(
        TechnicalsResult(
            symbol=bars.symbol,
            as_of=ctx.as_of,
            technicals=tech,
            adjusted=bars.adjusted,
            missing=missing_figures(tech),
            source=bars.source.cite() + (f" ({bars.source.note})" if bars.source.note else ""),
        )
    )


def _num(value: float | None, fmt: str = ".2f") -> str:
    return "n/a" if value is None else format(value, fmt)


def summarize_technicals(r: TechnicalsResult) -> str:
    t = r.technicals
    basis = "split/dividend-adjusted bars" if r.adjusted else "as-traded bars"
    if t.levels == "as_traded" and r.adjusted:
        basis += (
            f", price levels and volume rescaled to what traded on {t.session.isoformat()} "
            f"(as-traded close / adjusted close = {t.level_factor:g})"
        )
    volume = exact(t.volume) if t.volume is not None else "n/a"
    lines = [
        f"{r.symbol} technicals on session {t.session.isoformat()} (as of {r.as_of.isoformat()}; "
        f"{t.sessions} sessions of {basis}):",
        f"close {t.close:.2f}, open {_num(t.open)}, high {_num(t.high)}, low {_num(t.low)}, "
        f"volume {volume} shares; return over 21 sessions {_num(t.return_1m_pct, '+.2f')}%",
        f"SMA50 {_num(t.sma_50)} (close {_num(t.close_vs_sma50_pct, '+.2f')}%), SMA200 {_num(t.sma_200)} "
        f"(close {_num(t.close_vs_sma200_pct, '+.2f')}%), EMA10 {_num(t.ema_10)}",
        f"MACD(12,26,9) {_num(t.macd)}, signal {_num(t.macd_signal)}, histogram {_num(t.macd_hist, '+.2f')}; "
        f"RSI(14) {_num(t.rsi_14)}",
        f"Bollinger(20,2) lower {_num(t.boll_lower)}, middle {_num(t.boll_middle)}, "
        f"upper {_num(t.boll_upper)}, %b {_num(t.boll_pct_b)}",
        f"ATR(14) {_num(t.atr_14)} ({_num(t.atr_pct)}% of the close); VWMA20 {_num(t.vwma_20)} "
        f"(close {_num(t.close_vs_vwma_pct, '+.2f')}%); OBV 20-session change "
        f"{_num(t.obv_change_20d_pct, '+.2f')}% of the period's volume",
    ]
    if r.missing:
        lines.append(f"not computable with this history: {', '.join(r.missing)}")
    return "\n".join(lines) + f"\nSource: {r.source}"


get_technicals = Tool(
    name="get_technicals",
    description=(
        "Technical indicators of one US stock or ETF on its last session at or before the run's as-of "
        "date, computed with TA-Lib from ~14 months of daily bars: close, open/high/low, volume, 1-month "
        "return, SMA50, SMA200, EMA10, MACD(12,26,9), RSI(14), Bollinger(20,2) with %b, ATR(14) in price "
        "and percent, VWMA20, OBV's 20-session change. A figure without enough history is n/a, never "
        f"estimated. {POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=SymbolArgs,
    fn=_technicals,
    summarize=summarize_technicals,
)


# --- get_market_regime ------------------------------------------------------------------------------


class RegimeArgs(ToolArgs):
    """No arguments: the regime is the market's, at the run's as-of date."""


def _observations(got: Result[MacroSeries]) -> list[Obs]:
    if isinstance(got, Err):
        return []
    return [(o.date, o.value) for o in got.value.observations if o.value is not None]


def _closes(got: Result[PriceBars]) -> list[Obs]:
    return [] if isinstance(got, Err) else [(b.date, b.close) for b in got.value.bars]


def _why(got: Result[MacroSeries] | Result[PriceBars]) -> str | None:
    """A failed source's reason for the reader: the router's instruction to a model is left out."""
    if not isinstance(got, Err):
        return None
    reason = got.reason.replace(DO_NOT_ESTIMATE, "").strip()
    return clip(f"{got.code.value}: {reason}", _REASON_CHARS)


async def _market_regime(_args: RegimeArgs, ctx: ToolContext) -> Result[RegimeResult]:
    as_of = ctx.as_of
    fred_start, bars_start = as_of - timedelta(days=MACRO_DAYS), as_of - timedelta(days=HISTORY_DAYS)
    vix, hy, curve = await asyncio.gather(
        ctx.router.macro("VIXCLS", as_of, fred_start),
        ctx.router.macro("BAMLH0A0HYM2", as_of, fred_start),
        ctx.router.macro("T10Y2Y", as_of, fred_start),
    )
    symbols = ("SPY", *SECTOR_SPDRS)
    bars = dict(
        zip(
            symbols,
            await asyncio.gather(*(ctx.router.bars(s, bars_start, as_of, as_of) for s in symbols)),
            strict=True,
        )
    )
    unavailable: dict[str, str] = {}
    for key, got in (("VIXCLS", vix), ("BAMLH0A0HYM2", hy), ("T10Y2Y", curve), ("spy", bars["SPY"])):
        if (why := _why(got)) is not None:
            unavailable[key] = f"{'SPY bars' if key == 'spy' else 'FRED ' + key} unavailable: {why}"
    failed = [s for s in SECTOR_SPDRS if isinstance(bars[s], Err)]
    if failed:
        unavailable["sectors"] = f"no bars for {' '.join(failed)} ({_why(bars[failed[0]])})"
    inputs = RegimeInputs(
        as_of=as_of,
        vix=_observations(vix),
        hy_spread=_observations(hy),
        curve=_observations(curve),
        spy=_closes(bars["SPY"]),
        sectors={s: _closes(bars[s]) for s in SECTOR_SPDRS},
        unavailable=unavailable,
    )
    found = regime(inputs)
    if failed and "breadth" in found.votes:
        # the vote went ahead on the funds that had bars; which ones were missing is still said
        found = found.model_copy(update={"warnings": [*found.warnings, unavailable["sectors"]]})
    sources = [g.value.source.cite() for g in (vix, hy, curve) if isinstance(g, Ok)]
    sources += sorted({g.value.source.cite() for g in bars.values() if isinstance(g, Ok)})
    return Ok(RegimeResult(as_of=as_of, regime=found, sources=sources))


def summarize_regime(r: RegimeResult) -> str:
    g = r.regime
    lines = [
        f"Market regime as of {r.as_of.isoformat()}: {g.label} (score {g.score:+g}, the sum of "
        f"{len(g.votes)} of 6 component votes; risk-on at +2 or more, risk-off at -2 or less)",
        *(f"- {line}" for line in g.components),
        *(f"Warning: {w}" for w in g.warnings),
    ]
    return "\n".join(lines) + "\nSources: " + "; ".join(r.sources or ["none"])


get_market_regime = Tool(
    name="get_market_regime",
    description=(
        "The US market's macro regime at the run's as-of date: risk-on, risk-off or transition, from six "
        "votes: VIX level (FRED VIXCLS), high-yield credit spread level and 1-month change (FRED "
        "BAMLH0A0HYM2), 10y-2y Treasury curve (FRED T10Y2Y), sector breadth (Select Sector SPDRs above "
        "their 50-day average), sector rotation (cyclical minus defensive SPDRs over a month) and SPY vs "
        "its 200-day average. Each vote is stated with its figure; a source that is unavailable is left "
        f"out with a warning: report it as unavailable, never estimate it. No arguments. {POINT_IN_TIME}"
    ),
    args=RegimeArgs,
    fn=_market_regime,
    summarize=summarize_regime,
)

TOOLS: tuple[Tool, ...] = (get_technicals, get_market_regime)
