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
  one request is served from one file only, never a mix of adjustment bases. ``listed_bars`` serves any
  listed stock's as-traded closes and volumes from the movers table (no open/high/low,
  ``adjusted=False``), only when asked for by name.
- Every big file is read once per process (``Lazy``) and indexed by ticker; per-symbol slices are
  cached. The indexed tables (``sorted_columns``) and the single-series files (``SnapshotFiles.cached``)
  are kept on disk between processes, so a warm process maps them and never imports pyarrow. All
  methods are synchronous and thread-safe (the vendor runs them in worker threads); pyarrow reads run
  one at a time (``price_tables.arrow_read``). The ETF panel's index also keeps the file's split
  ratios and is shared with the universe view (``etf_panel``, used by ``funds``): parsed once.
- A quote says its ``basis``; an adjusted quote says where as-traded data starts. Its 52-week range
  (closes after the session minus 52 weeks) is on the quote's own basis: as-traded closes with splits
  in the window undone, else the adjusted file's closes; a window the data does not fully cover says so.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from datetime import date, timedelta
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import PriceBar, PriceBars, Quote, Source
from findesk.data.models.market import PriceBasis, PriceRange
from findesk.data.vendors.snapshot import price_tables, sorted_columns
from findesk.data.vendors.snapshot.files import Lazy, SnapshotFiles
from findesk.data.vendors.snapshot.price_tables import (
    ETFS,
    GSPC_FILE,
    LONG_HISTORY,
    MARKET_CAPS,
    MOVERS,
    OHLCV,
    SP500,
    SPLITS,
    SPLITS_SOURCE,
    SPY_FILE,
    VIX_FILE,
    Days,
    Floats,
    MarketCaps,
    Movers,
    MoversTable,
    Ohlcv,
    Panel,
    arrow_read,
    series_from_csv,
    sorted_unique,
    to_day,
)
from findesk.data.vendors.snapshot.sorted_columns import SortedColumns

if TYPE_CHECKING:
    import pyarrow as pa

# Index symbols are served from single-series files; their levels are never adjusted.
_INDEX_FILES = {"^GSPC": GSPC_FILE, "^SPX": GSPC_FILE, "^VIX": VIX_FILE}
_ALLOWED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-^")
# |derived %change - reported %change| above this means the previous row is on another basis
# (split, relabelled scrape): the reported %change wins.
_PCT_TOLERANCE = 0.05
# a change of the as-traded / adjusted ratio above this between two rows is a split, not a dividend
_SPLIT_JUMP = 0.05


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
        self._caps = Lazy(
            lambda: (
                MarketCaps(self._sorted(MARKET_CAPS, lambda: MarketCaps.build(files)))
                if files.exists(MARKET_CAPS)
                else None
            )
        )
        self._sp500 = Lazy(lambda: self._panel(SP500, self._read_sp500))
        self._etfs = Lazy(lambda: self._panel(ETFS, self._read_etfs, (SPLITS,)))
        self._calendar = Lazy(self._build_calendar)
        self._singles: dict[str, Ohlcv] = {}
        self._singles_lock = threading.Lock()

    # ---- loading -------------------------------------------------------------------------------

    def _sorted(
        self, rel: str, build: Callable[[], SortedColumns], required: tuple[str, ...] = ()
    ) -> SortedColumns:
        cache = self.files.index_dir / "price-index" if self.files.index_dir is not None else None
        return sorted_columns.cached(cache, self.files.path(rel), lambda: arrow_read(build), required)

    def _movers_table(self) -> MoversTable | None:
        if not self.files.exists(MOVERS):
            return None
        return MoversTable(self._sorted(MOVERS, lambda: MoversTable.build(self.files)))

    def _panel(self, rel: str, read: Callable[[], pa.Table], required: tuple[str, ...] = ()) -> Panel | None:
        if not self.files.exists(rel):
            return None
        return Panel(self._sorted(rel, lambda: Panel.build(read()), required), rel)

    def etf_panel(self) -> Panel | None:
        """The ETF panel as indexed for ``bars``/``quote`` (split ratios included); None when the
        snapshot has no ETF file. Shared, so the universe view never parses the parquet again."""
        return self._etfs.get()

    def sp500_panel(self) -> Panel | None:
        """The S&P 500 panel as indexed for ``bars`` (shared with the whole-panel view)."""
        return self._sp500.get()

    def market_caps(self) -> MarketCaps | None:
        """The month-end market caps as indexed for quotes (shared with the listed-session view)."""
        return self._caps.get()

    def _read_sp500(self) -> pa.Table:
        import pyarrow as pa
        import pyarrow.csv as pcsv

        return pcsv.read_csv(
            self.files.path(SP500),
            convert_options=pcsv.ConvertOptions(
                column_types={"date": pa.date32(), "ticker": pa.string(), "volume": pa.float64()}
            ),
        )

    def _read_etfs(self) -> pa.Table:
        import pyarrow.parquet as pq

        return pq.read_table(self.files.path(ETFS), columns=["date", "ticker", *OHLCV, SPLITS_SOURCE])

    def _single(self, rel: str, adjusted: bool) -> Ohlcv | None:
        if not self.files.exists(rel):
            return None
        with self._singles_lock:
            got = self._singles.get(rel)
            if got is None:
                got = self.files.cached(
                    "series",
                    [rel],
                    lambda: series_from_csv(self.files, rel, adjusted),
                    variant=f"{rel}|{adjusted}|numpy {np.__version__}",
                    expect=Ohlcv,
                )
                self._singles[rel] = got
        return got

    def _build_calendar(self) -> Days:
        """Market sessions: the gap-free SPY file plus the movers table's own dates."""
        spy = self._single(SPY_FILE, True)
        movers = self._movers.get()
        days = [movers.sessions] if movers is not None else []
        if spy is not None:
            days.append(spy.dates)
        return sorted_unique(np.concatenate(days)) if days else np.empty(0, dtype="datetime64[D]")

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
        # the file that reaches back to as_of (long_history before 2021), not merely the first listed
        adjusted = self._adjusted(sym, covering=as_of)
        if adjusted is not None:
            j = adjusted.last_index(as_of)
            if j >= 0 and (movers_day is None or to_day(adjusted.dates[j]) > movers_day):
                gap = None if movers is None else f"the movers table has no row for {sym} on {session}"
                starts = None if movers is None else to_day(movers.dates[0])
                return Ok(self._adjusted_quote(sym, adjusted, j, gap, starts))
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
        # no start date in the message: it would date data the run may not see (after as_of)
        return Err(
            ErrorCode.NO_DATA,
            f"the snapshot has no price for {sym} on or before {as_of} (no price file for {sym} reaches "
            "back that far); use a later as-of date",
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
            range_52w=self._as_traded_range(sym, m, i),
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

    def _adjusted_quote(
        self, sym: str, s: Ohlcv, j: int, gap: str | None, as_traded_from: date | None
    ) -> Quote:
        price = float(s.close[j])
        prev = float(s.close[j - 1]) if j > 0 else None
        change = None if prev is None else round(price - prev, 4)
        change_pct = None if not prev else round((price / prev - 1.0) * 100.0, 3)
        if not s.adjusted:
            what = "index level (not a traded price)"
        else:
            what = "levels are split/dividend-adjusted as downloaded, not as traded; returns are exact"
            if as_traded_from is not None and to_day(s.dates[j]) < as_traded_from:
                what += f"; as-traded prices for {sym} start {as_traded_from} ({MOVERS})"
            elif gap:
                what = f"{gap}; {what}"
            else:
                what += f"; the snapshot holds no as-traded prices for {sym}"
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
            basis="adjusted" if s.adjusted else "index",
            as_traded_from=as_traded_from if s.adjusted else None,
            range_52w=self._adjusted_range(s, j),
            source=self.files.source(
                s.ref, "split/dividend-adjusted levels" if s.adjusted else "index levels"
            ),
            notes=[what],
        )

    # ---- 52-week range -------------------------------------------------------------------------

    def _window(self, dates: Days, last: int) -> tuple[int, date, bool]:
        """First row of the 52 weeks ending at row ``last``, the window's start, and whether the
        series reaches back to the window's first market session."""
        end = to_day(dates[last])
        cutoff = end - timedelta(weeks=52)
        lo = int(np.searchsorted(dates, np.datetime64(cutoff, "D"), side="right"))
        cal = self._calendar.get()
        k = int(np.searchsorted(cal, np.datetime64(cutoff, "D"), side="right"))
        first_session = to_day(cal[k]) if k < len(cal) else end
        return lo, cutoff, to_day(dates[lo]) <= first_session

    def _as_traded_range(self, sym: str, m: Movers, i: int) -> PriceRange:
        lo, cutoff, complete = self._window(m.dates, i)
        closes = np.asarray(m.close[lo : i + 1], dtype=np.float64)
        notes: list[str] = []
        scale = self._split_scale(sym, m.dates[lo : i + 1], closes, notes)
        return _range(
            m.dates[lo : i + 1],
            closes * scale,
            cutoff,
            complete,
            "as_traded",
            self.files.source(MOVERS, "as-traded closes (Nasdaq screener)"),
            notes,
            f"as-traded prices for {sym} start {to_day(m.dates[0])}",
            split_adjusted=bool(np.any(scale != 1.0)),
        )

    def _adjusted_range(self, s: Ohlcv, j: int) -> PriceRange:
        lo, cutoff, complete = self._window(s.dates, j)
        basis: PriceBasis = "adjusted" if s.adjusted else "index"
        what = "split/dividend-adjusted closes, on the quote's basis" if s.adjusted else "index closes"
        return _range(
            s.dates[lo : j + 1],
            np.asarray(s.close[lo : j + 1], dtype=np.float64),
            cutoff,
            complete,
            basis,
            self.files.source(s.ref, what),
            [],
            f"{s.ref} starts {to_day(s.dates[0])}",
        )

    def _split_scale(self, sym: str, dates: Days, closes: Floats, notes: list[str]) -> Floats:
        """Factors putting earlier as-traded closes on the last session's share basis. A split shows
        as a jump in the as-traded / adjusted close ratio between two rows (dividends move it by well
        under 5 %); the jump is snapped to a ratio of small whole numbers (10:1, 3:2, 1:20)."""
        scale = np.ones(len(dates))
        adjusted = self._adjusted(sym)
        if adjusted is None:
            notes.append("no adjusted series to detect splits in the window; closes are not split-adjusted")
            return scale
        k = np.searchsorted(adjusted.dates, dates)
        found = (k < len(adjusted.dates)) & (adjusted.dates[np.minimum(k, len(adjusted.dates) - 1)] == dates)
        ratio = np.full(len(dates), np.nan)
        ratio[found] = closes[found] / adjusted.close[k[found]]
        factor, later, later_day = 1.0, math.nan, None
        for n in range(len(dates) - 1, -1, -1):
            r = float(ratio[n])
            if math.isnan(r) or r <= 0:
                scale[n] = factor
                continue
            if later_day is not None and abs(r / later - 1.0) > _SPLIT_JUMP:
                jump = Fraction(r / later).limit_denominator(20)
                if abs(float(jump) / (r / later) - 1.0) <= 0.02:
                    factor /= float(jump)
                    notes.append(
                        f"a {jump.numerator}:{jump.denominator} split between {to_day(dates[n])} and "
                        f"{later_day}: closes before it are divided by {float(jump):g}"
                    )
            scale[n] = factor
            later, later_day = r, to_day(dates[n])
        return scale

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
            # the range shown is capped at as_of: what the file holds later is not visible yet
            seen = series.last_index(as_of)
            covers = (
                f"it covers {to_day(series.dates[0])} to {to_day(series.dates[seen])} by {as_of}"
                if seen >= 0
                else f"it has no bar on or before {as_of}"
            )
            return Err(
                ErrorCode.NO_DATA,
                f"{sym} has no bars between {start} and {last} in {series.ref} ({covers})",
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

    def listed_bars(self, symbol: str, start: date, end: date, as_of: date) -> Result[PriceBars]:
        """Any listed stock's bars from the all-listed-stocks table: closes and volumes as traded that
        evening (unadjusted), no open/high/low (the table has none). ``bars`` never mixes these in."""
        cleaned = _clean(symbol)
        if isinstance(cleaned, Err):
            return cleaned
        sym = cleaned.value
        last = min(end, as_of)
        if start > last:
            return Err(
                ErrorCode.INVALID_INPUT, f"start {start} is after {last}; pass an earlier one", "snapshot"
            )
        table = self._movers.get()
        movers = None if table is None else table.get(sym)
        if movers is None:
            return Err(ErrorCode.NOT_FOUND, f"{sym} has no rows in {MOVERS}; check the ticker", "snapshot")
        return self._as_traded_bars(sym, movers, start, last, as_of)

    def _as_traded_bars(self, sym: str, m: Movers, start: date, last: date, as_of: date) -> Result[PriceBars]:
        lo = int(np.searchsorted(m.dates, np.datetime64(start, "D"), side="left"))
        hi = int(np.searchsorted(m.dates, np.datetime64(last, "D"), side="right"))
        if hi <= lo:
            return Err(
                ErrorCode.NO_DATA,
                f"{sym} has no rows between {start} and {last} in {MOVERS} (as of {as_of})",
                "snapshot",
            )
        bars = [
            PriceBar(
                date=to_day(m.dates[k]),
                open=None,
                high=None,
                low=None,
                close=round(float(m.close[k]), 6),
                volume=_opt_int(m.volume[k]),
            )
            for k in range(lo, hi)
            if not math.isnan(float(m.close[k]))
        ]
        note = (
            "as traded (unadjusted) closes and volumes from the all-listed-stocks table, as published that "
            "evening; it has no open, high or low, and a split inside the window is not adjusted"
        )
        return Ok(
            PriceBars(
                symbol=sym,
                adjusted=False,
                start=start,
                end=last,
                bars=bars,
                source=self.files.source(MOVERS, note),
            )
        )


def _range(
    dates: Days,
    closes: Floats,
    cutoff: date,
    complete: bool,
    basis: PriceBasis,
    source: Source,
    notes: list[str],
    starts: str,
    split_adjusted: bool = False,
) -> PriceRange:
    lo, hi = int(np.argmin(closes)), int(np.argmax(closes))
    first, last = to_day(dates[0]), to_day(dates[-1])
    if not complete:
        notes.append(
            f"{starts}: the range covers {first}..{last} ({len(dates)} sessions), not the full 52 weeks "
            f"after {cutoff}"
        )
    return PriceRange(
        window_start=cutoff,
        start=first,
        end=last,
        low=round(float(closes[lo]), 4),
        low_date=to_day(dates[lo]),
        high=round(float(closes[hi]), 4),
        high_date=to_day(dates[hi]),
        sessions=len(dates),
        basis=basis,
        complete=complete,
        split_adjusted=split_adjusted,
        source=source,
        notes=notes,
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


def __getattr__(name: str) -> Any:
    """``pa``, ``pcsv`` and ``pq``, imported on first use (see ``price_tables``)."""
    if name in ("pa", "pcsv", "pq"):
        return price_tables.__getattr__(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
