"""Snapshot whole-market views: one session of every listed stock, and the S&P 500 panel as matrices.

Rules this module keeps:
- Point in time: a listed session is the last session of the all-listed-stocks table on or before
  both the requested day and ``as_of``; its market caps come from the latest month-end on or before
  that session (the file's own month-end dates: August 2025 is 2025-08-29, the same evening scrape as
  that session's closes), never a later one. The S&P 500 panel holds sessions ``start`` to ``as_of``.
- Values are the files' own: closes, % changes and volumes unadjusted as the Nasdaq screener published
  them that evening; a null % change is NaN; a month-end cap of 0 (the screener had none) is NaN, and
  so is the cap of a symbol absent from that month-end (never an older month's value: symbols are
  reused, e.g. BBBY). Names, sectors and industries are the metadata file's (Nasdaq's classification,
  as last seen by the screener 2023-2025); an empty cell is None.
- The movers parquet is read once per process into a session-sorted index (sessions ascending,
  symbols alphabetical within a session), kept on disk next to the price store's indexes (its own
  folder: the symbol-sorted index of the same file lives in ``price-index``), so a warm process maps
  it without pyarrow. A call slices one session's rows (views) and looks names up by symbol code; the
  per-symbol metadata and each month-end's caps are aligned to symbol codes once per process.
- The S&P 500 matrices come from the price store's indexed S&P panel (the one ``bars`` reads), built
  once per process; a call slices its sessions (views, read-only). Tickers are the file's survivors
  (members as of early 2026): the source note says so.
- Each session's caveats (README 4, 5) are read from the snapshot's own lists and stated in ``notes``.
- Listing tiers: ``exchange_codes`` (Yahoo-style: NMS/NGM/NCM for Nasdaq's tiers, NYQ, ASE, PCX,
  BTS, IEX) and ``etf_flags`` come from the latest Nasdaq Trader symbol directory dated on or before
  the session (``nasdaq_directory``; ``directory_date``), never a later one, looked up by the table's
  symbol (the table has plain symbols only); a symbol that directory does not list is None (listed
  after it, or renamed). A note names the directory, its files and date and how many symbols it
  misses. A session before the first directory (2024-08-01) gets empty tuples and a note saying so:
  only the table's exchange column (NASDAQ/NYSE/AMEX, without tiers) is known. Each directory is
  parsed once per process and aligned to the index's symbol codes once, like the caps.
- ``day_gainers`` (the vendor's) is this very session table: the caller ranks and filters it.
"""

from __future__ import annotations

import csv
import threading
from dataclasses import dataclass
from datetime import date
from operator import itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models.funds import PricePanel
from findesk.data.models.market_scan import ListedSession
from findesk.data.vendors.snapshot import sorted_columns
from findesk.data.vendors.snapshot.files import Lazy, SnapshotFiles
from findesk.data.vendors.snapshot.funds import EtfMatrices, window_panel
from findesk.data.vendors.snapshot.nasdaq_directory import FOLDER as DIRECTORY_FOLDER
from findesk.data.vendors.snapshot.nasdaq_directory import Directories, Directory
from findesk.data.vendors.snapshot.price_tables import (
    MARKET_CAPS,
    MOVERS,
    SP500,
    Days,
    Floats,
    MarketCaps,
    Panel,
    arrow_read,
    global_codes,
    sorted_unique,
    to_day,
)
from findesk.data.vendors.snapshot.sorted_columns import SortedColumns

if TYPE_CHECKING:
    from findesk.data.vendors.snapshot.prices import PriceStore

METADATA = "reference/us_listed_stocks_metadata_sector_industry_2023-2025.csv"
MISSING_DAYS = "prices/market/trading_days_missing.txt"
RELABELLED = "prices/market/relabelled_lagged_snapshots.csv"
_COLUMNS = ("symbol", "exchange", "close", "pct", "volume")

_SESSION_NOTE = (
    "as traded: the Nasdaq screener's close, % change and volume as published that evening "
    "(unadjusted); warrants, units and rights (W/U/R suffixes) are included"
)
_META_NOTE = (
    f"names, sectors and industries from {METADATA}: Nasdaq's classification (not GICS) as last seen "
    "by the screener in 2023-2025, which may postdate the session; None where the file has none"
)
_SP500_NOTE = (
    "split/dividend-adjusted as downloaded (Oct 2025 - Feb 2026): levels before a later split or "
    "dividend differ from what traded that day, returns are exact; the tickers are the index members "
    "of early 2026 (survivorship bias: names removed earlier are missing; use index_constituents for "
    "membership by date)"
)


_TIERS_NOTE = (
    "Yahoo-style listing codes: NMS, NGM, NCM = Nasdaq Global Select, Global Market, Capital Market "
    "(Market Category Q, G, S); NYQ NYSE, ASE NYSE American, PCX NYSE Arca, BTS Cboe BZX, IEX"
)


@dataclass(frozen=True, slots=True)
class _Listing:
    """A directory's code, ETF flag and presence per symbol code of the session index."""

    codes: list[str | None]
    etf: list[bool | None]
    listed: npt.NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class _Meta:
    """The metadata file's name, sector and industry per symbol code of the session index."""

    names: list[str | None]
    sectors: list[str | None]
    industries: list[str | None]


class ListedStore:
    """The all-listed-stocks table by session, with month-end caps and metadata."""

    def __init__(self, files: SnapshotFiles, prices: PriceStore) -> None:
        self.files = files
        self._prices = prices
        self._index = Lazy(self._load_index)
        self._meta = Lazy(self._read_meta)
        self._missing = Lazy(self._read_missing)
        self._relabelled = Lazy(self._read_relabelled)
        self._caps_index = Lazy(self._load_caps)
        self._caps: dict[int, Floats] = {}  # month-end position -> caps aligned to symbol codes
        self._caps_lock = threading.Lock()
        self._directories = Directories(files)
        self._listings: dict[date, _Listing] = {}  # directory date -> aligned to symbol codes
        self._listings_lock = threading.Lock()

    # ---- the session ------------------------------------------------------------------------------

    def session(self, session: date, as_of: date) -> Result[ListedSession]:
        index = self._index.get()
        if index is None:
            return Err(
                ErrorCode.NO_DATA, f"the snapshot has no all-listed-stocks table ({MOVERS})", "snapshot"
            )
        wanted = min(session, as_of)
        k = int(np.searchsorted(index.sessions, np.datetime64(wanted, "D"), side="right")) - 1
        if k < 0:
            first, last = to_day(index.sessions[0]), to_day(index.sessions[-1])
            return Err(
                ErrorCode.NO_DATA,
                f"the all-listed-stocks table has no session on or before {wanted}: it covers {first} to "
                f"{last} ({MOVERS}); pass a date from {first} on",
                "snapshot",
            )
        day = to_day(index.sessions[k])
        rows = slice(int(index.bounds[k]), int(index.bounds[k + 1]))
        codes = np.asarray(index.columns["symbol"][rows])
        code_list = codes.tolist()
        meta = self._meta.get()
        caps, cap_date = self._caps_for(day, codes, len(index.symbols))
        notes = self._notes(session, as_of, day, cap_date)
        directory = self._directories.on_or_before(day)
        exchange_codes: tuple[str | None, ...] = ()
        etf_flags: tuple[bool | None, ...] = ()
        if directory is None:
            notes.append(self._no_directory_note(day))
        else:
            listing = self._listing(directory, index.symbols)
            exchange_codes = _pick(listing.codes, code_list)
            etf_flags = _pick(listing.etf, code_list)
            unlisted = len(code_list) - int(np.count_nonzero(listing.listed[codes]))
            notes.append(_directory_note(directory, day, unlisted))
        return Ok(
            ListedSession(
                session=day,
                symbols=_pick(index.symbols, code_list),
                exchanges=_pick(index.exchanges, np.asarray(index.columns["exchange"][rows]).tolist()),
                close=_frozen(index.columns["close"][rows]),
                pct_change=_frozen(index.columns["pct"][rows]),
                volume=_frozen(index.columns["volume"][rows]),
                market_cap_usd=caps,
                names=_pick(meta.names, code_list),
                sectors=_pick(meta.sectors, code_list),
                industries=_pick(meta.industries, code_list),
                source=self.files.source(MOVERS, _SESSION_NOTE),
                market_cap_date=cap_date,
                notes=tuple(notes),
                exchange_codes=exchange_codes,
                etf_flags=etf_flags,
                directory_date=directory.day if directory is not None else None,
            )
        )

    def _notes(self, session: date, as_of: date, day: date, cap_date: date | None) -> list[str]:
        notes: list[str] = []
        if session > as_of:
            notes.append(
                f"the requested session {session} is after the as-of date {as_of}: this is the last "
                f"session on or before {as_of}"
            )
        wanted = min(session, as_of)
        skipped = [d for d in self._missing.get() if day < d <= wanted]
        if skipped:
            shown = ", ".join(d.isoformat() for d in skipped)
            notes.append(
                f"the table has no rows for the trading day(s) {shown} (missing scrapes, README caveat 5); "
                f"this is the session before, {day}"
            )
        evening = self._relabelled.get().get(day)
        if evening is not None:
            notes.append(
                f"these rows come from the screener scrape of the evening of {evening}, which still held "
                f"{day}'s data and was relabelled to {day} (a lagged scrape, README caveat 4)"
            )
        if cap_date is None:
            notes.append(f"no month-end market cap is dated on or before {day}: every cap is unknown (NaN)")
        else:
            notes.append(
                f"market caps are the screener's month-end values of {cap_date} ({MARKET_CAPS}), not of "
                f"{day} unless the dates agree; a cap of 0 in the file or a symbol absent that month-end "
                "is unknown (NaN)"
            )
        notes.append(_META_NOTE)
        return notes

    # ---- listing tiers (Nasdaq Trader directory) ---------------------------------------------------

    def _listing(self, directory: Directory, symbols: list[str]) -> _Listing:
        with self._listings_lock:
            found = self._listings.get(directory.day)
            if found is None:
                unknown: tuple[str | None, bool | None] = (None, None)
                rows = [directory.entries.get(symbol, unknown) for symbol in symbols]
                listed = np.fromiter((s in directory.entries for s in symbols), np.bool_, len(symbols))
                found = _Listing([r[0] for r in rows], [r[1] for r in rows], listed)
                self._listings[directory.day] = found
        return found

    def _no_directory_note(self, day: date) -> str:
        days = self._directories.days()
        where = f"the earliest is {days[0]}" if days else f"the snapshot has none under {DIRECTORY_FOLDER}/"
        return (
            f"no Nasdaq Trader symbol directory is dated on or before {day} ({where}): exchange_codes and "
            "etf_flags are empty, so Nasdaq's tiers (NMS/NGM/NCM) and ETF flags are unknown for this "
            "session; only the table's exchange column (NASDAQ/NYSE/AMEX) is known"
        )

    # ---- market caps -------------------------------------------------------------------------------

    def _caps_for(
        self, day: date, codes: npt.NDArray[np.int32], n_symbols: int
    ) -> tuple[Floats, date | None]:
        caps = self._caps_index.get()
        if caps is None:
            return _frozen(np.full(len(codes), np.nan)), None
        k = int(np.searchsorted(caps.month_ends, np.datetime64(day, "D"), side="right")) - 1
        if k < 0:
            return _frozen(np.full(len(codes), np.nan)), None
        with self._caps_lock:
            by_code = self._caps.get(k)
            if by_code is None:
                by_code = caps.at(k, n_symbols)
                self._caps[k] = by_code
        return _frozen(by_code[codes]), to_day(caps.month_ends[k])

    def _load_caps(self) -> _CapsIndex | None:
        # reuse the price store's indexed table rather than parse the file a second time
        table: MarketCaps | None = self._prices.market_caps()
        index = self._index.get()
        if table is None or index is None:
            return None
        return _CapsIndex.build(table.columns, index.symbols)

    # ---- loading ----------------------------------------------------------------------------------

    def _load_index(self) -> _SessionIndex | None:
        if not self.files.exists(MOVERS):
            return None
        cache = self.files.index_dir / "listed-index" if self.files.index_dir is not None else None
        built = sorted_columns.cached(
            cache,
            self.files.path(MOVERS),
            lambda: arrow_read(lambda: build_session_index(self.files)),
            _COLUMNS,
        )
        return _SessionIndex.of(built)

    def _read_meta(self) -> _Meta:
        index = self._index.get()
        symbols = index.symbols if index is not None else []
        by_symbol: dict[str, tuple[str | None, str | None, str | None]] = {}
        if self.files.exists(METADATA):
            with self.files.path(METADATA).open(encoding="utf-8", newline="") as fh:
                for raw in csv.DictReader(fh):
                    by_symbol[raw["symbol"].strip()] = (
                        _text(raw.get("name")),
                        _text(raw.get("sector")),
                        _text(raw.get("industry")),
                    )
        unknown: tuple[str | None, str | None, str | None] = (None, None, None)
        rows = [by_symbol.get(symbol, unknown) for symbol in symbols]
        return _Meta([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])

    def _read_missing(self) -> list[date]:
        if not self.files.exists(MISSING_DAYS):
            return []
        text = self.files.path(MISSING_DAYS).read_text(encoding="utf-8")
        return sorted(date.fromisoformat(line.strip()) for line in text.splitlines() if line.strip())

    def _read_relabelled(self) -> dict[date, date]:
        """Session -> the evening whose scrape was relabelled to it."""
        if not self.files.exists(RELABELLED):
            return {}
        with self.files.path(RELABELLED).open(encoding="utf-8", newline="") as fh:
            return {
                date.fromisoformat(r["data_trade_date"]): date.fromisoformat(r["snapshot_evening_date"])
                for r in csv.DictReader(fh)
            }


@dataclass(frozen=True, slots=True)
class _SessionIndex:
    sessions: Days  # ascending
    bounds: npt.NDArray[np.int64]  # rows of sessions[k] are bounds[k]:bounds[k+1]
    columns: dict[str, npt.NDArray[np.generic]]
    symbols: list[str]  # by symbol code, alphabetical
    exchanges: list[str]  # by exchange code

    @classmethod
    def of(cls, built: SortedColumns) -> _SessionIndex:
        return cls(
            np.asarray(built.extras["sessions"]),
            built.bounds,
            built.columns,
            np.asarray(built.extras["symbols"]).tolist(),
            np.asarray(built.extras["exchanges"]).tolist(),
        )


def build_session_index(files: SnapshotFiles) -> SortedColumns:
    """The movers parquet as session-sorted columns: ``names`` are the sessions (ISO dates, ascending),
    rows of a session are in alphabetical symbol order; ``symbol``/``exchange`` are codes into the
    ``symbols``/``exchanges`` extras."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(
        files.path(MOVERS), columns=["date", "exchange", "symbol", "close", "pct_change", "volume"]
    )
    symbols, symbol_codes = global_codes(table.column("symbol"))
    exchanges, exchange_codes = global_codes(table.column("exchange"))
    days, day_codes = global_codes(table.column("date"))
    # codes in file order -> ranks, so that code order is alphabetical (symbols) and chronological (days)
    symbol_rank = _ranks(symbols)[symbol_codes]
    day_values = np.array(days, dtype="datetime64[D]")
    day_order = np.argsort(day_values, kind="stable")
    day_rank = np.empty(len(days), dtype=np.intp)
    day_rank[day_order] = np.arange(len(days))
    row_day = day_rank[day_codes]
    order = np.lexsort((symbol_rank, row_day))
    sorted_days = row_day[order]
    sessions = day_values[day_order]
    bounds = np.searchsorted(sorted_days, np.arange(len(days) + 1), side="left").astype(np.int64)
    columns: dict[str, npt.NDArray[np.generic]] = {
        "date": sessions[sorted_days],
        "symbol": symbol_rank[order].astype(np.int32),
        "exchange": exchange_codes[order].astype(np.int16),
        "close": table.column("close").cast(pa.float64()).to_numpy()[order],
        "pct": table.column("pct_change").cast(pa.float64()).to_numpy()[order],  # nulls become NaN
        "volume": table.column("volume").cast(pa.float64()).to_numpy()[order],
    }
    extras: dict[str, npt.NDArray[np.generic]] = {
        "sessions": sessions,
        "symbols": np.array(sorted(symbols), dtype=np.str_),
        "exchanges": np.array(exchanges, dtype=np.str_),
    }
    return SortedColumns([str(d) for d in sessions], bounds, columns, extras)


@dataclass(frozen=True, slots=True)
class _CapsIndex:
    """The month-end caps table with each row's symbol mapped to a session-index symbol code."""

    month_ends: Days  # ascending
    dates: Days
    caps: Floats
    codes: npt.NDArray[np.intp]  # session-index symbol code per row, -1 when the table never lists it

    @classmethod
    def build(cls, table: SortedColumns, symbols: list[str]) -> _CapsIndex:
        position = {symbol: i for i, symbol in enumerate(symbols)}
        mapped = np.fromiter((position.get(n, -1) for n in table.names), np.intp, len(table.names))
        per_name = np.diff(table.bounds)
        dates = np.asarray(table.columns["date"])
        return cls(
            sorted_unique(dates),
            dates,
            np.asarray(table.columns["market_cap"], dtype=np.float64),
            np.repeat(mapped, per_name),
        )

    def at(self, k: int, n_symbols: int) -> Floats:
        """Caps of month-end ``k`` by symbol code; NaN for a symbol absent that month-end or with a cap
        of 0 (the screener had none)."""
        rows = (self.dates == self.month_ends[k]) & (self.codes >= 0)
        values = self.caps[rows]
        out = np.full(n_symbols, np.nan)
        out[self.codes[rows]] = np.where(values > 0, values, np.nan)
        out.flags.writeable = False
        return out


class Sp500Store:
    """The S&P 500 adjusted panel as (tickers x sessions) matrices."""

    def __init__(self, files: SnapshotFiles, prices: PriceStore) -> None:
        self.files = files
        self._matrices = Lazy(lambda: _sp500_matrices(prices))

    def panel(self, as_of: date, start: date) -> Result[PricePanel]:
        source = self.files.source(SP500, _SP500_NOTE)
        return window_panel(self._matrices.get(), as_of, start, source, "S&P 500 panel")


def _sp500_matrices(prices: PriceStore) -> EtfMatrices | None:
    # reuse the panel ``bars`` reads rather than parse the 630k-row CSV a second time
    panel: Panel | None = prices.sp500_panel()
    return None if panel is None else EtfMatrices.build(panel)


def _directory_note(directory: Directory, day: date, unlisted: int) -> str:
    files = " + ".join(directory.rels)
    later = (
        ""
        if directory.day == day
        else f"; a listing or tier change from {directory.day} to {day} is not in it"
    )
    missing = (
        f"{unlisted} of the session's symbols are not in that directory (listed after it, or renamed): "
        "their code and flag are None"
        if unlisted
        else "every symbol of the session is in it"
    )
    return (
        f"exchange_codes and etf_flags come from the Nasdaq Trader symbol directory of {directory.day} "
        f"({files}), the latest dated on or before {day}{later}. {_TIERS_NOTE}. {missing}"
    )


def _ranks(names: list[str]) -> npt.NDArray[np.intp]:
    order = sorted(range(len(names)), key=names.__getitem__)
    rank = np.empty(len(names), dtype=np.intp)
    rank[order] = np.arange(len(names))
    return rank


def _pick(values: list[Any], codes: list[int]) -> tuple[Any, ...]:
    """``tuple(values[c] for c in codes)``, in C (itemgetter): ~3x faster on 6,600 codes."""
    if not codes:
        return ()
    got = itemgetter(*codes)(values)
    return got if len(codes) > 1 else (got,)


def _frozen(array: npt.NDArray[Any]) -> Floats:
    """A read-only view (the index's columns are shared by every call of the process)."""
    out = np.asarray(array, dtype=np.float64).view()
    out.flags.writeable = False
    return out


def _text(cell: str | None) -> str | None:
    if cell is None:
        return None
    text = cell.strip()
    return text or None
