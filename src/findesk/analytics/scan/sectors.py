"""Sector performance: the 11 Select Sector SPDRs and four index ETFs over 1W / 1M / 3M / YTD.

Rules (pure: an adjusted price panel in, a ``SectorBoard`` out; no I/O, no clock):
- ``SECTOR_SPDRS`` is the one table mapping a Select Sector SPDR to its GICS sector name (and back:
  ``sector_etf``); ``INDEX_ETFS`` names SPY, QQQ, DIA and IWM.
- The session is the panel's last session (the vendor puts none after the run's date). A fund without
  a bar that session has no close and no returns (None, with a warning), never a stale close.
- Returns are percent changes of adjusted closes (splits and dividends folded in), over the fund's own
  bars: 1W = the close ``WINDOW_SESSIONS["1W"]`` = 5 bars back, 1M = 21, 3M = 63; YTD = from the last
  close of the prior calendar year. A window longer than the fund's history is None. Rounded to 2
  decimals, the figure every summary then quotes.
- Ranking (sectors only): by 1M return, best first; ties by 3M (a missing 3M last), then ticker.
  ``rank_1m`` is 1 for the best; ``leaders`` are the first ``LEADERS`` of that order, ``laggards`` the
  last ``LEADERS``, worst first. A sector without a 1M return is not ranked.
- ``top_sectors(board, n)`` is the workflow's choice of sectors for the deep dive: the first ``n``
  ranked sector ETF tickers (the leaders' order, not limited to ``LEADERS``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta
from typing import Literal

import numpy as np

from findesk.analytics.scan.models import WINDOWS, FundPerf, SectorBoard, Window
from findesk.data.models.funds import PricePanel

# Select Sector SPDR -> GICS sector (the one table; industries and the topic map read it)
SECTOR_SPDRS: dict[str, str] = {
    "XLB": "Materials",
    "XLC": "Communication Services",
    "XLE": "Energy",
    "XLF": "Financials",
    "XLI": "Industrials",
    "XLK": "Information Technology",
    "XLP": "Consumer Staples",
    "XLRE": "Real Estate",
    "XLU": "Utilities",
    "XLV": "Health Care",
    "XLY": "Consumer Discretionary",
}
INDEX_ETFS: dict[str, str] = {
    "SPY": "S&P 500",
    "QQQ": "Nasdaq-100",
    "DIA": "Dow Jones Industrial Average",
    "IWM": "Russell 2000",
}
WINDOW_SESSIONS: dict[Window, int] = {"1W": 5, "1M": 21, "3M": 63}
LEADERS = 3
HISTORY_DAYS = 130  # calendar days read before the session: 63 sessions with holidays to spare


def sector_etf(name_or_ticker: str) -> tuple[str, str] | None:
    """(ETF, GICS sector) for a Select Sector SPDR ticker or a GICS sector name (case folded), or None."""
    key = name_or_ticker.strip()
    if key.upper() in SECTOR_SPDRS:
        return key.upper(), SECTOR_SPDRS[key.upper()]
    for etf, sector in SECTOR_SPDRS.items():
        if sector.lower() == key.lower():
            return etf, sector
    return None


def panel_start(session: date) -> date:
    """The first day a panel must hold for every window of ``session``: 3M and the prior year's end."""
    return min(session - timedelta(days=HISTORY_DAYS), date(session.year - 1, 12, 1))


def _pct(now: float, then: float) -> float | None:
    if not (np.isfinite(now) and np.isfinite(then)) or then <= 0:
        return None
    return round((now / then - 1.0) * 100.0, 2)


def window_returns(
    dates: Sequence[date], closes: Sequence[float], session: date
) -> tuple[float | None, dict[Window, float | None]]:
    """(close at ``session``, returns by window) over one fund's bars (NaN = no bar), module rules."""
    bars = [(d, c) for d, c in zip(dates, closes, strict=True) if np.isfinite(c)]
    if not bars or bars[-1][0] != session:
        return None, dict.fromkeys(WINDOWS)
    now = bars[-1][1]
    out: dict[Window, float | None] = {}
    for window, n in WINDOW_SESSIONS.items():
        out[window] = _pct(now, bars[-1 - n][1]) if len(bars) > n else None
    prior = [c for d, c in bars if d.year < session.year]
    out["YTD"] = _pct(now, prior[-1]) if prior else None
    return round(now, 4), out


def _rank_key(f: FundPerf) -> tuple[float, float, str]:
    one, three = f.returns.get("1M"), f.returns.get("3M")
    return (-(one if one is not None else 0.0), -three if three is not None else float("inf"), f.ticker)


def ranked(sectors: Sequence[FundPerf]) -> list[FundPerf]:
    """Sectors with a 1M return, best first (module ranking)."""
    return sorted((f for f in sectors if f.returns.get("1M") is not None), key=_rank_key)


def sector_board(panel: PricePanel, *, sources: Sequence[str] = ()) -> SectorBoard | None:
    """The board at the panel's last session, or None when the panel has no session."""
    if len(panel.dates) == 0:
        return None
    dates = [panel.day(i) for i in range(len(panel.dates))]
    session = dates[-1]
    warnings: list[str] = []

    def perf(ticker: str, name: str, kind: Literal["sector", "index"]) -> FundPerf:
        row = panel.row(ticker)
        if row is None:
            warnings.append(f"{ticker} ({name}) is not in the price panel: no figures")
            return FundPerf(ticker=ticker, name=name, kind=kind, returns=dict.fromkeys(WINDOWS))
        close, returns = window_returns(dates, [float(x) for x in panel.close[row]], session)
        if close is None:
            warnings.append(f"{ticker} ({name}) has no bar on {session.isoformat()}: no figures")
        else:
            short = [w for w, v in returns.items() if v is None]
            if short:
                warnings.append(f"{ticker} ({name}): not enough history for {', '.join(short)}")
        return FundPerf(ticker=ticker, name=name, kind=kind, close=close, returns=returns)

    sectors = [perf(t, n, "sector") for t, n in SECTOR_SPDRS.items()]
    indexes = [perf(t, n, "index") for t, n in INDEX_ETFS.items()]
    order = ranked(sectors)
    ranks = {f.ticker: i + 1 for i, f in enumerate(order)}
    sectors = [f.model_copy(update={"rank_1m": ranks.get(f.ticker)}) for f in sectors]
    if panel.adjusted:
        warnings.append(
            "closes are split- and dividend-adjusted as recorded, so a fund's close may differ from the "
            "price it traded at that day; returns are unaffected"
        )
    return SectorBoard(
        session=session,
        sectors=sectors,
        indexes=indexes,
        leaders=[f.ticker for f in order[:LEADERS]],
        laggards=[f.ticker for f in reversed(order[-LEADERS:])] if order else [],
        sources=list(sources),
        warnings=warnings,
    )


def top_sectors(board: SectorBoard, n: int = 3) -> list[str]:
    """The ``n`` best-ranked sector ETF tickers (by 1M, then 3M), for the industry deep dive."""
    return [f.ticker for f in ranked(board.sectors)[:n]]
