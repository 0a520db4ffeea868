"""The fast path: a rule strategy over a whole panel (tickers × sessions) at once, no per-session log.

Rules:
- Same fills, costs, target mapping and positions as the event loop (``accounting``, op for op): the
  decisions come from ``strategy.targets`` (the same causal rule ``decide`` runs), the accounting is one
  loop over sessions with every ticker in a numpy vector.
- A ticker's sessions are the columns where it has a bar (open, high, low and close all numbers); a
  column without a bar does not exist for that ticker: no fill, no decision, no equity point (a pending
  order waits for its next bar), just as its own ``Bars`` in the event loop would not have that day.
- A ticker with no bar in [start, end] is skipped: logged as a warning and reported to ``on_skip``.
- Both paths see the same bars from the same first bar, so EMA seeds agree; fewer warm-up bars than
  ``strategy.warmup`` before ``start`` is a warning in that ticker's result.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import date

import numpy as np
import numpy.typing as npt

from findesk.analytics.backtest.accounting import map_targets, rates, trades
from findesk.analytics.backtest.engine import warmup_warning
from findesk.analytics.backtest.metrics import compute_metrics
from findesk.analytics.backtest.models import Array, BacktestConfig, BacktestResult, Fill
from findesk.analytics.backtest.strategies import VectorStrategy

log = logging.getLogger(__name__)


def run_vectorized(
    tickers: Sequence[str],
    dates: npt.NDArray[np.datetime64] | Sequence[date],
    open: Array,  # the panel's field name, shadowing the builtin here only
    high: Array,
    low: Array,
    close: Array,
    strategy: VectorStrategy,
    config: BacktestConfig,
    start: date,
    end: date,
    *,
    on_skip: Callable[[str, str], None] | None = None,
) -> dict[str, BacktestResult]:
    o_all, h_all, l_all, c_all = (
        np.atleast_2d(np.asarray(a, dtype=np.float64)) for a in (open, high, low, close)
    )
    days = np.asarray(dates, dtype="datetime64[D]")
    if o_all.shape != c_all.shape or h_all.shape != c_all.shape or l_all.shape != c_all.shape:
        raise ValueError("open, high, low and close must have the same shape (tickers × sessions)")
    if c_all.shape != (len(tickers), len(days)):
        raise ValueError(f"arrays are {c_all.shape}, expected {len(tickers)} tickers × {len(days)} sessions")
    j0 = int(np.searchsorted(days, np.datetime64(start, "D"), side="left"))
    j1 = int(np.searchsorted(days, np.datetime64(end, "D"), side="right")) - 1
    valid = np.isfinite(o_all) & np.isfinite(h_all) & np.isfinite(l_all) & np.isfinite(c_all)
    in_window = valid[:, j0 : j1 + 1].any(axis=1) if j0 <= j1 else np.zeros(len(tickers), dtype=bool)
    for i in np.flatnonzero(~in_window).tolist():
        why = f"{tickers[i]}: no bar between {start} and {end}: skipped"
        log.warning(why)
        if on_skip is not None:
            on_skip(tickers[i], why)
    keep = np.flatnonzero(in_window)
    if keep.size == 0:
        return {}

    ok = valid[keep]
    o, c = o_all[keep], c_all[keep]
    nan = np.float64(np.nan)
    target = strategy.targets(
        np.where(ok, c, nan), np.where(ok, h_all[keep], nan), np.where(ok, l_all[keep], nan)
    )
    width = j1 - j0 + 1
    cols = np.arange(ok.shape[1])
    last = np.max(np.where(ok[:, j0 : j1 + 1], cols[j0 : j1 + 1], -1), axis=1)  # last session of each

    s, cm = rates(config)
    n = keep.size
    cash = np.full(n, config.initial_cash)
    pos = np.zeros(n)
    current = np.zeros(n)
    pending = np.full(n, np.nan)
    equity = np.full((n, width), np.nan)
    held = np.zeros((n, width))
    fills: list[list[tuple[int, float, float, float, float]]] = [[] for _ in range(n)]
    with np.errstate(invalid="ignore", divide="ignore"):
        for j in range(j0, j1 + 1):
            v = ok[:, j]
            oj = o[:, j]
            f = v & np.isfinite(pending)
            d_all = trades(pending, cash, pos, oj, s, cm)
            do = f & (d_all != 0.0)
            if do.any():
                d = np.where(do, d_all, 0.0)
                price = np.where(d > 0.0, oj * (1.0 + s), oj * (1.0 - s))
                commission = np.abs(d) * price * cm
                cash = np.where(do, cash - d * price - commission, cash)
                pos = np.where(do, pos + d, pos)
                slip = np.abs(d) * oj * s
                for i in np.flatnonzero(do).tolist():
                    fills[i].append((j, float(d[i]), float(price[i]), float(commission[i]), float(slip[i])))
            pending = np.where(f, np.nan, pending)
            order = map_targets(target[:, j], current, config.allow_short)
            place = v & np.isfinite(order) & (j < last)
            pending = np.where(place, order, pending)
            current = np.where(place, order, current)
            equity[:, j - j0] = np.where(v, cash + pos * c[:, j], np.nan)
            held[:, j - j0] = pos

    py_days: list[date] = days.astype(object).tolist()
    out: dict[str, BacktestResult] = {}
    for i, row in enumerate(keep.tolist()):
        ticker = tickers[row]
        have = ok[i, j0 : j1 + 1]
        sessions = [py_days[j0 + k] for k in np.flatnonzero(have).tolist()]
        eq = equity[i, have]
        fl = [
            Fill(
                session=py_days[j],
                side="buy" if d > 0.0 else "sell",
                shares=abs(d),
                price=price,
                commission=comm,
                slippage=slip,
            )
            for j, d, price, comm, slip in fills[i]
        ]
        warnings: list[str] = []
        w = warmup_warning(ticker, int(ok[i, :j0].sum()), strategy.warmup, start)
        if w:
            warnings.append(w)
        first = int(np.argmax(have))
        gaps = int((~have[first : int(last[i]) - j0 + 1]).sum())
        if gaps:
            warnings.append(f"{ticker}: {gaps} session(s) of the panel without a bar inside the window")
        out[ticker] = BacktestResult(
            strategy=strategy.name,
            params=dict(strategy.params),
            ticker=ticker,
            start=sessions[0],
            end=sessions[-1],
            config=config,
            metrics=compute_metrics(sessions, eq, fl, held[i, have], config.risk_free_pct),
            dates=sessions,
            equity=eq.tolist(),
            fills=fl,
            warnings=warnings,
        )
    return out
