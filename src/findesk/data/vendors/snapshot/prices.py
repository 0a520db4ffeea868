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
from dataclasses import dataclass
from datetime import date
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv
import pyarrow.parquet as pq

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import PriceBar, PriceBars, Quote
from findesk.data.vendors.snapshot.files import Lazy, SnapshotFiles

MOVERS = "prices/market/us_listed_stocks_daily_close_pctchange_volume_2024-01-02_2025-12-31.parquet"
MARKET_CAPS = "prices/market/us_listed_stocks_monthend_marketcap_2023-01_2025-12.csv.gz"
SP500 = "prices/equities/sp500_daily_ohlcv_adj_2021-01-04_2025-12-30.csv.gz"
ETFS = "prices/etfs/etf_daily_ohlcv_adj_1670_2021-01-04_2025-12-24.parquet"
SPY_FILE = "prices/equities/SPY_daily_ohlcv_adj_2015-01-02_2025-12-30.csv"
GSPC_FILE = "prices/equities/GSPC_daily_ohlcv_2015-01-02_2025-12-30.csv"
VIX_FILE = "prices/index/VIX.csv"
LONG_HISTORY = "prices/equities/long_history/{symbol}.csv"

# Index symbols are served from single-series files; their levels are never adjusted.
_INDEX_FILES = {"^GSPC": GSPC_FILE, "^SPX": GSPC_FILE, "^VIX": VIX_FILE}
_ALLOWED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-^")
# |derived %change - reported %change| above this means the previous row is on another basis
# (split, relabelled scrape): the reported %change wins.
_PCT_TOLERANCE = 0.05

Floats = npt.NDArray[np.float64]
Days = npt.NDArray[np.datetime64]


@dataclass(frozen=True, slots=True)
class Ohlcv:
    """One symbol's daily series from one file, sorted by date."""

    ref: str
    adjusted: bool
    dates: Days
    open: Floats
    high: Floats
    low: Floats
    close: Floats
    volume: Floats  # NaN where missing; float because some sources write "2266400.0"

    def last_index(self, day: date) -> int:
        """Index of the last bar dated on or before ``day`` (-1 when none)."""
        return int(np.searchsorted(self.dates, np.datetime64(day, "D"), side="right")) - 1

    def index_of(self, day: date) -> int | None:
        i = self.last_index(day)
        return i if i >= 0 and _day(self.dates[i]) == day else None


@dataclass(frozen=True, slots=True)
class Movers:
    """One symbol's rows of the unadjusted movers table, sorted by date."""

    dates: Days
    close: Floats
    pct_change: Floats  # percent; NaN where the screener gave none
    volume: npt.NDArray[np.int64]


def _spans(
    codes: npt.NDArray[np.integer[Any]], dates: Days, count: int
) -> tuple[npt.NDArray[np.intp], list[tuple[int, int]]]:
    """Row order sorted by (code, date) and each code's [start, end) span in that order."""
    if len(dates) < 2 or bool(np.all(dates[1:] >= dates[:-1])):
        order = np.argsort(codes, kind="stable")  # already in date order: a stable sort keeps it
    else:
        order = np.lexsort((dates, codes))
    sorted_codes = codes[order]
    idx = np.arange(count)
    starts = np.searchsorted(sorted_codes, idx, side="left")
    ends = np.searchsorted(sorted_codes, idx, side="right")
    return order, [(int(a), int(b)) for a, b in zip(starts, ends, strict=True)]


def _encode(column: pa.ChunkedArray) -> tuple[list[str], npt.NDArray[np.integer[Any]]]:
    encoded = pc.dictionary_encode(column).combine_chunks()
    return encoded.dictionary.to_pylist(), encoded.indices.to_numpy(zero_copy_only=False)


def _global_codes(column: pa.ChunkedArray) -> tuple[list[str], npt.NDArray[np.intp]]:
    """Codes into one shared dictionary for a dictionary column whose chunks (row groups) each
    carry their own dictionary; cheaper than ``unify_dictionaries`` on 3.3M rows."""
    position: dict[str, int] = {}
    parts: list[npt.NDArray[np.intp]] = []
    for chunk in column.chunks:
        names = chunk.dictionary.to_pylist()
        mapping = np.fromiter((position.setdefault(n, len(position)) for n in names), np.intp, len(names))
        parts.append(mapping[chunk.indices.to_numpy(zero_copy_only=False)])
    codes = np.concatenate(parts) if parts else np.empty(0, dtype=np.intp)
    return list(position), codes


def _day(value: np.datetime64) -> date:
    return date.fromisoformat(str(value)[:10])


def _opt(value: float, digits: int = 4) -> float | None:
    return None if math.isnan(value) else round(float(value), digits)


def _opt_int(value: float) -> int | None:
    return None if math.isnan(value) else int(value)


class _Panel:
    """A long table (date, ticker, open, high, low, close, volume) indexed by ticker."""

    def __init__(self, table: pa.Table, ref: str) -> None:
        self.ref = ref
        names, codes = _encode(table.column("ticker"))
        dates = table.column("date").to_numpy().astype("datetime64[D]")
        order, spans = _spans(codes, dates, len(names))
        self._spans = dict(zip(names, spans, strict=True))
        self._order = order
        self._dates = dates
        self._cols = {
            name: table.column(name).cast(pa.float64()).to_numpy()
            for name in ("open", "high", "low", "close", "volume")
        }
        self._cache: dict[str, Ohlcv] = {}
        self._lock = threading.Lock()

    def __contains__(self, symbol: str) -> bool:
        return symbol in self._spans

    def get(self, symbol: str) -> Ohlcv | None:
        span = self._spans.get(symbol)
        if span is None:
            return None
        with self._lock:
            cached = self._cache.get(symbol)
            if cached is None:
                rows = self._order[span[0] : span[1]]
                cols = {k: v[rows] for k, v in self._cols.items()}
                keep = ~np.isnan(cols["close"])  # a row without a close is not a bar
                cached = Ohlcv(
                    self.ref,
                    True,
                    self._dates[rows][keep],
                    cols["open"][keep],
                    cols["high"][keep],
                    cols["low"][keep],
                    cols["close"][keep],
                    cols["volume"][keep],
                )
                self._cache[symbol] = cached
        return cached


def _series_from_csv(files: SnapshotFiles, rel: str, adjusted: bool) -> Ohlcv:
    """A single-symbol ``Date,Open,High,Low,Close,Volume`` file (column order may vary)."""
    table = pcsv.read_csv(files.path(rel))
    cols = {k: table.column(k.capitalize()).cast(pa.float64()).to_numpy() for k in _OHLCV}
    dates = table.column("Date").to_numpy().astype("datetime64[D]")
    order = np.argsort(dates, kind="stable")
    keep = ~np.isnan(cols["close"][order])
    pick = order[keep]
    volume = cols["volume"][pick]
    if rel == VIX_FILE:  # the file writes volume 0 for every day: there is no volume for an index
        volume = np.full(len(pick), np.nan)
    return Ohlcv(
        rel,
        adjusted,
        dates[pick],
        cols["open"][pick],
        cols["high"][pick],
        cols["low"][pick],
        cols["close"][pick],
        volume,
    )


_OHLCV = ("open", "high", "low", "close", "volume")


class _MoversTable:
    """The unadjusted movers table, read once and indexed by symbol."""

    def __init__(self, files: SnapshotFiles) -> None:
        table = pq.read_table(files.path(MOVERS), columns=["date", "symbol", "close", "pct_change", "volume"])
        names, codes = _global_codes(table.column("symbol"))
        day_names, day_codes = _global_codes(table.column("date"))
        day_values = np.array(day_names, dtype="datetime64[D]")
        dates = day_values[day_codes]
        order, spans = _spans(codes, dates, len(names))
        self._spans = dict(zip(names, spans, strict=True))
        # compact per-row state (~60 MB for 3.3M rows): int32 row order and int16 day codes
        self._order = order.astype(np.int32)
        self._day_values = day_values
        self._day_codes = day_codes.astype(np.int16)
        self._close = table.column("close").to_numpy()
        self._pct = table.column("pct_change").to_numpy()  # nulls become NaN
        self._volume = table.column("volume").to_numpy()
        self.sessions: Days = np.unique(day_values)
        self._cache: dict[str, Movers] = {}
        self._lock = threading.Lock()

    def get(self, symbol: str) -> Movers | None:
        span = self._spans.get(symbol)
        if span is None:
            return None
        with self._lock:
            cached = self._cache.get(symbol)
            if cached is None:
                rows = self._order[span[0] : span[1]]
                days = self._day_values[self._day_codes[rows]]
                cached = Movers(days, self._close[rows], self._pct[rows], self._volume[rows])
                self._cache[symbol] = cached
        return cached


@dataclass(frozen=True, slots=True)
class _Caps:
    dates: Days
    close: Floats
    market_cap: Floats


class _MarketCaps:
    def __init__(self, files: SnapshotFiles) -> None:
        table = pcsv.read_csv(
            files.path(MARKET_CAPS),
            convert_options=pcsv.ConvertOptions(
                include_columns=["date", "symbol", "close", "market_cap_usd"],
                column_types={"date": pa.date32(), "close": pa.float64(), "market_cap_usd": pa.float64()},
            ),
        )
        names, codes = _encode(table.column("symbol"))
        dates = table.column("date").to_numpy().astype("datetime64[D]")
        close = table.column("close").to_numpy()
        caps = table.column("market_cap_usd").to_numpy()
        order, spans = _spans(codes, dates, len(names))
        self._by_symbol: dict[str, _Caps] = {}
        for name, (a, b) in zip(names, spans, strict=True):
            rows = order[a:b]
            self._by_symbol[name] = _Caps(dates[rows], close[rows], caps[rows])

    def get(self, symbol: str) -> _Caps | None:
        return self._by_symbol.get(symbol)


class PriceStore:
    def __init__(self, files: SnapshotFiles) -> None:
        self.files = files
        # A file missing from a (partial) snapshot reads as "no data there", not as a crash.
        self._movers = Lazy(lambda: _MoversTable(files) if files.exists(MOVERS) else None)
        self._caps = Lazy(lambda: _MarketCaps(files) if files.exists(MARKET_CAPS) else None)
        self._sp500 = Lazy(lambda: _Panel(self._read_sp500(), SP500) if files.exists(SP500) else None)
        self._etfs = Lazy(lambda: _Panel(self._read_etfs(), ETFS) if files.exists(ETFS) else None)
        self._calendar = Lazy(self._build_calendar)
        self._singles: dict[str, Ohlcv] = {}
        self._singles_lock = threading.Lock()

    # ---- loading -------------------------------------------------------------------------------

    def _read_sp500(self) -> pa.Table:
        return pcsv.read_csv(
            self.files.path(SP500),
            convert_options=pcsv.ConvertOptions(
                column_types={"date": pa.date32(), "ticker": pa.string(), "volume": pa.float64()}
            ),
        )

    def _read_etfs(self) -> pa.Table:
        return pq.read_table(self.files.path(ETFS), columns=["date", "ticker", *_OHLCV])

    def _single(self, rel: str, adjusted: bool) -> Ohlcv | None:
        if not self.files.exists(rel):
            return None
        with self._singles_lock:
            got = self._singles.get(rel)
            if got is None:
                got = _series_from_csv(self.files, rel, adjusted)
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
            if covering is None or _day(series.dates[0]) <= covering:
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
        movers_day = _day(movers.dates[i]) if movers is not None and i >= 0 else None
        if movers is not None and movers_day is not None and (session is None or movers_day >= session):
            return Ok(self._as_traded_quote(sym, movers, i))
        adjusted = self._adjusted(sym)
        if adjusted is not None:
            j = adjusted.last_index(as_of)
            if j >= 0 and (movers_day is None or _day(adjusted.dates[j]) > movers_day):
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
        first = min(_day(s.dates[0]) for s in (movers, adjusted) if s is not None and len(s.dates))
        return Err(
            ErrorCode.NO_DATA,
            f"the snapshot has no price for {sym} on or before {as_of} (its data starts {first}); "
            "use a later as-of date",
            "snapshot",
        )

    def _last_session(self, as_of: date) -> date | None:
        cal = self._calendar.get()
        k = int(np.searchsorted(cal, np.datetime64(as_of, "D"), side="right")) - 1
        return _day(cal[k]) if k >= 0 else None

    def _previous_session(self, day: date) -> date | None:
        cal = self._calendar.get()
        k = int(np.searchsorted(cal, np.datetime64(day, "D"), side="left")) - 1
        return _day(cal[k]) if k >= 0 else None

    def _as_traded_quote(self, sym: str, m: Movers, i: int) -> Quote:
        session = _day(m.dates[i])
        price = float(m.close[i])
        pct = float(m.pct_change[i])
        notes: list[str] = []
        prev: float | None = None
        if i > 0 and _day(m.dates[i - 1]) == self._previous_session(session):
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
        cap_date = _day(caps.dates[k])
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
            session_date=_day(s.dates[j]),
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
                f"{_day(series.dates[0])} to {_day(series.dates[-1])})",
                "snapshot",
            )
        bars = [
            PriceBar(
                date=_day(series.dates[k]),
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


def _get(panel: _Panel | None, symbol: str) -> Ohlcv | None:
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
