"""The market analyst's technicals: one stock's indicators on its last session at or before the run's
date, and the scored signals the desk reads from them.

Indicators (TA-Lib's definitions, over the daily bars up to ``until``; bars after it are dropped here
as well, so a caller that hands in later bars still gets the run's date):
- SMA 50 and 200 (plain means), EMA 10, MACD (12, 26, 9: line, signal, histogram), RSI 14 and
  ATR 14 (Wilder's smoothing), Bollinger bands (20, ±2 population standard deviations), VWMA 20
  (Σ close·volume / Σ volume over the last 20 sessions), OBV's 20-session change relative to the
  20 sessions' volume (Σ ±volume / Σ volume × 100: +100 when every session closed up), the 1-month
  (21-session) return, and ATR as a percent of the close.
- A figure needs its full window (200 sessions for SMA 200, 34 for MACD's signal line, 21 for the
  OBV change …); with fewer bars it is ``None``, never 0. Values are rounded to 4 decimals.

Signal scoring (``technical_signals``; ids ``market.<key>``, score in [-2, +2], weight in brackets):
- ``trend`` [1.5]: +1 for each of SMA50 and SMA200 the close is above, -1 for each it is below
  (SMA200 counts only when known).
- ``macd`` [1.0]: histogram > 0 → +1 (momentum up), < 0 → -1.
- ``rsi`` [1.0]: ≥ 70 → -1 (overbought), ≤ 30 → +1 (oversold), 55–70 → +0.5 (firm momentum),
  30–45 → -0.5 (weak momentum), otherwise 0.
- ``bollinger`` [0.75]: %b > 1 (above the upper band) → -1 (stretched), %b < 0 → +1, otherwise 0.
- ``obv`` [0.75]: 20-session OBV change ≥ +20 % of volume → +1 (accumulation), ≤ -20 % → -1
  (distribution), otherwise 0.
- ``vwma`` [0.5]: close above VWMA20 → +1, below → -1.
- ``volatility``: ATR ≥ ``HIGH_VOL_ATR_PCT`` % of the close → -0.5 [0.5] (wide swings: wider stops,
  smaller size); calmer → 0 [0], stated for the trader but not scored.
A figure that is unknown leaves its signal out (the report says which are missing).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date
from typing import Literal

import numpy as np
import numpy.typing as npt
import talib
from pydantic import BaseModel, ConfigDict

from findesk.analytics.etf import indicators
from findesk.analytics.trading.signals import Signal
from findesk.data.models import PriceBar

Array = npt.NDArray[np.float64]

SMA_FAST, SMA_SLOW, EMA_PERIOD = 50, 200, 10
MACD_FAST, MACD_SLOW, MACD_SIGNAL = 12, 26, 9
RSI_PERIOD, ATR_PERIOD, BOLL_PERIOD, BOLL_K = 14, 14, 20, 2.0
VWMA_PERIOD, OBV_PERIOD, MONTH_SESSIONS = 20, 20, 21
HIGH_VOL_ATR_PCT = 4.0  # the same line as ``RiskParams.high_vol_atr_pct``
_DIGITS = 4
# the windows above by name: a tool result carries them, so "RSI(14)" or "MACD(12,26,9)" traces
PERIODS: dict[str, float] = {
    "sma_fast": SMA_FAST,
    "sma_slow": SMA_SLOW,
    "ema": EMA_PERIOD,
    "macd_fast": MACD_FAST,
    "macd_slow": MACD_SLOW,
    "macd_signal": MACD_SIGNAL,
    "rsi": RSI_PERIOD,
    "atr": ATR_PERIOD,
    "bollinger": BOLL_PERIOD,
    "bollinger_k": BOLL_K,
    "vwma": VWMA_PERIOD,
    "obv": OBV_PERIOD,
    "month_sessions": MONTH_SESSIONS,
    "high_vol_atr_pct": HIGH_VOL_ATR_PCT,
}


class Technicals(BaseModel):
    """One stock's technicals on its last session at or before the run's date (see module rules)."""

    model_config = ConfigDict(extra="forbid")

    session: date  # the last session at or before the run's date
    close: float
    open: float | None = None
    high: float | None = None
    low: float | None = None
    volume: int | None = None
    return_1m_pct: float | None = None
    sma_50: float | None = None
    sma_200: float | None = None
    ema_10: float | None = None
    macd: float | None = None
    macd_signal: float | None = None
    macd_hist: float | None = None
    rsi_14: float | None = None
    boll_upper: float | None = None
    boll_middle: float | None = None
    boll_lower: float | None = None
    atr_14: float | None = None
    atr_pct: float | None = None
    vwma_20: float | None = None
    obv_change_20d_pct: float | None = None  # OBV's 20-session change relative to 20-day volume, %
    sessions: int  # sessions of history used
    # derived figures the signals state, kept here so every number in a signal's line is a tool value
    close_vs_sma50_pct: float | None = None
    close_vs_sma200_pct: float | None = None
    close_vs_vwma_pct: float | None = None
    boll_pct_b: float | None = None  # (close - lower) / (upper - lower): 0 at the lower band, 1 at the upper
    # price levels as a trader saw them on ``session``: "as_traded" when the adjusted bars were rescaled
    # by ``level_factor`` (the as-traded close / the adjusted close of that session), else "adjusted"
    levels: Literal["adjusted", "as_traded"] = "adjusted"
    level_factor: float = 1.0


_LEVEL_FIELDS = (
    "close", "open", "high", "low", "sma_50", "sma_200", "ema_10", "macd", "macd_signal", "macd_hist",
    "boll_upper", "boll_middle", "boll_lower", "atr_14", "vwma_20",
)  # fmt: skip


def as_traded(t: Technicals, traded_close: float, traded_volume: int | None = None) -> Technicals:
    """``t`` with its price levels rescaled to what traded on its session: every level (prices, averages,
    bands, ATR, MACD: all linear in price) × traded close / adjusted close, volume ÷ the same factor;
    percentages, RSI, %b and OBV's relative change do not depend on the level and stay. The session's
    as-traded volume, when given, is used as it is (the adjusted volume ÷ factor drifts with dividends).
    Adjusted bars carry later splits (NVDA's 10-for-1 of June 2024 makes its 2024-05-10 close 89.83
    instead of the 898.78 that traded), so a plan priced on them would name levels nobody could trade
    at that date."""
    if t.close <= 0 or traded_close <= 0:
        return t
    factor = traded_close / t.close
    if abs(factor - 1.0) < 1e-6:
        return t.model_copy(update={"levels": "as_traded"})
    update: dict[str, object] = {
        f: _round(v * factor) for f in _LEVEL_FIELDS if (v := getattr(t, f)) is not None
    }
    update["close"] = _round(traded_close)
    if traded_volume is not None:
        update["volume"] = traded_volume
    elif t.volume is not None:
        update["volume"] = round(t.volume / factor)
    return t.model_copy(update={**update, "levels": "as_traded", "level_factor": round(factor, 6)})


def _round(value: float | None) -> float | None:
    if value is None or not math.isfinite(value):
        return None
    return round(float(value), _DIGITS)


def _last(values: Array) -> float | None:
    return _round(indicators.last_value(values))


def _pct(a: float | None, b: float | None) -> float | None:
    """a vs b in percent."""
    if a is None or b is None or b == 0:
        return None
    return _round((a / b - 1.0) * 100.0)


def _array(values: Sequence[float | None]) -> Array:
    return np.array([math.nan if v is None else float(v) for v in values], dtype=np.float64)


def _macd(close: Array) -> tuple[float | None, float | None, float | None]:
    if len(close) < MACD_SLOW + MACD_SIGNAL - 1:
        return None, None, None
    line, signal, hist = talib.MACD(
        close, fastperiod=MACD_FAST, slowperiod=MACD_SLOW, signalperiod=MACD_SIGNAL
    )
    return _last(line), _last(signal), _last(hist)


def _ema(close: Array) -> float | None:
    return _last(talib.EMA(close, timeperiod=EMA_PERIOD)) if len(close) >= EMA_PERIOD else None


def _vwma(close: Array, volume: Array) -> float | None:
    c, v = close[-VWMA_PERIOD:], volume[-VWMA_PERIOD:]
    if len(c) < VWMA_PERIOD or not np.isfinite(v).all() or v.sum() <= 0:
        return None
    return _round(float((c * v).sum() / v.sum()))


def _obv_change(close: Array, volume: Array) -> float | None:
    # OBV's change over the window does not depend on where OBV starts: TA-Lib over the last 21 bars
    c, v = close[-(OBV_PERIOD + 1) :], volume[-(OBV_PERIOD + 1) :]
    if len(c) < OBV_PERIOD + 1 or not np.isfinite(v).all() or v[1:].sum() <= 0:
        return None
    obv = talib.OBV(np.ascontiguousarray(c), np.ascontiguousarray(v))
    return _round(float((obv[-1] - obv[0]) / v[1:].sum() * 100.0))


def technicals(bars: Sequence[PriceBar], until: date) -> Technicals | None:
    """The technicals on the last bar dated on or before ``until``; None without such a bar."""
    kept = sorted((b for b in bars if b.date <= until), key=lambda b: b.date)
    if not kept:
        return None
    close = _array([b.close for b in kept])
    high, low = _array([b.high for b in kept]), _array([b.low for b in kept])
    volume = _array([None if b.volume is None else float(b.volume) for b in kept])
    last = kept[-1]
    upper, middle, lower = indicators.bollinger(close, BOLL_PERIOD, BOLL_K)
    atr = _last(indicators.atr(high, low, close, ATR_PERIOD))
    macd, macd_signal, macd_hist = _macd(close)
    sma50 = _last(indicators.sma(close, SMA_FAST))
    sma200 = _last(indicators.sma(close, SMA_SLOW))
    vwma = _vwma(close, volume)
    up, low_band = _last(upper), _last(lower)
    pct_b = (
        _round((last.close - low_band) / (up - low_band))
        if up is not None and low_band is not None and up > low_band
        else None
    )
    month_ago = float(close[-MONTH_SESSIONS - 1]) if len(close) > MONTH_SESSIONS else None
    return Technicals(
        session=last.date,
        close=round(last.close, _DIGITS),
        open=_round(last.open),
        high=_round(last.high),
        low=_round(last.low),
        volume=last.volume,
        return_1m_pct=_pct(last.close, month_ago),
        sma_50=sma50,
        sma_200=sma200,
        ema_10=_ema(close),
        macd=macd,
        macd_signal=macd_signal,
        macd_hist=macd_hist,
        rsi_14=_last(indicators.rsi(close, RSI_PERIOD)),
        boll_upper=up,
        boll_middle=_last(middle),
        boll_lower=low_band,
        atr_14=atr,
        atr_pct=None if atr is None else _round(atr / last.close * 100.0),
        vwma_20=vwma,
        obv_change_20d_pct=_obv_change(close, volume),
        sessions=len(kept),
        close_vs_sma50_pct=_pct(last.close, sma50),
        close_vs_sma200_pct=_pct(last.close, sma200),
        close_vs_vwma_pct=_pct(last.close, vwma),
        boll_pct_b=pct_b,
    )


# --- signals ---------------------------------------------------------------------------------------


def _signal(key: str, text: str, score: float, weight: float) -> Signal:
    return Signal(id=f"market.{key}", analyst="market", text=text, score=score, weight=weight)


def _side(close: float, average: float, gap: float | None, name: str) -> tuple[int, str]:
    word = "above" if close > average else "below" if close < average else "at"
    vote = 1 if close > average else -1 if close < average else 0
    return vote, f"{word} {name} {average:.2f}" + (f" ({gap:+.2f}%)" if gap is not None else "")


def _trend(t: Technicals) -> Signal | None:
    if t.sma_50 is None:
        return None
    vote, text = _side(t.close, t.sma_50, t.close_vs_sma50_pct, "SMA50")
    parts = [text]
    if t.sma_200 is not None:
        vote200, text200 = _side(t.close, t.sma_200, t.close_vs_sma200_pct, "SMA200")
        vote += vote200
        parts.append(text200)
    else:
        parts.append(f"SMA200 unknown ({t.sessions} sessions of history)")
    verdict = "uptrend" if vote > 0 else "downtrend" if vote < 0 else "mixed trend"
    return _signal("trend", f"close {t.close:.2f} {' and '.join(parts)}: {verdict}", float(vote), 1.5)


def _macd_signal(t: Technicals) -> Signal | None:
    if t.macd_hist is None or t.macd is None or t.macd_signal is None:
        return None
    score = 1.0 if t.macd_hist > 0 else -1.0 if t.macd_hist < 0 else 0.0
    verdict = "momentum up" if score > 0 else "momentum down" if score < 0 else "flat momentum"
    text = (
        f"MACD(12,26,9) {t.macd:.2f} vs signal {t.macd_signal:.2f}, histogram {t.macd_hist:+.2f}: {verdict}"
    )
    return _signal("macd", text, score, 1.0)


def _rsi(t: Technicals) -> Signal | None:
    if t.rsi_14 is None:
        return None
    r = t.rsi_14
    if r >= 70:
        score, verdict = -1.0, "overbought"
    elif r <= 30:
        score, verdict = 1.0, "oversold"
    elif r >= 55:
        score, verdict = 0.5, "firm momentum"
    elif r <= 45:
        score, verdict = -0.5, "weak momentum"
    else:
        score, verdict = 0.0, "neutral"
    return _signal("rsi", f"RSI(14) {r:.2f}: {verdict}", score, 1.0)


def _bollinger(t: Technicals) -> Signal | None:
    if t.boll_pct_b is None or t.boll_upper is None or t.boll_lower is None:
        return None
    b = t.boll_pct_b
    if b > 1:
        score, verdict = -1.0, "above the upper band, stretched"
    elif b < 0:
        score, verdict = 1.0, "below the lower band, stretched down"
    else:
        score, verdict = 0.0, "inside the bands"
    text = (
        f"Bollinger(20,2) {t.boll_lower:.2f}-{t.boll_upper:.2f}, close {t.close:.2f} at %b {b:.2f}: {verdict}"
    )
    return _signal("bollinger", text, score, 0.75)


def _obv(t: Technicals) -> Signal | None:
    if t.obv_change_20d_pct is None:
        return None
    o = t.obv_change_20d_pct
    score, verdict = (
        (1.0, "accumulation") if o >= 20 else (-1.0, "distribution") if o <= -20 else (0.0, "balanced")
    )
    return _signal("obv", f"OBV 20-session change {o:+.2f}% of the period's volume: {verdict}", score, 0.75)


def _vwma_signal(t: Technicals) -> Signal | None:
    if t.vwma_20 is None:
        return None
    vote, text = _side(t.close, t.vwma_20, t.close_vs_vwma_pct, "VWMA20")
    verdict = "buyers in control" if vote > 0 else "sellers in control" if vote < 0 else "balanced"
    return _signal("vwma", f"close {t.close:.2f} {text}: {verdict}", float(vote), 0.5)


def _volatility(t: Technicals) -> Signal | None:
    if t.atr_14 is None or t.atr_pct is None:
        return None
    high = t.atr_pct >= HIGH_VOL_ATR_PCT
    verdict = "high volatility, wider stops and smaller size" if high else "ordinary volatility"
    text = f"ATR(14) {t.atr_14:.2f} ({t.atr_pct:.2f}% of the close): {verdict}"
    return _signal("volatility", text, -0.5 if high else 0.0, 0.5 if high else 0.0)


def technical_signals(t: Technicals) -> list[Signal]:
    """The scored signals of one stock's technicals (rules in the module docstring)."""
    rules = (_trend, _macd_signal, _rsi, _bollinger, _obv, _vwma_signal, _volatility)
    return [s for rule in rules if (s := rule(t)) is not None]


def missing_figures(t: Technicals) -> list[str]:
    """The indicators that could not be computed (too little history or no volume), for the warnings."""
    names = {
        "sma_200": "SMA200",
        "sma_50": "SMA50",
        "macd_hist": "MACD",
        "rsi_14": "RSI(14)",
        "boll_pct_b": "Bollinger",
        "atr_14": "ATR(14)",
        "vwma_20": "VWMA20",
        "obv_change_20d_pct": "OBV change",
    }
    return [label for field, label in names.items() if getattr(t, field) is None]
