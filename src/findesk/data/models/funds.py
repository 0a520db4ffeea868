"""Fund data: the ETF universe as one price panel, and each fund's descriptive profile.

Rules:
- ``PricePanel`` is a matrix view (tickers × sessions) of one adjusted price file, for computations
  over a whole universe at once; it is a frozen dataclass of numpy arrays, not a pydantic model (a
  universe is ~1,670 × 1,250 bars, too many for per-bar objects). Point in time by construction: the
  vendor never puts a session after ``as_of`` in it. A missing bar is NaN. Its arrays may be views of
  a matrix shared by every panel of the process, so they are read-only: copy before writing.
- ``FundProfile`` is what a fund says about itself (name, category, family, size). Its ``recorded_on``
  says when the profile was recorded, which may be after a run's as-of date: names and categories are
  stable, but sizes and flows recorded later must not be used to choose a past week's candidates.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from functools import cached_property

import numpy as np
import numpy.typing as npt

from findesk.data.models.base import DataModel, Source

Matrix = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class PricePanel:
    """Adjusted daily OHLCV of many tickers on one session axis.

    ``dates``: the sessions, ascending (``datetime64[D]``), none after the as-of date.
    ``open``/``high``/``low``/``close``/``volume``/``splits``: arrays of shape (len(tickers), len(dates)),
    NaN where a ticker has no bar that session; ``splits`` is the split ratio on that day (0 or NaN
    when none)."""

    tickers: tuple[str, ...]
    dates: npt.NDArray[np.datetime64]
    open: Matrix
    high: Matrix
    low: Matrix
    close: Matrix
    volume: Matrix
    splits: Matrix
    source: Source
    adjusted: bool = True

    def row(self, ticker: str) -> int | None:
        return self._rows.get(ticker)

    @cached_property
    def _rows(self) -> dict[str, int]:
        # built on first lookup: a universe pass looks up every ticker, and tuple.index is linear
        return {ticker: i for i, ticker in enumerate(self.tickers)}

    def day(self, col: int) -> date:
        """The session at column ``col`` as a date."""
        return session_day(self.dates[col])

    @property
    def last_date(self) -> date | None:
        return self.day(-1) if len(self.dates) else None


def session_day(value: np.datetime64) -> date:
    """A ``datetime64`` session as a ``date``."""
    return date.fromisoformat(str(value)[:10])


class FundProfile(DataModel):
    ticker: str
    name: str
    quote_type: str | None = None  # Yahoo's: ETF; EQUITY for ETNs and closed-end funds; MUTUALFUND
    category: str | None = None  # the data provider's fund category (Morningstar's, via Yahoo)
    family: str | None = None
    total_assets: float | None = None  # USD, as recorded on ``recorded_on``
    expense_ratio_pct: float | None = None  # percent a year: 0.0945 means 0.0945 %
    inception: date | None = None  # the fund's inception; its first trade date where none is given
    summary: str | None = None  # the fund's own description (first 600 characters)
    recorded_on: date | None = None
    source: Source
