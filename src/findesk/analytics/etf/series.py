"""A candidate's chart data: closes with SMA50/200 and the Bollinger bands up to the week's end.

Rules: the same indicators (TA-Lib, ``analytics.etf.indicators``) and parameters as the features, over
the fund's whole history in the panel up to ``week_end`` (never after it), then the last ``sessions``
sessions with a bar; an average that needs more history than there is reads None. Pure.
"""

from __future__ import annotations

import math
from datetime import date

import numpy as np

from findesk.analytics.etf import indicators
from findesk.analytics.etf.models import PriceSeries
from findesk.analytics.etf.params import PrepParams
from findesk.data.models.funds import PricePanel, session_day

SESSIONS = 130


def _opt(value: float) -> float | None:
    return round(float(value), 4) if math.isfinite(value) else None


def price_series(
    panel: PricePanel, symbol: str, week_end: date, params: PrepParams, sessions: int = SESSIONS
) -> PriceSeries:
    row = panel.row(symbol)
    end = int(np.searchsorted(panel.dates, np.datetime64(week_end, "D"), side="right"))
    if row is None or end == 0:
        return PriceSeries(
            symbol=symbol, dates=[], close=[], sma_50=[], sma_200=[], upper_band=[], lower_band=[]
        )
    close = np.asarray(panel.close[row, :end], dtype=np.float64)
    sma50 = indicators.sma(close, 50)
    sma200 = indicators.sma(close, 200)
    upper, _middle, lower = indicators.bollinger(close, params.bollinger_period, params.bollinger_k)
    keep = np.flatnonzero(np.isfinite(close))[-sessions:]
    return PriceSeries(
        symbol=symbol,
        dates=[session_day(d) for d in panel.dates[:end][keep]],
        close=[round(float(c), 4) for c in close[keep]],
        sma_50=[_opt(v) for v in sma50[keep]],
        sma_200=[_opt(v) for v in sma200[keep]],
        upper_band=[_opt(v) for v in upper[keep]],
        lower_band=[_opt(v) for v in lower[keep]],
    )
