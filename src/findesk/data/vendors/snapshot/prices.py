"""Snapshot prices: as-traded quotes and adjusted daily bars from ``prices/``.

Rules this module keeps:
- Point in time: no bar or quote dated after ``as_of`` is returned (bars by date; a weekend or
  holiday ``as_of`` gives the last session before it).
- A quote is *as traded*: price, change, %change and volume come from the unadjusted movers table
  (``prices/market/…parquet``). Open/high/low exist only in the adjusted panels, so they are rescaled
  to the as-traded basis by ``as_traded_close / adjusted_close`` of that same day, with a note.
- Where the movers table has no row for the session (ETFs, indexes, a missing scrape day, before 2024)
  the quote falls back to an adjusted file and says so in ``notes``; levels are then not as traded.
- Bars are adjusted (split and dividend, as downloaded) except index levels (``^GSPC``, ``^VIX``);
  one request is served from one file only, never a mix of adjustment bases.
- Every big file is read once per process (``Lazy``) and indexed by ticker; per-symbol slices are
  cached. All methods are synchronous and thread-safe (the vendor runs them in worker threads).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from datetime import date

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import PriceBar, PriceBars, Quote
from findesk.data.vendors.snapshot import sorted_columns
from findesk.data.vendors.snapshot.files import Lazy, SnapshotFiles
from findesk.data.vendors.snapshot.price_tables import (
    ETFS,
    GSPC_FILE,
    LONG_HISTORY,
    MARKET_CAPS,
    MOVERS,
    OHLCV,
    SP500,
    SPY_FILE,
    VIX_FILE,
    Days,
    MarketCaps,
    Movers,
    MoversTable,
    Ohlcv,
    Panel,
    series_from_csv,
    to_day,
)
from findesk.data.vendors.snapshot.sorted_columns import SortedColumns

# Index symbols are served from single-series files; their levels are never adjusted.
_INDEX_FILES = {"^GSPC": GSPC_FILE, "^SPX": GSPC_FILE, "^VIX": VIX_FILE}
_ALLOWED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-^")
# |derived %change - reported %change| above this means the previous row is on another basis
# (split, relabelled scrape): the reported %change wins.
_PCT_TOLERANCE = 0.05


def _opt(value: float, digits: int = 4) -> float | None:
    return None if math.isnan(value) else round(float(value), digits)


def _opt_int(value: float) -> int | None:
    return None if math.isnan(value) else int(value)


class PriceStore:
    def __init__(self, files: SnapshotFiles) -> None:
        self.files = files
        # A file missing from a (partial) snapshot reads as "no data there", not as a crash.
        self._movers = Lazy(
            lambda: (
                MoversTable(self._sorted(MOVERS, lambda: MoversTable.build(files)))
                if files.exists(MOVERS)
                else None
            )
        )
        self._caps = Lazy(lambda: MarketCaps(files) if files.exists(MARKET_CAPS) else None)
        self._sp500 = Lazy(lambda: self._panel(SP500, self._read_sp500))
        self._etfs = Lazy(lambda: self._panel(ETFS, self._read_etfs))
        self._calendar = Lazy(self._build_calendar)
        self._singles: dict[str, Ohlcv] = {}
        self._singles_lock = threading.Lock()

    # ---- loading -------------------------------------------------------------------------------

    def _sorted(self, rel: str, build: Callable[[], SortedColumns]) -> SortedColumns:
        cache = self.files.cache_dir / "price-index" if self.files.cache_dir is not None else None
        return sorted_columns.cached(cache, self.files.path(rel), build)

    def _movers_table(self) -> MoversTable | None:
        if not self.files.exists(MOVERS):
            return None
        return MoversTable(self._sorted(MOVERS, lambda: MoversTable.build(self.files)))

    def _panel(self, rel: str, read: Callable[[], pa.Table]) -> Panel | None:
        if not self.files.exists(rel):
            return None
        return Panel(self._sorted(rel, lambda: Panel.build(read())), rel)

    def _read_sp500(self) -> pa.Table:
        return pcsv.read_csv(
            self.files.path(SP500),
            convert_options=pcsv.ConvertOptions(
                column_types={"date": pa.date32(), "ticker": pa.string(), "volume": pa.float64()}
            ),
        )

    def _read_etfs(self) -> pa.Table:
        return pq.read_table(self.files.path(ETFS), columns=["date", "ticker", *OHLCV])

    def _single(self, rel: str, adjusted: bool) -> Ohlcv | None:
        if not self.files.exists(rel):
            return None
        with self._singles_lock:
            got = self._singles.get(rel)
            if got is None:
                got = series_from_csv(self.files, rel, adjusted)
                self._singles[rel] = got
        return got

    def _build_calendar(self) -> Days:
        """Market sessions: the gap-free SPY file plus the movers table's own dates."""
        spy = self._single(SPY_FILE, True)
        movers = self._movers.get()
        days = [movers.sessions] if movers is not None else []
        if spy is not None:
            days.append(spy.dates)
        return np.unique(np.concatenate(days)) if days else np.empty(0, dtype="datetime64[D]")

    # ---- adjusted series lookup ----------------------------------------------------------------

    def _candidates(self, symbol: str) -> list[Callable[[], Ohlcv | None]]:
        if symbol in _INDEX_FILES:
            return [lambda: self._single(_INDEX_FILES[symbol], False)]
        out: list[Callable[[], Ohlcv | None]] = [
            lambda: _get(self._sp500.get(), symbol),
            lambda: _get(self._etfs.get(), symbol),
            lambda: self._single(LONG_HISTORY.format(symbol=symbol), True),
        ]
        if symbol == "SPY":
            out.append(lambda: self._single(SPY_FILE, True))
        return out

    def _adjusted(self, symbol: str, covering: date | None = None) -> Ohlcv | None:
        """The first file (in chain order) holding ``symbol`` whose history starts by ``covering``;
        else the one that starts earliest."""
        found: list[Ohlcv] = []
        for get in self._candidates(symbol):
            series = get()
            if series is None or len(series.dates) == 0:
                continue
            if covering is None or to_day(series.dates[0]) <= covering:
                return series
            found.append(series)
        return min(found, key=lambda s: s.dates[0]) if found else None

    # ---- quote ---------------------------------------------------------------------------------

    def quote(self, symbol: str, as_of: date) -> Result[Quote]:
        cleaned = _clean(symbol)
        if isinstance(cleaned, Err):
            return cleaned
        sym = cleaned.value
        table = None if sym in _INDEX_FILES else self._movers.get()
        movers = None if table is None else table.get(sym)
        session = self._last_session(as_of)
        i = (
            -1
            if movers is None
            else int(np.searchsorted(movers.dates, np.datetime64(as_of, "D"), side="right") - 1)
        )
        movers_day = to_day(movers.dates[i]) if movers is not None and i >= 0 else None
        if movers is not None and movers_day is not None and (session is None or movers_day >= session):
            return Ok(self._as_traded_quote(sym, movers, i))
        adjusted = self._adjusted(sym)
        if adjusted is not None:
            j = adjusted.last_index(as_of)
            if j >= 0 and (movers_day is None or to_day(adjusted.dates[j]) > movers_day):
                gap = None if movers is None else f"the movers table has no row for {sym} on {session}"
                return Ok(self._adjusted_quote(sym, adjusted, j, gap))
        if movers is not None and movers_day is not None:  # stale, but the only row there is
            q = self._as_traded_quote(sym, movers, i)
            note = f"the movers table has no row for {sym} on the session {session}; this is its last row"
            return Ok(q.model_copy(update={"notes": [*q.notes, note]}))
        if movers is None and adjusted is None:
            return Err(
                ErrorCode.NOT_FOUND,
                f"{sym} is not in the snapshot's price files (movers table, S&P 500 panel, ETF panel, "
                "long_history, ^GSPC/^VIX); check the ticker",
                "snapshot",
            )
        first = min(to_day(s.dates[0]) for s in (movers, adjusted) if s is not None and len(s.dates))
        return Err(
            ErrorCode.NO_DATA,
            f"the snapshot has no price for {sym} on or before {as_of} (its data starts {first}); "
            "use a later as-of date",
            "snapshot",
        )

    def _last_session(self, as_of: date) -> date | None:
        cal = self._calendar.get()
        k = int(np.searchsorted(cal, np.datetime64(as_of, "D"), side="right")) - 1
        return to_day(cal[k]) if k >= 0 else None

    def _previous_session(self, day: date) -> date | None:
        cal = self._calendar.get()
        k = int(np.searchsorted(cal, np.datetime64(day, "D"), side="left")) - 1
        return to_day(cal[k]) if k >= 0 else None

    def _as_traded_quote(self, sym: str, m: Movers, i: int) -> Quote:
        session = to_day(m.dates[i])
        price = float(m.close[i])
        pct = float(m.pct_change[i])
        notes: list[str] = []
        prev: float | None = None
        if i > 0 and to_day(m.dates[i - 1]) == self._previous_session(session):
            prev = float(m.close[i - 1])
            derived = (price / prev - 1.0) * 100.0 if prev else math.nan
            if not math.isnan(pct) and not abs(derived - pct) <= _PCT_TOLERANCE:
                prev = None  # the rows are on different bases (split or relabelled scrape)
        if prev is None and not math.isnan(pct) and pct > -100.0:
            prev = price / (1.0 + pct / 100.0)
            notes.append("previous close derived from the reported % change (no comparable prior row)")
        change = None if prev is None else round(price - prev, 4)
        change_pct = (
            _opt(pct, 3)
            if not math.isnan(pct)
            else (round((price / prev - 1.0) * 100.0, 3) if prev else None)
        )
        open_, high, low = self._rescaled_range(sym, session, price, notes)
        cap, cap_date = self._market_cap(sym, session, price, notes)
        return Quote(
            symbol=sym,
            session_date=session,
            price=price,
            previous_close=None if prev is None else round(prev, 4),
            change=change,
            change_pct=change_pct,
            open=open_,
            day_high=high,
            day_low=low,
            volume=int(m.volume[i]),
            market_cap=cap,
            market_cap_date=cap_date,
            source=self.files.source(MOVERS, "as traded: Nasdaq screener close, % change and volume"),
            notes=notes,
        )

    def _rescaled_range(
        self, sym: str, session: date, price: float, notes: list[str]
    ) -> tuple[float | None, float | None, float | None]:
        adjusted = self._adjusted(sym)
        j = adjusted.index_of(session) if adjusted is not None else None
        if adjusted is None or j is None or not adjusted.close[j] > 0:
            return None, None, None
        factor = price / float(adjusted.close[j])
        open_ = _opt(adjusted.open[j] * factor)
        high = _opt(adjusted.high[j] * factor)
        low = _opt(adjusted.low[j] * factor)
        # rounding noise must not put the close outside its own day range
        high = None if high is None else max(high, price)
        low = None if low is None else min(low, price)
        notes.append(
            f"open/high/low rescaled from the adjusted {adjusted.ref} by as-traded close / adjusted "
            f"close of {session} (factor {factor:.6f})"
        )
        return open_, high, low

    def _market_cap(
        self, sym: str, session: date, price: float, notes: list[str]
    ) -> tuple[float | None, date | None]:
        table = self._caps.get()
        caps = None if table is None else table.get(sym)
        if caps is None:
            return None, None
        k = int(np.searchsorted(caps.dates, np.datetime64(session, "D"), side="right")) - 1
        if k < 0 or not caps.close[k] > 0 or math.isnan(caps.market_cap[k]):
            return None, None
        cap_date = to_day(caps.dates[k])
        if cap_date == session and float(caps.close[k]) == price:
            notes.append(f"market cap is the month-end value of {cap_date} ({MARKET_CAPS})")
            return float(caps.market_cap[k]), cap_date
        shares = float(caps.market_cap[k]) / float(caps.close[k])
        note = f"market cap = shares implied by the {cap_date} month-end row (market cap / close) × price"
        # A split between the month-end and the session shows as a jump in the as-traded/adjusted
        # ratio; the share count is scaled by that jump so the cap stays on the session's basis.
        adjusted = self._adjusted(sym)
        then = adjusted.index_of(cap_date) if adjusted is not None else None
        now = adjusted.index_of(session) if adjusted is not None else None
        if adjusted is not None and then is not None and now is not None:
            jump = (float(caps.close[k]) / adjusted.close[then]) / (price / adjusted.close[now])
            if abs(jump - 1.0) > 0.05:
                shares *= float(jump)
                note += f", share count scaled by {jump:.4f} for a split since {cap_date}"
        else:
            note += "; a split since then would not be caught"
        notes.append(note)
        return round(shares * price, 0), cap_date

    def _adjusted_quote(self, sym: str, s: Ohlcv, j: int, gap: str | None) -> Quote:
        price = float(s.close[j])
        prev = float(s.close[j - 1]) if j > 0 else None
        change = None if prev is None else round(price - prev, 4)
        change_pct = None if not prev else round((price / prev - 1.0) * 100.0, 3)
        if not s.adjusted:
            what = "index level (not a traded price)"
        else:
            what = "levels are split/dividend-adjusted as downloaded, not as traded; returns are exact"
            if gap:
                what = f"{gap}; {what}"
        return Quote(
            symbol=sym,
            session_date=to_day(s.dates[j]),
            price=round(price, 4),
            previous_close=None if prev is None else round(prev, 4),
            change=change,
            change_pct=change_pct,
            open=_opt(s.open[j]),
            day_high=_opt(s.high[j]),
            day_low=_opt(s.low[j]),
            volume=_opt_int(s.volume[j]),
            source=self.files.source(s.ref, what),
            notes=[what],
        )

    # ---- bars ----------------------------------------------------------------------------------

    def bars(self, symbol: str, start: date, end: date, as_of: date) -> Result[PriceBars]:
        cleaned = _clean(symbol)
        if isinstance(cleaned, Err):
            return cleaned
        sym = cleaned.value
        if start > end:
            return Err(ErrorCode.INVALID_INPUT, f"start {start} is after end {end}; swap them", "snapshot")
        last = min(end, as_of)
        if start > last:
            return Err(
                ErrorCode.INVALID_INPUT,
                f"start {start} is after as_of {as_of}; nothing dated after as_of is visible",
                "snapshot",
            )
        series = self._adjusted(sym, covering=start)
        if series is None:
            return Err(
                ErrorCode.NOT_FOUND,
                f"{sym} has no daily bars in the snapshot (S&P 500 panel, ETF panel, long_history, "
                "^GSPC/^VIX); check the ticker",
                "snapshot",
            )
        lo = int(np.searchsorted(series.dates, np.datetime64(start, "D"), side="left"))
        hi = series.last_index(last) + 1
        if hi <= lo:
            return Err(
                ErrorCode.NO_DATA,
                f"{sym} has no bars between {start} and {last} in {series.ref} (it covers "
                f"{to_day(series.dates[0])} to {to_day(series.dates[-1])})",
                "snapshot",
            )
        bars = [
            PriceBar(
                date=to_day(series.dates[k]),
                open=_opt(series.open[k], 6),
                high=_opt(series.high[k], 6),
                low=_opt(series.low[k], 6),
                close=round(float(series.close[k]), 6),
                volume=_opt_int(series.volume[k]),
            )
            for k in range(lo, hi)
        ]
        note = (
            "index levels, not adjusted"
            if not series.adjusted
            else "split- and dividend-adjusted as downloaded; compare returns, not levels, across files"
        )
        return Ok(
            PriceBars(
                symbol=sym,
                adjusted=series.adjusted,
                start=start,
                end=last,
                bars=bars,
                source=self.files.source(series.ref, note),
            )
        )


def _get(panel: Panel | None, symbol: str) -> Ohlcv | None:
    return None if panel is None else panel.get(symbol)


def _clean(symbol: str) -> Result[str]:
    sym = symbol.strip().upper()
    if not sym or not set(sym) <= _ALLOWED or len(sym) > 12:
        return Err(
            ErrorCode.INVALID_INPUT,
            f"{symbol!r} is not a ticker the snapshot can look up (letters, digits, '-', or ^GSPC/^VIX)",
            "snapshot",
        )
    return Ok(sym)
