"""The sector ETF a stock is measured against, and its return against that ETF over fixed windows.

Pure: names and closes come in as arguments; nothing is read here.

Rules:
- A GICS sector maps to its Select Sector SPDR (Information Technology → XLK …, ``GICS_SECTOR_ETF``);
  the Nasdaq listing directory's sector names, used when a company is not in the S&P 500 list, map to
  the same funds (``NASDAQ_SECTOR_ETF``: Technology → XLK, Finance → XLF, Telecommunications → XLC …).
  A name in neither table (Nasdaq's "Miscellaneous", an empty sector) has no ETF: never a guess.
- Windows are calendar offsets from the last session on or before ``as_of`` (the *end*): 1W = 7 days,
  1M / 3M / 6M = 1 / 3 / 6 calendar months (day clamped to the month's length); the window's start
  close is the last close on or before that date. YTD starts at the last close of the previous year.
- Stock and ETF are read at the same two dates (each one's last close on or before them), so both
  returns span the same days. A window whose start precedes either series' first bar is left out,
  never shortened.
- Returns are ``close_end / close_start - 1`` in percent, and alpha is stock minus ETF in percentage
  points. Closes must be adjusted on one basis per series (splits and dividends), so returns across
  a split (the SPDRs' 2-for-1 of 2025-12-05) stay right.
"""

from __future__ import annotations

import bisect
import calendar
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict

Window = Literal["1W", "1M", "3M", "6M", "YTD"]
WINDOWS: tuple[Window, ...] = ("1W", "1M", "3M", "6M", "YTD")
_MONTHS: dict[Window, int] = {"1M": 1, "3M": 3, "6M": 6}

GICS_SECTOR_ETF: dict[str, str] = {
    "Information Technology": "XLK",
    "Health Care": "XLV",
    "Financials": "XLF",
    "Consumer Discretionary": "XLY",
    "Consumer Staples": "XLP",
    "Energy": "XLE",
    "Industrials": "XLI",
    "Materials": "XLB",
    "Utilities": "XLU",
    "Real Estate": "XLRE",
    "Communication Services": "XLC",
}
NASDAQ_SECTOR_ETF: dict[str, str] = {
    "Technology": "XLK",
    "Health Care": "XLV",
    "Finance": "XLF",
    "Consumer Discretionary": "XLY",
    "Consumer Staples": "XLP",
    "Energy": "XLE",
    "Industrials": "XLI",
    "Basic Materials": "XLB",
    "Utilities": "XLU",
    "Real Estate": "XLRE",
    "Telecommunications": "XLC",
}

Closes = Sequence[tuple[date, float]]


class RelativePerf(BaseModel):
    """One window's returns vs the sector ETF (``agents.roles.trading.models`` re-exports it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    window: Window
    start: date  # the session the window is measured from
    stock_pct: float
    etf_pct: float
    alpha_pp: float


def sector_etf(sector: str | None) -> str | None:
    """The Select Sector SPDR of a GICS or Nasdaq-directory sector name, or None when it has none."""
    if not sector:
        return None
    name = sector.strip()
    return GICS_SECTOR_ETF.get(name) or NASDAQ_SECTOR_ETF.get(name)


def months_before(day: date, months: int) -> date:
    """The same day ``months`` calendar months earlier, clamped to that month's last day."""
    index = day.year * 12 + day.month - 1 - months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(day.day, last))


def window_start(window: Window, end: date) -> date:
    """The calendar date a window reaches back to from its end session (its close is read at or before)."""
    if window == "1W":
        return end - timedelta(days=7)
    if window == "YTD":
        return date(end.year - 1, 12, 31)
    return months_before(end, _MONTHS[window])


def close_at(closes: Closes, day: date) -> tuple[date, float] | None:
    """The last (session, close) on or before ``day`` from closes sorted by date, or None."""
    days = [d for d, _ in closes]
    i = bisect.bisect_right(days, day)
    return closes[i - 1] if i else None


def pct_change(start: float, end: float) -> float:
    return (end / start - 1.0) * 100.0


def relative_performance(stock: Closes, etf: Closes, as_of: date) -> list[RelativePerf]:
    """Stock and ETF returns and the alpha per window, ending at the stock's last session ≤ ``as_of``."""
    stock_s = sorted((d, c) for d, c in stock if d <= as_of and c > 0)
    etf_s = sorted((d, c) for d, c in etf if d <= as_of and c > 0)
    if not stock_s or not etf_s:
        return []
    end_day, stock_end = stock_s[-1]
    etf_at_end = close_at(etf_s, end_day)
    if etf_at_end is None:
        return []
    out: list[RelativePerf] = []
    for window in WINDOWS:
        reach = window_start(window, end_day)
        s0, e0 = close_at(stock_s, reach), close_at(etf_s, reach)
        if s0 is None or e0 is None:
            continue  # the series does not reach back that far: no shortened window
        stock_pct = pct_change(s0[1], stock_end)
        etf_pct = pct_change(e0[1], etf_at_end[1])
        out.append(
            RelativePerf(
                window=window,
                start=s0[0],
                stock_pct=stock_pct,
                etf_pct=etf_pct,
                alpha_pp=stock_pct - etf_pct,
            )
        )
    return out
