"""Snapshot funds: the ETF panel as one tickers × sessions matrix, and the ETF profiles file.

Rules this module keeps:
- Point in time: a panel holds the ETF panel's sessions from ``start`` to ``as_of`` and nothing
  later; a ticker with no bar in that window is left out (that it lists later, or closed earlier, is
  not for the run to see). A profile is left out when its fund started after ``as_of`` (inception,
  else first trade date) or when the file gives neither date (it cannot be shown to exist then).
- The ETF parquet is never parsed here: the matrices come from the price store's indexed ETF panel
  (the one ``bars`` and ``quote`` use, kept on disk between processes), built once per process over
  the file's whole range. A call slices its sessions (a view) and copies only when tickers must be
  left out. Every matrix handed out is read-only, since views share the process-wide copy.
- Values are the file's own: split/dividend-adjusted levels as downloaded (Nov/Dec 2025), volume as
  a float, ``splits`` the file's ``stock_splits`` (0 on a day without a split). A row without a close
  is not a bar (as in ``Panel.get``): NaN in every matrix, like a day without a row.
- Profiles are read once per process with the csv module. ``netExpenseRatio`` is already in percent
  (SPY 0.0945, VOO 0.03, XLK 0.08); the few above 5 % are funds of BDCs whose ratio includes the
  acquired funds' fees (BIZD 12.86). Empty cells are ``None``; sizes are as of ``info_asof``.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, TypeVar

import numpy as np
import numpy.typing as npt

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models.base import Source
from findesk.data.models.funds import FundProfile, Matrix, PricePanel
from findesk.data.vendors.snapshot.files import Lazy, SnapshotFiles
from findesk.data.vendors.snapshot.price_tables import ETFS, OHLCV, SPLITS, Days, Panel

if TYPE_CHECKING:
    from findesk.data.vendors.snapshot.prices import PriceStore

_Array = TypeVar("_Array", Matrix, Days)

PROFILES = "reference/etf_metadata_yfinance_info.csv"
SUMMARY_CHARS = 600
FIELDS = (*OHLCV, SPLITS)
_PANEL_NOTE = (
    "split/dividend-adjusted as downloaded (Nov/Dec 2025): levels before a later split or dividend "
    "differ from what traded that day; returns are exact"
)
_PROFILE_NOTE = (
    "Yahoo fund profiles recorded on each profile's recorded_on (Nov/Dec 2025): sizes are as of then, "
    "not as of the run's date; expense ratios are in percent"
)


@dataclass(frozen=True, slots=True)
class EtfMatrices:
    """A whole price panel (the ETF panel; the S&P 500 panel too, for ``listed``) on one session axis:
    tickers in alphabetical order, every field a read-only (tickers × sessions) matrix, NaN where a
    ticker has no bar (and in ``splits`` when the panel has no split column)."""

    tickers: tuple[str, ...]
    dates: Days
    fields: dict[str, Matrix]

    @classmethod
    def build(cls, panel: Panel) -> EtfMatrices:
        table = panel.columns
        close = np.asarray(table.columns["close"], dtype=np.float64)
        is_bar = ~np.isnan(close)
        sessions, cols = _session_axis(np.asarray(table.columns["date"])[is_bar])
        # rows are grouped by ticker code; codes are in the file's order, rows are put in name order
        order = sorted(range(len(table.names)), key=table.names.__getitem__)
        rank = np.empty(len(order), dtype=np.intp)
        rank[order] = np.arange(len(order))
        per_code = table.bounds[1:] - table.bounds[:-1]
        rows = np.repeat(rank, per_code)[is_bar]
        fields: dict[str, Matrix] = {}
        for name in FIELDS:
            matrix = np.full((len(order), len(sessions)), np.nan)
            if name in table.columns:  # a panel without split ratios (the S&P 500's) keeps NaN there
                matrix[rows, cols] = np.asarray(table.columns[name], dtype=np.float64)[is_bar]
            matrix.flags.writeable = False
            fields[name] = matrix
        return cls(tuple(table.names[i] for i in order), _read_only(sessions), fields)


class FundStore:
    def __init__(self, files: SnapshotFiles, prices: PriceStore) -> None:
        self.files = files
        self._matrices = Lazy(lambda: _matrices(prices))
        self._profiles = Lazy(self._read_profiles)

    # ---- the ETF panel ---------------------------------------------------------------------------

    def panel(self, as_of: date, start: date) -> Result[PricePanel]:
        source = self.files.source(ETFS, _PANEL_NOTE)
        return window_panel(self._matrices.get(), as_of, start, source, "ETF panel")

    # ---- profiles --------------------------------------------------------------------------------

    def profiles(self, as_of: date) -> Result[dict[str, FundProfile]]:
        every = self._profiles.get()
        if every is None:
            return Err(ErrorCode.NO_DATA, f"the snapshot has no fund profiles ({PROFILES})", "snapshot")
        known = {t: p for t, p in every.items() if p.inception is not None and p.inception <= as_of}
        if not known:
            return Err(ErrorCode.NO_DATA, f"no fund in {PROFILES} had started by {as_of}", "snapshot")
        return Ok(known)

    def _read_profiles(self) -> dict[str, FundProfile] | None:
        if not self.files.exists(PROFILES):
            return None
        source = self.files.source(PROFILES, _PROFILE_NOTE)
        out: dict[str, FundProfile] = {}
        with self.files.path(PROFILES).open(encoding="utf-8", newline="") as fh:
            for raw in csv.DictReader(fh):
                ticker = raw["ticker"].strip().upper()
                out[ticker] = FundProfile(
                    ticker=ticker,
                    name=_text(raw.get("longName")) or _text(raw.get("shortName")) or ticker,
                    quote_type=_text(raw.get("quoteType")),
                    category=_text(raw.get("category")),
                    family=_text(raw.get("fundFamily")),
                    total_assets=_number(raw.get("totalAssets")),
                    expense_ratio_pct=_number(raw.get("netExpenseRatio")),
                    inception=_day(raw.get("fundInceptionDate")) or _day(raw.get("firstTradeDate")),
                    summary=_summary(raw.get("longBusinessSummary")),
                    recorded_on=_day(raw.get("info_asof")),
                    source=source,
                )
        return out


def window_panel(
    full: EtfMatrices | None, as_of: date, start: date, source: Source, what: str
) -> Result[PricePanel]:
    """The sessions ``start`` to ``as_of`` of ``full`` (views), leaving out tickers without a bar
    in them (copied then); ``no_data`` naming ``what`` when no session falls in the window or the
    snapshot has no such file (``full`` None); a start after ``as_of`` is the caller's mistake."""
    if start > as_of:
        return Err(
            ErrorCode.INVALID_INPUT,
            f"start {start} is after as_of {as_of}; nothing dated after as_of is visible",
            "snapshot",
        )
    if full is None:
        return Err(ErrorCode.NO_DATA, f"the snapshot has no {what} ({source.ref})", "snapshot")
    lo = int(np.searchsorted(full.dates, np.datetime64(start, "D"), side="left"))
    hi = int(np.searchsorted(full.dates, np.datetime64(as_of, "D"), side="right"))
    if hi <= lo:
        # no dates in the message: the panel's first session may be after as_of
        return Err(
            ErrorCode.NO_DATA,
            f"the snapshot's {what} has no session between {start} and {as_of}",
            "snapshot",
        )
    window = {name: m[:, lo:hi] for name, m in full.fields.items()}
    present = ~np.isnan(window["close"]).all(axis=1)
    tickers = full.tickers
    if not present.all():
        keep = np.flatnonzero(present)
        tickers = tuple(full.tickers[i] for i in keep.tolist())
        window = {name: _read_only(m[keep]) for name, m in window.items()}
    return Ok(
        PricePanel(
            tickers=tickers,
            dates=full.dates[lo:hi],
            open=window["open"],
            high=window["high"],
            low=window["low"],
            close=window["close"],
            volume=window["volume"],
            splits=window[SPLITS],
            source=source,
        )
    )


def _matrices(prices: PriceStore) -> EtfMatrices | None:
    panel = prices.etf_panel()
    return None if panel is None else EtfMatrices.build(panel)


def _session_axis(days: Days) -> tuple[Days, npt.NDArray[np.intp]]:
    """The distinct days, ascending, and each day's position among them. A lookup table over the
    span of days instead of sorting 1.8M dates: a third of the time."""
    if len(days) == 0:
        return days, np.empty(0, dtype=np.intp)
    number = days.astype("datetime64[D]").view(np.int64)
    first = int(number.min())
    offset = number - first
    seen = np.zeros(int(offset.max()) + 1, dtype=bool)
    seen[offset] = True
    position = np.cumsum(seen, dtype=np.intp) - 1
    return (np.flatnonzero(seen) + first).astype("datetime64[D]"), position[offset]


def _read_only(array: _Array) -> _Array:
    array.flags.writeable = False
    return array


def _text(cell: str | None) -> str | None:
    return (cell.strip() or None) if cell is not None else None


def _number(cell: str | None) -> float | None:
    text = _text(cell)
    if text is None:
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def _day(cell: str | None) -> date | None:
    text = _text(cell)
    return None if text is None else date.fromisoformat(text[:10])


def _summary(cell: str | None) -> str | None:
    """The description cut to ``SUMMARY_CHARS`` at a word boundary, with an ellipsis when cut."""
    text = _text(cell)
    if text is None or len(text) <= SUMMARY_CHARS:
        return text
    cut = text[: SUMMARY_CHARS - 1]
    space = cut.rfind(" ")
    if space > SUMMARY_CHARS * 3 // 4:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"
