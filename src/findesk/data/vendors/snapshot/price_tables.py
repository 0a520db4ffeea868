"""Snapshot price tables: the big price files read once and indexed by symbol.

Rules this module keeps:
- Each file is read once per process (the store wraps these in ``Lazy``) and indexed by ticker;
  per-symbol slices are cached under a lock (callers run in worker threads).
- One pyarrow read at a time per process (``arrow_read``): each file has its own lazy lock, so without
  this the movers parquet, the S&P 500 CSV, the ETF parquet, the market caps and a long_history CSV
  could be parsed at once from different worker threads, all on pyarrow's shared thread pools; under
  parallel briefings that failed now and then ("get_quote failed: ArrowException", issue 12). A read is
  internally parallel already, so serialising them costs little; a thread holding this lock takes no
  other lock, so it cannot deadlock.
- Values are the files' own numbers: nothing is rescaled or adjusted here (the store does that and
  says so in a quote's notes).
- pyarrow is imported only when a file is actually parsed (``pa``, ``pc``, ``pcsv`` and ``pq`` are
  resolved on first use): a process whose tables all come from the on-disk caches never loads it.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import numpy.typing as npt

from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.sorted_columns import SortedColumns

if TYPE_CHECKING:
    import pyarrow as pa

# pyarrow costs ~0.2 s to import; these module attributes load it on first use (PEP 562)
_ARROW = {"pa": "pyarrow", "pc": "pyarrow.compute", "pcsv": "pyarrow.csv", "pq": "pyarrow.parquet"}


def __getattr__(name: str) -> Any:
    if name in _ARROW:
        return importlib.import_module(_ARROW[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


MOVERS = "prices/market/us_listed_stocks_daily_close_pctchange_volume_2024-01-02_2025-12-31.parquet"
MARKET_CAPS = "prices/market/us_listed_stocks_monthend_marketcap_2023-01_2025-12.csv.gz"
SP500 = "prices/equities/sp500_daily_ohlcv_adj_2021-01-04_2025-12-30.csv.gz"
ETFS = "prices/etfs/etf_daily_ohlcv_adj_1670_2021-01-04_2025-12-24.parquet"
SPY_FILE = "prices/equities/SPY_daily_ohlcv_adj_2015-01-02_2025-12-30.csv"
GSPC_FILE = "prices/equities/GSPC_daily_ohlcv_2015-01-02_2025-12-30.csv"
VIX_FILE = "prices/index/VIX.csv"
LONG_HISTORY = "prices/equities/long_history/{symbol}.csv"

Floats = npt.NDArray[np.float64]
Days = npt.NDArray[np.datetime64]
T = TypeVar("T")

_ARROW_LOCK = threading.Lock()


def arrow_read(read: Callable[[], T]) -> T:
    """``read()`` (a pyarrow file read and its conversion to numpy) while no other thread runs one."""
    with _ARROW_LOCK:
        return read()


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
        return i if i >= 0 and to_day(self.dates[i]) == day else None


@dataclass(frozen=True, slots=True)
class Movers:
    """One symbol's rows of the unadjusted movers table, sorted by date."""

    dates: Days
    close: Floats
    pct_change: Floats  # percent; NaN where the screener gave none
    volume: npt.NDArray[np.int64]


def encode(column: pa.ChunkedArray) -> tuple[list[str], npt.NDArray[np.integer[Any]]]:
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(column).combine_chunks()
    return encoded.dictionary.to_pylist(), encoded.indices.to_numpy(zero_copy_only=False)


def global_codes(column: pa.ChunkedArray) -> tuple[list[str], npt.NDArray[np.intp]]:
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


def to_day(value: np.datetime64) -> date:
    return date.fromisoformat(str(value)[:10])


def sorted_unique(days: Days) -> Days:
    """``np.unique(days)`` without its import of ``numpy.ma`` (~20 ms of every process's start)."""
    if len(days) == 0 or bool(np.isnat(days).any()):
        return np.unique(days)  # NaT handling is np.unique's own
    ordered = np.sort(days)
    keep = np.empty(len(ordered), dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


class Panel:
    """A long table (date, ticker, open, high, low, close, volume[, splits]) indexed by ticker.

    ``splits`` (the file's ``stock_splits``: the split ratio on that day, 0 when none) is a column
    only when the file has one (the ETF panel); ``Ohlcv`` slices never carry it."""

    def __init__(self, columns: SortedColumns, ref: str) -> None:
        self.ref = ref
        self._columns = columns
        self._spans = columns.index()
        self._cache: dict[str, Ohlcv] = {}
        self._lock = threading.Lock()

    @staticmethod
    def build(table: pa.Table) -> SortedColumns:
        import pyarrow as pa

        names, codes = encode(table.column("ticker"))
        dates = table.column("date").to_numpy().astype("datetime64[D]")
        cols = {name: table.column(name).cast(pa.float64()).to_numpy() for name in OHLCV}
        if SPLITS_SOURCE in table.column_names:
            cols[SPLITS] = table.column(SPLITS_SOURCE).cast(pa.float64()).to_numpy()
        return SortedColumns.build(names, codes, dates, cols)

    @property
    def columns(self) -> SortedColumns:
        """Every row of the file, (ticker, date)-sorted, rows without a close included: read-only."""
        return self._columns

    def __contains__(self, symbol: str) -> bool:
        return symbol in self._spans

    def get(self, symbol: str) -> Ohlcv | None:
        rows = self._spans.get(symbol)
        if rows is None:
            return None
        with self._lock:
            cached = self._cache.get(symbol)
            if cached is None:
                cols = {k: np.asarray(v[rows]) for k, v in self._columns.columns.items() if k != SPLITS}
                keep = ~np.isnan(cols["close"])  # a row without a close is not a bar
                cached = Ohlcv(
                    self.ref,
                    True,
                    cols["date"][keep],
                    cols["open"][keep],
                    cols["high"][keep],
                    cols["low"][keep],
                    cols["close"][keep],
                    cols["volume"][keep],
                )
                self._cache[symbol] = cached
        return cached


def series_from_csv(files: SnapshotFiles, rel: str, adjusted: bool) -> Ohlcv:
    """A single-symbol ``Date,Open,High,Low,Close,Volume`` file (column order may vary)."""

    def read() -> tuple[dict[str, Floats], Days]:
        import pyarrow as pa
        import pyarrow.csv as pcsv

        table = pcsv.read_csv(files.path(rel))
        cols = {k: table.column(k.capitalize()).cast(pa.float64()).to_numpy() for k in OHLCV}
        return cols, table.column("Date").to_numpy().astype("datetime64[D]")

    cols, dates = arrow_read(read)
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


OHLCV = ("open", "high", "low", "close", "volume")
# the ETF panel's split column, and its name in a ``Panel``'s columns
SPLITS_SOURCE = "stock_splits"
SPLITS = "splits"


class MoversTable:
    """The unadjusted movers table, indexed by symbol."""

    def __init__(self, columns: SortedColumns) -> None:
        self._columns = columns
        self._spans = columns.index()
        self.sessions: Days = np.asarray(columns.extras["sessions"])
        self._cache: dict[str, Movers] = {}
        self._lock = threading.Lock()

    @staticmethod
    def build(files: SnapshotFiles) -> SortedColumns:
        import pyarrow.parquet as pq

        table = pq.read_table(files.path(MOVERS), columns=["date", "symbol", "close", "pct_change", "volume"])
        names, codes = global_codes(table.column("symbol"))
        day_names, day_codes = global_codes(table.column("date"))
        day_values = np.array(day_names, dtype="datetime64[D]")
        cols = {
            "close": table.column("close").to_numpy(),
            "pct": table.column("pct_change").to_numpy(),  # nulls become NaN
            "volume": table.column("volume").to_numpy(),
        }
        extras = {"sessions": np.unique(day_values)}
        return SortedColumns.build(names, codes, day_values[day_codes], cols, extras)

    def get(self, symbol: str) -> Movers | None:
        rows = self._spans.get(symbol)
        if rows is None:
            return None
        with self._lock:
            cached = self._cache.get(symbol)
            if cached is None:
                c = self._columns.columns
                cached = Movers(
                    np.asarray(c["date"][rows]),
                    np.asarray(c["close"][rows]),
                    np.asarray(c["pct"][rows]),
                    np.asarray(c["volume"][rows]),
                )
                self._cache[symbol] = cached
        return cached


@dataclass(frozen=True, slots=True)
class Caps:
    dates: Days
    close: Floats
    market_cap: Floats


class MarketCaps:
    """The month-end market caps, indexed by symbol (rows of a symbol sorted by date)."""

    def __init__(self, columns: SortedColumns) -> None:
        self._columns = columns
        self._spans = columns.index()
        self._cache: dict[str, Caps] = {}
        self._lock = threading.Lock()

    @staticmethod
    def build(files: SnapshotFiles) -> SortedColumns:
        names, codes, dates, close, caps = MarketCaps._read(files)
        return SortedColumns.build(names, codes, dates, {"close": close, "market_cap": caps})

    @staticmethod
    def _read(files: SnapshotFiles) -> tuple[list[str], npt.NDArray[np.integer[Any]], Days, Floats, Floats]:
        import pyarrow as pa
        import pyarrow.csv as pcsv

        table = pcsv.read_csv(
            files.path(MARKET_CAPS),
            convert_options=pcsv.ConvertOptions(
                include_columns=["date", "symbol", "close", "market_cap_usd"],
                column_types={"date": pa.date32(), "close": pa.float64(), "market_cap_usd": pa.float64()},
            ),
        )
        names, codes = encode(table.column("symbol"))
        dates = table.column("date").to_numpy().astype("datetime64[D]")
        return (
            names,
            codes,
            dates,
            table.column("close").to_numpy(),
            table.column("market_cap_usd").to_numpy(),
        )

    @property
    def columns(self) -> SortedColumns:
        """Every row of the file, (symbol, date)-sorted: read-only (the listed-session view aligns a
        month-end's caps to its symbols from these)."""
        return self._columns

    def get(self, symbol: str) -> Caps | None:
        rows = self._spans.get(symbol)
        if rows is None:
            return None
        with self._lock:
            cached = self._cache.get(symbol)
            if cached is None:
                c = self._columns.columns
                cached = Caps(
                    np.asarray(c["date"][rows]),
                    np.asarray(c["close"][rows]),
                    np.asarray(c["market_cap"][rows]),
                )
                self._cache[symbol] = cached
        return cached
