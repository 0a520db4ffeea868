"""Snapshot macro series: ``fred/<SERIES>.csv`` read point in time with a release lag.

Rules this module keeps:
- FRED rows are dated by observation period, not by release, and hold the latest vintage
  (revisions included). An observation is visible at ``as_of`` only when
  ``date + release_lag_days <= as_of``; the lag used is stated on the series and in its note.
- The lags are conservative (no earlier than the usual first release):
    daily 0 days (a close is known that evening); weekly 7 days after the observation date
    (claims, H.4.1, mortgage rates, NFCI all publish within a week); monthly 61 days after the
    period start (≈ the end of the following month: CPI, jobs, PCE, retail sales…); quarterly
    122 days after the quarter start (≈ one month after quarter end: the advance GDP estimate).
  Series known to publish later get their own lag (``_SERIES_LAG``). The frequency is inferred from
  the dates themselves, because the coverage file mislabels some series (BUSLOANS is monthly).
- Known limit: delayed releases (the 2025 federal shutdown) are not modelled; values are the
  latest vintage, not the first print. Use the live FRED vendor (ALFRED vintages) for exact history.
- Missing observations (empty strings) are ``None``, never dropped or filled.
"""

from __future__ import annotations

import csv
import itertools
import re
import threading
from dataclasses import dataclass
from datetime import date, timedelta

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import MacroObservation, MacroSeries
from findesk.data.vendors.snapshot.files import Lazy, SnapshotFiles

COVERAGE = "fred/series_coverage.csv"
METADATA = "fred/metadata.csv"

FREQUENCY_LAG_DAYS = {"D": 0, "W": 7, "M": 61, "Q": 122, "A": 455}
# Series that publish later than their frequency's default (days after the observation date).
_SERIES_LAG = {
    "DCOILWTICO": 7,  # EIA spot prices are posted weekly
    "DCOILBRENTEU": 7,
    "DTWEXBGS": 7,  # H.10 is released weekly on Mondays
    "WM2NS": 56,  # H.6 is released monthly, weeks up to ~7 weeks old
    "JTSJOL": 92,  # JOLTS: about five weeks after the month ends
    "CSUSHPINSA": 92,  # Case-Shiller: last Tuesday, two months after the month
}
_SERIES_ID = re.compile(r"^[A-Z0-9_]{1,40}$")


@dataclass(frozen=True, slots=True)
class _Info:
    title: str | None
    frequency: str | None


@dataclass(frozen=True, slots=True)
class _Rows:
    dates: list[date]
    values: list[float | None]
    frequency: str | None  # inferred from the spacing of the dates


def infer_frequency(dates: list[date]) -> str | None:
    """D/W/M/Q/A from the median gap between the last observations."""
    tail = dates[-60:]
    if len(tail) < 3:
        return None
    gaps = sorted((b - a).days for a, b in itertools.pairwise(tail))
    median = gaps[len(gaps) // 2]
    for limit, freq in ((4, "D"), (10, "W"), (45, "M"), (120, "Q")):
        if median <= limit:
            return freq
    return "A"


def release_lag_days(series_id: str, frequency: str | None) -> int:
    if series_id in _SERIES_LAG:
        return _SERIES_LAG[series_id]
    # an unknown frequency gets the monthly lag: never show a value before it could be known
    return FREQUENCY_LAG_DAYS.get(frequency or "M", FREQUENCY_LAG_DAYS["M"])


class MacroStore:
    def __init__(self, files: SnapshotFiles) -> None:
        self.files = files
        self._info = Lazy(self._read_info)
        self._rows: dict[str, _Rows] = {}
        self._lock = threading.Lock()

    def _read_info(self) -> dict[str, _Info]:
        info: dict[str, _Info] = {}
        if self.files.exists(METADATA):
            with self.files.path(METADATA).open(newline="") as fh:
                for row in csv.DictReader(fh):
                    info[row["series_id"]] = _Info(None, row.get("freq") or None)
        if self.files.exists(COVERAGE):
            with self.files.path(COVERAGE).open(newline="") as fh:
                for row in csv.DictReader(fh):
                    info[row["series_id"]] = _Info(row.get("name") or None, row.get("freq") or None)
        return info

    def _load(self, series_id: str) -> _Rows:
        with self._lock:
            rows = self._rows.get(series_id)
            if rows is None:
                dates: list[date] = []
                values: list[float | None] = []
                with self.files.path(f"fred/{series_id}.csv").open(newline="") as fh:
                    for row in csv.DictReader(fh):
                        text = (row.get("value") or "").strip()
                        dates.append(date.fromisoformat(row["date"]))
                        values.append(float(text) if text and text != "." else None)
                rows = _Rows(dates, values, infer_frequency(dates))
                self._rows[series_id] = rows
        return rows

    def available(self) -> list[str]:
        return sorted(p.stem for p in self.files.path("fred").glob("*.csv") if _SERIES_ID.match(p.stem))

    def series(self, series_id: str, as_of: date, start: date | None = None) -> Result[MacroSeries]:
        sid = series_id.strip().upper()
        if not _SERIES_ID.match(sid):
            return Err(
                ErrorCode.INVALID_INPUT,
                f"{series_id!r} is not a FRED series id (letters, digits, underscore), e.g. DGS10",
                "snapshot",
            )
        rel = f"fred/{sid}.csv"
        if not self.files.exists(rel):
            some = ", ".join(self.available()[:12])
            return Err(
                ErrorCode.NOT_FOUND,
                f"FRED series {sid} is not in the snapshot; available include {some}",
                "snapshot",
            )
        rows = self._load(sid)
        info = self._info.get().get(sid, _Info(None, None))
        frequency = rows.frequency or info.frequency
        lag = release_lag_days(sid, frequency)
        # visible iff date + lag <= as_of, i.e. date <= as_of - lag
        last_visible = as_of - timedelta(days=lag)
        observations = [
            MacroObservation(date=d, value=v)
            for d, v in zip(rows.dates, rows.values, strict=True)
            if d <= last_visible and (start is None or d >= start)
        ]
        if not observations:
            return Err(
                ErrorCode.NO_DATA,
                f"no {sid} observation is visible at {as_of} (release lag {lag} days"
                f"{'' if start is None else f', start {start}'}); use a later as-of date",
                "snapshot",
            )
        label = f" (labelled {info.frequency})" if info.frequency and info.frequency != frequency else ""
        note = (
            f"latest vintage, dated by observation period; frequency {frequency}{label}; an observation "
            f"counts as known {lag} days after its date (conservative release lag)"
        )
        return Ok(
            MacroSeries(
                series_id=sid,
                title=info.title,
                units=None,
                frequency=frequency,
                release_lag_days=lag,
                observations=observations,
                source=self.files.source(rel, note),
            )
        )
