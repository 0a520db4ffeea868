"""One week's features of every fund in a price panel: return, beta/alpha, technicals, data quality.

Definitions (``params`` is the strategy's ``PrepParams``; every window ends at or before the week's end,
so a bar after ``week_ending`` never changes a figure):
- week_end: the last session ≤ ``week_ending`` in the panel; week_start: the last session before the
  Monday of week_end's calendar week (a holiday week has 4 sessions). ``pct_return`` (%) = close at
  week_end / close at week_start − 1, × 100; ``spy_weekly_return`` is the same for SPY.
- beta, r_squared: OLS (with intercept) of the fund's daily simple returns on SPY's over the
  ``beta_lookback`` sessions ending at week_start, so the week's own alpha is out of sample; None with
  fewer than min(beta_lookback, 40) paired returns. ``alpha_residual`` = pct_return − beta ×
  spy_weekly_return (percentage points).
- SMA50 / SMA200 of the closes up to week_end; ``price_vs_sma*_pct`` = close / SMA − 1, × 100.
  RSI(``rsi_period``, Wilder), Bollinger bands (``bollinger_period``, ``bollinger_k`` population
  standard deviations) with ``bollinger_position`` = (close − lower) / (upper − lower), and
  ATR(``atr_period``) / close × 100 come from TA-Lib over each fund's bars up to week_end.
- ``volume_ratio`` = mean volume of the week's sessions / mean volume of the ``volume_average_days``
  sessions up to week_start; ``sigma`` = sample standard deviation (ddof=1) of the daily returns over
  the ``sigma_lookback`` sessions to week_end, × 100; ``move_sigmas`` = pct_return / (sigma ×
  √(sessions in the week)); ``avg_dollar_volume`` = mean close × volume over the 20 sessions to week_end.
- Windows use the bars present: a fund needs the whole window of history and ≥ 90 % of its bars (a
  missing day is skipped), else the figure is None.

Exclusions (``WeekFeatures.excluded``, reason → funds): ``no_bar`` (no bar on week_end; outside the
universe), ``short_history`` (fewer than ``min_history`` sessions to week_end), ``no_week_start_bar``,
``bad_tick`` and ``extreme_week`` (see ``data_quality``: those funds are computed, flagged with
``DataFlag`` reasons and kept apart in ``flagged``, never among the rankable ``features``).

Speed: everything but RSI, Bollinger and ATR is computed across the whole matrix at once; TA-Lib runs
per fund. ``week_features`` raises ``ValueError`` when the panel has no session on or before
``week_ending``, none before the week, or no SPY bar at both ends of the week.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta

import numpy as np
import numpy.typing as npt

from findesk.analytics.etf import indicators
from findesk.analytics.etf.data_quality import Window, bad_ticks, extreme_week, suspects
from findesk.analytics.etf.models import DataFlag, EtfFeatures
from findesk.analytics.etf.panel_stats import (
    Index,
    Matrix,
    Vector,
    daily_returns,
    first_bar,
    paired_ols,
    row_std,
    window_mean,
)
from findesk.analytics.etf.params import PrepParams
from findesk.data.models.funds import PricePanel, session_day

BENCHMARK = "SPY"
MIN_BETA_PAIRS = 40
DOLLAR_VOLUME_DAYS = 20
MIN_WINDOW_SHARE = 0.9  # of a window's sessions a fund must have bars on


@dataclass(frozen=True)
class WeekFeatures:
    """The week's features: the rankable funds, the flagged ones apart, and why the rest are out."""

    week_start: date
    week_end: date
    universe: int  # funds with a bar on week_end
    spy: EtfFeatures
    features: list[EtfFeatures]  # rankable funds, in panel order
    flagged: list[EtfFeatures] = field(default_factory=list)  # computed but failed a data-quality check
    data_flags: list[DataFlag] = field(default_factory=list)
    excluded: dict[str, int] = field(default_factory=dict)


def week_bounds(dates: npt.NDArray[np.datetime64], week_ending: date) -> tuple[int, int]:
    """(week_start, week_end) columns of the session axis ``dates`` (ascending ``datetime64[D]``)."""
    end = int(np.searchsorted(dates, np.datetime64(week_ending, "D"), side="right")) - 1
    if end < 0:
        raise ValueError(f"the panel has no session on or before {week_ending}")
    last = session_day(dates[end])
    monday = last - timedelta(days=last.weekday())
    start = int(np.searchsorted(dates, np.datetime64(monday, "D"), side="left")) - 1
    if start < 0:
        raise ValueError(f"the panel has no session before the week of {last}")
    return start, end


def _num(value: float | np.floating) -> float | None:
    number = float(value)
    return number if math.isfinite(number) else None


def _pct_over(numerator: Vector, denominator: Vector) -> Vector:
    with np.errstate(divide="ignore", invalid="ignore"):
        return (numerator / denominator - 1.0) * 100.0


@dataclass(frozen=True)
class _Matrixwise:
    """The figures computed across all funds at once (vectors over the panel's rows)."""

    pct: Vector
    beta: Vector
    r_squared: Vector
    sma50: Vector
    sma200: Vector
    volume_ratio: Vector
    sigma: Vector
    dollar_volume: Vector


def _matrixwise(
    panel: PricePanel,
    start: int,
    end: int,
    first: Index,
    returns: Matrix,
    lo: int,
    spy: int,
    params: PrepParams,
) -> _Matrixwise:
    close = panel.close
    pct = _pct_over(close[:, end], close[:, start])
    beta_from = max(lo, start - params.beta_lookback + 1)
    beta_window = returns[:, beta_from - lo : start - lo + 1]
    beta, r_squared, _ = paired_ols(beta_window, beta_window[spy], min(params.beta_lookback, MIN_BETA_PAIRS))
    week_sessions = end - start
    week_volume = window_mean(panel.volume, end, week_sessions, first, MIN_WINDOW_SHARE)
    base_volume = window_mean(panel.volume, start, params.volume_average_days, first, MIN_WINDOW_SHARE)
    with np.errstate(divide="ignore", invalid="ignore"):
        volume_ratio = np.where(base_volume > 0, week_volume / base_volume, np.nan)
    sigma_window = returns[:, max(0, end - params.sigma_lookback + 1 - lo) :]
    sigma = row_std(sigma_window, math.ceil(MIN_WINDOW_SHARE * params.sigma_lookback)) * 100.0
    dv_from = max(0, end - DOLLAR_VOLUME_DAYS + 1)
    dollars = close[:, dv_from : end + 1] * panel.volume[:, dv_from : end + 1]
    return _Matrixwise(
        pct=pct,
        beta=beta,
        r_squared=r_squared,
        sma50=window_mean(close, end, 50, first, MIN_WINDOW_SHARE),
        sma200=window_mean(close, end, 200, first, MIN_WINDOW_SHARE),
        volume_ratio=volume_ratio,
        sigma=sigma,
        dollar_volume=window_mean(
            dollars, end - dv_from, DOLLAR_VOLUME_DAYS, first - dv_from, MIN_WINDOW_SHARE
        ),
    )


@dataclass(frozen=True)
class _Week:
    start: date
    end: date
    end_col: int
    sessions_in_week: int
    history: Index  # sessions of history to week_end, per fund
    spy_return: float
    names: Mapping[str, str]


def _fund(panel: PricePanel, row: int, week: _Week, m: _Matrixwise, params: PrepParams) -> EtfFeatures:
    """One fund's features: the matrix-wide figures of its row plus its TA-Lib indicators."""
    stop = week.end_col + 1
    closes = panel.close[row, :stop]
    close = float(closes[-1])
    upper, _, lower = indicators.bollinger(closes, params.bollinger_period, params.bollinger_k)
    up, low = indicators.last_value(upper), indicators.last_value(lower)
    atr = indicators.last_value(
        indicators.atr(panel.high[row, :stop], panel.low[row, :stop], closes, params.atr_period)
    )
    pct = float(m.pct[row])
    beta = _num(m.beta[row])
    sigma = _num(m.sigma[row])
    sma50, sma200 = _num(m.sma50[row]), _num(m.sma200[row])
    return EtfFeatures(
        symbol=panel.tickers[row],
        name=week.names.get(panel.tickers[row]),
        week_start=week.start,
        week_end=week.end,
        sessions=int(week.history[row]),
        close=close,
        pct_return=pct,
        spy_weekly_return=week.spy_return,
        beta=beta,
        r_squared=_num(m.r_squared[row]),
        alpha_residual=None if beta is None else pct - beta * week.spy_return,
        sma_50=sma50,
        sma_200=sma200,
        price_vs_sma50_pct=None if sma50 is None else (close / sma50 - 1.0) * 100.0,
        price_vs_sma200_pct=None if sma200 is None else (close / sma200 - 1.0) * 100.0,
        rsi_14=indicators.last_value(indicators.rsi(closes, params.rsi_period)),
        bollinger_position=None if up is None or low is None or up <= low else (close - low) / (up - low),
        volume_ratio=_num(m.volume_ratio[row]),
        atr_pct=None if atr is None else atr / close * 100.0,
        sigma=sigma,
        move_sigmas=None if not sigma else pct / (sigma * math.sqrt(week.sessions_in_week)),
        avg_dollar_volume=_num(m.dollar_volume[row]),
    )


def _count(excluded: dict[str, int], reason: str) -> None:
    excluded[reason] = excluded.get(reason, 0) + 1


def week_features(
    panel: PricePanel, week_ending: date, params: PrepParams, names: Mapping[str, str] | None = None
) -> WeekFeatures:
    """Every fund's features for the week ending on or before ``week_ending`` (see the module rules)."""
    start, end = week_bounds(panel.dates, week_ending)
    spy = panel.row(BENCHMARK)
    if spy is None or not (math.isfinite(panel.close[spy, end]) and math.isfinite(panel.close[spy, start])):
        raise ValueError(f"{BENCHMARK} has no bar at both ends of the week to {panel.day(end)}")
    close = panel.close[:, : end + 1]
    first = first_bar(close)
    history = np.isfinite(close).sum(axis=1)
    lookback = params.beta_lookback
    # the first return any window reads: beta's, sigma's, or the context regressions of the bad-tick window
    lo = max(
        1,
        min(
            start - lookback + 1,
            end - params.bad_tick_window + 1 - lookback,
            end - params.sigma_lookback + 1,
        ),
    )
    returns = daily_returns(close, lo, end)
    m = _matrixwise(panel, start, end, first, returns, lo, spy, params)
    week = _Week(
        start=panel.day(start),
        end=panel.day(end),
        end_col=end,
        sessions_in_week=end - start,
        history=history,
        spy_return=float(m.pct[spy]),
        names=names or {},
    )
    window = Window(
        returns=returns,
        splits=panel.splits[:, lo : end + 1],
        dates=[str(day)[:10] for day in panel.dates[lo : end + 1]],
        tickers=panel.tickers,
        spy=spy,
        lookback=lookback,
        threshold=params.bad_tick_move_pct / 100.0,
    )
    suspect = set(suspects(window, params.bad_tick_window).tolist())
    week_moves = m.pct / 100.0  # once, not per fund: extreme_week reads every fund's week (the peers)
    has_bar = np.isfinite(close[:, end])
    excluded: dict[str, int] = {}
    features: list[EtfFeatures] = []
    flagged: list[EtfFeatures] = []
    data_flags: list[DataFlag] = []
    for row, symbol in enumerate(panel.tickers):
        if not has_bar[row]:
            _count(excluded, "no_bar")
            continue
        if history[row] < params.min_history:
            _count(excluded, "short_history")
            continue
        if not math.isfinite(close[row, start]):
            _count(excluded, "no_week_start_bar")
            continue
        reasons = bad_ticks(window, row, params.bad_tick_window) if row in suspect else []
        if not reasons:
            week_flag = extreme_week(window, row, start - lo, week_moves)
            reasons = [week_flag] if week_flag else []
        fund = _fund(panel, row, week, m, params)
        if reasons:
            _count(excluded, reasons[0].split(":", 1)[0])
            data_flags.extend(DataFlag(symbol=symbol, reason=reason) for reason in reasons)
            flagged.append(fund.model_copy(update={"flags": reasons}))
        else:
            features.append(fund)
    spy_features = next((f for f in (*features, *flagged) if f.symbol == BENCHMARK), None)
    if spy_features is None:
        raise ValueError(f"{BENCHMARK} has too little history for the week to {week.end}")
    return WeekFeatures(
        week_start=week.start,
        week_end=week.end,
        universe=int(has_bar.sum()),
        spy=spy_features,
        features=features,
        flagged=flagged,
        data_flags=data_flags,
        excluded=excluded,
    )
