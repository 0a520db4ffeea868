"""The point-in-time view a strategy decides on: one ticker's bars up to and including one session.

Rules:
- A ``History`` at index ``t`` shows the bars ``0 .. t`` (the warm-up bars before the backtest's start
  included) and nothing later. Its arrays are read-only *copies* of that prefix, so not even a numpy
  view's ``.base`` leads to a later bar.
- Explicit accessors (``close_on``, ``bar``, ``bar_at``) raise ``LookAheadError`` for anything after the
  session: reading the future is an error that aborts the run, never a warning.
- A date that is not a session (a holiday, before the first bar) raises ``KeyError``; an offset before
  the first bar raises ``IndexError``: asking for missing history is a bug in the strategy, not data.
"""

from __future__ import annotations

from bisect import bisect_left
from datetime import date
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from findesk.analytics.backtest.models import Array, Bars


class LookAheadError(Exception):
    """A strategy read data dated after the session it was deciding on."""

    def __init__(self, session: date, wanted: date | str, what: str = "close") -> None:
        self.session = session
        self.wanted = wanted
        self.what = what
        super().__init__(f"look-ahead: at the session of {session} the strategy read {wanted}'s {what}")


class Bar(NamedTuple):
    session: date
    open: float
    high: float
    low: float
    close: float
    volume: float


def _frozen(a: Array) -> Array:
    out = np.array(a, dtype=np.float64, copy=True)
    out.flags.writeable = False
    return out


class BarSource:
    """One ticker's bars prepared once per run (float64 copies and python dates) so that building a
    ``History`` per session costs nothing but the prefix copies a strategy actually reads."""

    __slots__ = ("close", "dates", "high", "low", "np_dates", "open", "ticker", "volume")

    def __init__(self, bars: Bars) -> None:
        self.ticker = bars.ticker
        self.np_dates = np.asarray(bars.dates, dtype="datetime64[D]")
        self.dates: list[date] = self.np_dates.astype(object).tolist()
        self.open = _frozen(bars.open)
        self.high = _frozen(bars.high)
        self.low = _frozen(bars.low)
        self.close = _frozen(bars.close)
        self.volume = _frozen(bars.volume)

    def __len__(self) -> int:
        return len(self.dates)


class History:
    """One ticker's bars as known at the close of session index ``t``."""

    __slots__ = ("_cache", "_src", "_t")

    def __init__(self, bars: Bars | BarSource, t: int) -> None:
        src = bars if isinstance(bars, BarSource) else BarSource(bars)
        if not 0 <= t < len(src):
            raise IndexError(f"session index {t} outside the {len(src)} bars of {src.ticker}")
        self._src = src
        self._t = t
        self._cache: dict[str, Array] = {}

    # --- what the session is -------------------------------------------------------------------
    @property
    def ticker(self) -> str:
        return self._src.ticker

    @property
    def t(self) -> int:
        return self._t

    @property
    def session(self) -> date:
        return self._src.dates[self._t]

    def __len__(self) -> int:
        return self._t + 1

    @property
    def dates(self) -> npt.NDArray[np.datetime64]:
        out = self._src.np_dates[: self._t + 1].copy()
        out.flags.writeable = False
        return out

    # --- prefix arrays (copies: no route to a later bar) -----------------------------------------
    def _prefix(self, field: str) -> Array:
        got = self._cache.get(field)
        if got is None:
            full: Array = getattr(self._src, field)
            got = full[: self._t + 1].copy()
            got.flags.writeable = False
            self._cache[field] = got
        return got

    @property
    def open(self) -> Array:
        return self._prefix("open")

    @property
    def high(self) -> Array:
        return self._prefix("high")

    @property
    def low(self) -> Array:
        return self._prefix("low")

    @property
    def close(self) -> Array:
        return self._prefix("close")

    @property
    def volume(self) -> Array:
        return self._prefix("volume")

    # --- explicit accessors, audited -------------------------------------------------------------
    def _index_of(self, day: date, what: str) -> int:
        if day > self.session:
            raise LookAheadError(self.session, day, what)
        i = bisect_left(self._src.dates, day)
        if i >= len(self._src.dates) or self._src.dates[i] != day:
            raise KeyError(f"{self.ticker} has no session on {day}")
        return i

    def close_on(self, day: date) -> float:
        """The close of session ``day``; a later day raises ``LookAheadError``."""
        return float(self._src.close[self._index_of(day, "close")])

    def bar(self, key: int | date) -> Bar:
        """A bar by offset from the session (0 = this session, -1 = the one before) or by date.

        A positive offset or a later date is a look-ahead and raises ``LookAheadError``."""
        if isinstance(key, date):
            return self._bar(self._index_of(key, "bar"))
        if key > 0:
            later = self._t + key
            wanted: date | str = (
                self._src.dates[later] if later < len(self._src) else f"the session {key} after"
            )
            raise LookAheadError(self.session, wanted, "bar")
        if self._t + key < 0:
            raise IndexError(f"{self.ticker}: offset {key} is before the first bar")
        return self._bar(self._t + key)

    def bar_at(self, index: int) -> Bar:
        """A bar by absolute index into the loaded bars; an index after ``t`` is a look-ahead."""
        if index > self._t:
            wanted: date | str = self._src.dates[index] if index < len(self._src) else f"bar index {index}"
            raise LookAheadError(self.session, wanted, "bar")
        if index < 0:
            raise IndexError(f"{self.ticker}: bar index {index} is negative")
        return self._bar(index)

    def _bar(self, i: int) -> Bar:
        s = self._src
        return Bar(
            s.dates[i],
            float(s.open[i]),
            float(s.high[i]),
            float(s.low[i]),
            float(s.close[i]),
            float(s.volume[i]),
        )
