"""The daily event loop: one ticker, one strategy, one window, every session logged.

Rules:
- Sessions are the ticker's bars dated in [start, end]. Bars before ``start`` are warm-up: a strategy's
  ``History`` shows them, nothing trades on them. Fewer of them than ``strategy.warmup`` is a warning in
  the result (the first decisions then wait for data), not an error.
- For each session s: first the order decided at the previous session's close fills at s's open
  (``accounting``: fractional shares, slippage against the order, commission on traded value); then the
  strategy decides at s's close on ``History(t=s)``; then s is logged (close, target, reason, position,
  cash, equity = cash + position × close, the fill). Nothing fills on the first session; the last
  session's decision is logged but never filled.
- Long-only unless ``config.allow_short`` (a negative target means flat). A ``LookAheadError`` raised by
  the strategy aborts the run: it propagates to the caller.
- ``buy_hold_curve`` is the benchmark line: each session's close / the first session's close.
"""

from __future__ import annotations

from datetime import date

import numpy as np

from findesk.analytics.backtest.accounting import fill_price, map_target, rates, trade
from findesk.analytics.backtest.history import BarSource, History
from findesk.analytics.backtest.metrics import compute_metrics
from findesk.analytics.backtest.models import BacktestConfig, BacktestResult, Bars, Fill, SessionLog
from findesk.analytics.backtest.strategies import Strategy


def window(bars: Bars, start: date, end: date) -> tuple[int, int]:
    """Indices (first, last) of the bars dated in [start, end]; ``ValueError`` when there are none."""
    d = np.asarray(bars.dates, dtype="datetime64[D]")
    lo = int(np.searchsorted(d, np.datetime64(start, "D"), side="left"))
    hi = int(np.searchsorted(d, np.datetime64(end, "D"), side="right")) - 1
    if lo > hi:
        raise ValueError(f"{bars.ticker} has no session between {start} and {end}")
    return lo, hi


def warmup_warning(ticker: str, have: int, need: int, start: date) -> str | None:
    if have >= need:
        return None
    return (
        f"{ticker}: only {have} bar(s) before {start} but the strategy needs {need} of warm-up: "
        "its first decisions wait for data"
    )


def run_event_loop(
    bars: Bars, strategy: Strategy, config: BacktestConfig, start: date, end: date
) -> BacktestResult:
    lo, hi = window(bars, start, end)
    src = BarSource(bars)
    s_rate, c_rate = rates(config)
    cash, position, current = config.initial_cash, 0.0, 0.0
    pending: float | None = None
    logs: list[SessionLog] = []
    fills: list[Fill] = []
    equity: list[float] = []
    positions: list[float] = []
    for t in range(lo, hi + 1):
        session = src.dates[t]
        fill: Fill | None = None
        if pending is not None:
            o = float(src.open[t])
            d = trade(pending, cash, position, o, s_rate, c_rate)
            if d != 0.0:
                price = fill_price(d, o, s_rate)
                commission = abs(d) * price * c_rate
                cash = cash - d * price - commission
                position = position + d
                fill = Fill(
                    session=session,
                    side="buy" if d > 0.0 else "sell",
                    shares=abs(d),
                    price=price,
                    commission=commission,
                    slippage=abs(d) * o * s_rate,
                )
                fills.append(fill)
            pending = None
        decision = strategy.decide(History(src, t))
        order = map_target(decision.target, current, config.allow_short)
        reason = decision.reason
        if decision.target is not None and decision.target < 0 and not config.allow_short:
            reason = f"{reason} [long-only: flat]"
        if order is not None and t < hi:
            pending, current = order, order
        close = float(src.close[t])
        value = cash + position * close
        equity.append(value)
        positions.append(position)
        logs.append(
            SessionLog(
                session=session,
                close=close,
                target=decision.target,
                reason=reason,
                position=position,
                cash=cash,
                equity=value,
                fill=fill,
            )
        )
    dates = src.dates[lo : hi + 1]
    warning = warmup_warning(bars.ticker, lo, strategy.warmup, start)
    return BacktestResult(
        strategy=strategy.name,
        params=dict(strategy.params),
        ticker=bars.ticker,
        start=dates[0],
        end=dates[-1],
        config=config,
        metrics=compute_metrics(dates, equity, fills, positions, config.risk_free_pct),
        dates=dates,
        equity=equity,
        log=logs,
        fills=fills,
        warnings=[warning] if warning else [],
    )


def buy_hold_curve(bars: Bars, start: date, end: date) -> list[float]:
    """Each session's close divided by the first session's close, over [start, end]."""
    lo, hi = window(bars, start, end)
    close = np.asarray(bars.close[lo : hi + 1], dtype=np.float64)
    return [float(x) for x in close / close[0]]
