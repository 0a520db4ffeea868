"""The quant analyst's rules: a signal per fund, a note grounded only in its numbers, a sector
group's averages and interpretation, the market regime and the yield-curve state.

Rules:
- Every sentence is a template over the fund's own figures, written with the precision they are shown
  with (so the number trace finds each one); nothing is said that a figure does not support.
- Signals, in order: OVERSOLD (RSI ≤ oversold, or at/below the lower Bollinger band), BREAKDOWN (below
  the 200-day average and a move of ``breakdown_sigmas`` or worse), STRETCHED_LOW (RSI ≤ stretched and
  ≥ |stretched_below_sma50_pct| under the 50-day average), MARKET_MOVE (|alpha| < the protocol's
  beta threshold), else NEUTRAL.
Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean

from findesk.analytics.etf.models import EtfFeatures, Signal
from findesk.analytics.etf.params import PrepParams, SignalParams


def signal(f: EtfFeatures, params: SignalParams, beta_alpha_pct: float) -> Signal:
    if (f.rsi_14 is not None and f.rsi_14 <= params.oversold_rsi) or (
        f.bollinger_position is not None and f.bollinger_position <= 0.0
    ):
        return "OVERSOLD"
    if (
        f.price_vs_sma200_pct is not None
        and f.price_vs_sma200_pct < 0
        and f.move_sigmas is not None
        and f.move_sigmas <= params.breakdown_sigmas
    ):
        return "BREAKDOWN"
    if (
        f.rsi_14 is not None
        and f.rsi_14 <= params.stretched_rsi
        and f.price_vs_sma50_pct is not None
        and f.price_vs_sma50_pct <= params.stretched_below_sma50_pct
    ):
        return "STRETCHED_LOW"
    if f.alpha_residual is not None and abs(f.alpha_residual) < beta_alpha_pct:
        return "MARKET_MOVE"
    return "NEUTRAL"


def _pct(value: float) -> str:
    return f"{value:+.2f}%"


def note(f: EtfFeatures, sig: Signal, prep: PrepParams | None = None) -> str:
    """One or two sentences from the fund's figures only, naming the strategy's own periods."""
    prep = prep or PrepParams()
    parts = [f"{f.symbol} returned {_pct(f.pct_return)} in the week vs SPY {_pct(f.spy_weekly_return)}"]
    if f.beta is not None and f.alpha_residual is not None:
        parts[0] += f"; with beta {f.beta:.2f} the alpha residual is {f.alpha_residual:+.2f} pp"
    parts[0] += "."
    tech: list[str] = []
    if f.rsi_14 is not None:
        tech.append(f"RSI({prep.rsi_period}) {f.rsi_14:.1f}")
    if f.bollinger_position is not None:
        tech.append(f"Bollinger position {f.bollinger_position:.2f}")
    if f.price_vs_sma50_pct is not None:
        tech.append(f"{_pct(f.price_vs_sma50_pct)} vs SMA50")
    if f.price_vs_sma200_pct is not None:
        tech.append(f"{_pct(f.price_vs_sma200_pct)} vs SMA200")
    if f.volume_ratio is not None:
        tech.append(f"volume {f.volume_ratio:.2f}x its {prep.volume_average_days}-day average")
    if tech:
        parts.append(f"Signal {sig}: " + ", ".join(tech) + ".")
    else:
        parts.append(f"Signal {sig}.")
    return " ".join(parts)


def group_averages(members: Sequence[EtfFeatures]) -> tuple[float, float, float | None]:
    """(average return %, average alpha residual pp, average beta) of a sector's candidates; funds
    without a beta count in the return average only."""
    ret = fmean(m.pct_return for m in members)
    alphas = [m.alpha_residual for m in members if m.alpha_residual is not None]
    betas = [m.beta for m in members if m.beta is not None]
    return ret, (fmean(alphas) if alphas else 0.0), (fmean(betas) if betas else None)


def interpretation(
    sector: str, n: int, avg_return: float, avg_alpha: float, spy: float, beta_alpha_pct: float
) -> str:
    head = f"{n} {sector} fund(s) averaged {_pct(avg_return)} vs SPY {_pct(spy)}"
    if abs(avg_alpha) < beta_alpha_pct:
        return f"{head}; average alpha residual {avg_alpha:+.2f} pp: the move is mostly the market's (beta)."
    side = "weaker" if avg_alpha < 0 else "stronger"
    return (
        f"{head}; average alpha residual {avg_alpha:+.2f} pp: {side} than their betas imply, "
        "a sector-specific move."
    )


def regime(spy_vs_sma50_pct: float | None) -> str:
    if spy_vs_sma50_pct is None:
        return "unknown (SPY has too little history for a 50-day average)"
    if spy_vs_sma50_pct >= 0:
        return f"risk-on: SPY {abs(spy_vs_sma50_pct):.2f}% above its 50-day average"
    return f"risk-off: SPY {abs(spy_vs_sma50_pct):.2f}% below its 50-day average"


def curve_state(spread: float | None) -> str | None:
    if spread is None:
        return None
    if spread < 0:
        return "inverted"
    return "flat" if spread < 0.25 else "normal"
