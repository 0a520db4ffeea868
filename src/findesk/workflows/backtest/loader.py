"""Loading a backtest's data: bars with warm-up, the whole-panel matrices, and the risk-free rate.

Rules:
- Bars come from the DataRouter as of the run's as-of date (``router.bars(symbol, from, end, as_of)``),
  starting early enough that the strategy's ``warmup`` sessions exist before ``start``: sessions are
  at most 5 of 7 calendar days and a few holidays, so ``warmup * 7 / 5 + 14`` calendar days back. A
  strategy that needs more history than the source has gets a warning, never invented bars.
- A bar without an open (index levels) cannot be filled at the next open: it is refused with the
  reason, never replaced by the close.
- The window's sessions are the bars from ``start`` to ``end``; a window with fewer than 2 sessions
  is ``no_data``.
- The risk-free rate (percent a year, for Sharpe): FRED's 3-month bill ``DTB3`` through
  ``router.macro``; without it, ``FEDFUNDS`` as a stated proxy (warning), else 0 (warning). Each session
  uses the latest observation visible on that session (observation date + the series' release lag on or
  before it); the rate is the mean over the window's sessions, read as of the window's end.
- The panel fast path: ``router.equity_panel(as_of, start)`` (the S&P 500 panel) when the router has
  it; otherwise the tickers' bars one by one, aligned on the union of sessions (NaN where a ticker has
  no bar).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import numpy as np

from findesk.analytics.backtest.models import Bars
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import PriceBars
from findesk.data.router import DataRouter
from findesk.workflows.backtest.models import RiskFree

RISK_FREE_SERIES = "DTB3"
RISK_FREE_PROXY = "FEDFUNDS"


def warmup_start(start: date, warmup: int) -> date:
    """The first calendar day to read so that ``warmup`` sessions exist before ``start``."""
    return start - timedelta(days=int(warmup * 7 / 5) + 14)


def to_bars(found: PriceBars) -> Result[Bars]:
    if not found.bars:
        return Err(ErrorCode.NO_DATA, f"no bars for {found.symbol}")
    missing = [b.date for b in found.bars if b.open is None]
    if missing:
        return Err(
            ErrorCode.NO_DATA,
            f"{found.symbol} has no open price on {missing[0].isoformat()} ({len(missing)} sessions); "
            "orders fill at the next open, so it cannot be backtested",
        )
    n = len(found.bars)

    def column(name: str) -> np.ndarray[Any, np.dtype[np.float64]]:
        out = np.empty(n, dtype=np.float64)
        for i, b in enumerate(found.bars):
            v = getattr(b, name)
            out[i] = np.nan if v is None else float(v)
        return out

    return Ok(
        Bars(
            ticker=found.symbol,
            dates=np.array([b.date for b in found.bars], dtype="datetime64[D]"),
            open=column("open"),
            high=column("high"),
            low=column("low"),
            close=column("close"),
            volume=column("volume"),
            source=found.source.cite(),
        )
    )


async def load_bars(
    router: DataRouter, ticker: str, start: date, end: date, as_of: date, warmup: int
) -> Result[Bars]:
    """One ticker's bars from ``warmup`` sessions before ``start`` through ``end`` (see the rules)."""
    if end > as_of:
        return Err(
            ErrorCode.INVALID_INPUT,
            f"the window ends {end.isoformat()}, after the as-of date {as_of.isoformat()}; "
            f"pass --as-of {end.isoformat()} or an earlier --end",
        )
    found = await router.bars(ticker, warmup_start(start, warmup), end, as_of)
    if isinstance(found, Err):
        return found
    bars = to_bars(found.value)
    if isinstance(bars, Err):
        return bars
    inside = int(np.count_nonzero(bars.value.dates >= np.datetime64(start, "D")))
    if inside < 2:
        return Err(
            ErrorCode.NO_DATA,
            f"{ticker} has {inside} session(s) from {start.isoformat()} to {end.isoformat()}; a backtest "
            "needs at least 2",
        )
    return bars


def warmup_note(bars: Bars, start: date, warmup: int, strategy: str) -> str | None:
    """A warning when fewer than ``warmup`` sessions precede ``start`` in ``bars``."""
    before = int(np.count_nonzero(bars.dates < np.datetime64(start, "D")))
    if before >= warmup:
        return None
    return (
        f"{bars.ticker} {strategy}: {before} session(s) of history before {start.isoformat()}, the "
        f"strategy wants {warmup}; its first decisions see less history"
    )


def fingerprint(bars: Bars) -> str:
    """A hash of the bars' values and dates: a cache entry is valid only for the very same data."""
    digest = hashlib.sha256(bars.ticker.encode())
    for array in (bars.dates.astype("int64"), bars.open, bars.high, bars.low, bars.close, bars.volume):
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()[:24]


def sessions_of(bars: Bars, start: date, end: date) -> list[date]:
    mask = (bars.dates >= np.datetime64(start, "D")) & (bars.dates <= np.datetime64(end, "D"))
    return [d.item() for d in bars.dates[mask]]


# ---- risk-free rate ---------------------------------------------------------------------------------


async def risk_free(router: DataRouter, sessions: Sequence[date], as_of: date) -> RiskFree:
    """The window's risk-free rate (see the module rules). Never fails: 0 with a warning at worst."""
    if not sessions:
        return RiskFree(pct=0.0, source="no sessions", warnings=[])
    reasons: list[str] = []
    for series in (RISK_FREE_SERIES, RISK_FREE_PROXY):
        found = await router.macro(series, as_of, sessions[0] - timedelta(days=200))
        if isinstance(found, Err):
            reasons.append(f"{series}: {found.code.value}")
            continue
        rate = _mean_visible(found.value, sessions)
        if rate is None:
            reasons.append(f"{series}: no observation visible in the window")
            continue
        pct, used = rate
        title = found.value.title or series
        source = (
            f"FRED {series} ({title}), mean of the latest observation visible on each of {used} sessions "
            f"(release lag {found.value.release_lag_days} days)"
        )
        warnings = []
        if series == RISK_FREE_PROXY:
            warnings.append(
                f"risk-free rate: {RISK_FREE_SERIES} (3-month bill) is not available "
                f"({'; '.join(reasons)}); the effective federal funds rate {RISK_FREE_PROXY} stands in "
                "as a proxy"
            )
        return RiskFree(pct=round(pct, 6), source=source, warnings=warnings)
    return RiskFree(
        pct=0.0,
        source="none: 0 % a year",
        warnings=[
            f"risk-free rate: neither {RISK_FREE_SERIES} nor {RISK_FREE_PROXY} is available "
            f"({'; '.join(reasons)}); Sharpe uses 0 %"
        ],
    )


def _mean_visible(series: Any, sessions: Sequence[date]) -> tuple[float, int] | None:
    lag = timedelta(days=int(series.release_lag_days))
    obs = sorted((o.date + lag, float(o.value)) for o in series.observations if o.value is not None)
    if not obs:
        return None
    known = [d for d, _ in obs]
    values: list[float] = []
    for day in sessions:
        k = int(
            np.searchsorted(np.array(known, dtype="datetime64[D]"), np.datetime64(day, "D"), side="right")
        )
        if k > 0:
            values.append(obs[k - 1][1])
    if not values:
        return None
    return float(np.mean(values)), len(values)


# ---- panel ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Panel:
    tickers: tuple[str, ...]
    dates: np.ndarray[Any, np.dtype[np.datetime64]]
    open: np.ndarray[Any, np.dtype[np.float64]]
    high: np.ndarray[Any, np.dtype[np.float64]]
    low: np.ndarray[Any, np.dtype[np.float64]]
    close: np.ndarray[Any, np.dtype[np.float64]]
    source: str


async def load_panel(
    router: DataRouter, tickers: Sequence[str] | None, start: date, end: date, as_of: date, warmup: int
) -> Result[Panel]:
    """Matrices (tickers × sessions) from the warm-up start through ``end``; ``tickers`` None = the
    whole S&P 500 panel (needs ``router.equity_panel``)."""
    first = warmup_start(start, warmup)
    equity_panel = getattr(router, "equity_panel", None)
    if equity_panel is not None:
        found = await equity_panel(as_of, first)
        if isinstance(found, Ok):
            p = found.value
            cols = p.dates <= np.datetime64(end, "D")
            rows = list(range(len(p.tickers)))
            if tickers is not None:
                index = {t: i for i, t in enumerate(p.tickers)}
                missing = [t for t in tickers if t not in index]
                rows = [index[t] for t in tickers] if not missing else []
            if rows:
                return Ok(
                    Panel(
                        tuple(p.tickers[i] for i in rows),
                        p.dates[cols],
                        p.open[rows][:, cols],
                        p.high[rows][:, cols],
                        p.low[rows][:, cols],
                        p.close[rows][:, cols],
                        p.source.cite(),
                    )
                )
    if tickers is None:
        return Err(ErrorCode.NOT_CONFIGURED, "the whole-panel path needs router.equity_panel")
    loaded = await asyncio.gather(*(load_bars(router, t, start, end, as_of, warmup) for t in tickers))
    bars: list[Bars] = []
    for got in loaded:
        if isinstance(got, Err):
            return got
        bars.append(got.value)
    return Ok(panel_of(bars))


def panel_of(bars: Sequence[Bars]) -> Panel:
    dates = np.unique(np.concatenate([b.dates for b in bars]))
    shape = (len(bars), len(dates))
    mats = {k: np.full(shape, np.nan) for k in ("open", "high", "low", "close")}
    for i, b in enumerate(bars):
        cols = np.searchsorted(dates, b.dates)
        for k, m in mats.items():
            m[i, cols] = getattr(b, k)
    return Panel(
        tuple(b.ticker for b in bars),
        dates,
        mats["open"],
        mats["high"],
        mats["low"],
        mats["close"],
        bars[0].source if bars else "",
    )


def bars_from_panel(panel: Panel, row: int) -> Bars:
    """One ticker's bars out of a panel, sessions without a close dropped."""
    keep = ~np.isnan(panel.close[row])
    return Bars(
        ticker=panel.tickers[row],
        dates=panel.dates[keep],
        open=panel.open[row][keep],
        high=panel.high[row][keep],
        low=panel.low[row][keep],
        close=panel.close[row][keep],
        volume=np.zeros(int(keep.sum())),
        source=panel.source,
    )
